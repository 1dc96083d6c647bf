package org.vnpu.cluster.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.cluster.SourceTree;
import org.vnpu.cluster.UpstreamBinaries;
import org.vnpu.sandbox.NativeFiles;

/**
 * The images a real node runs, built on this machine as {@code docker save} archives for {@code ctr
 * images import}: no pull ever leaves it, and every reference is under {@code localhost/}.
 *
 * <ul>
 *   <li>the sandbox image: the pause program the upstream build compiled from the Kubernetes
 *       module's source;
 *   <li>a Java base: a runtime made by jlink from this JDK, busybox for the shell the chart's init
 *       container and probes run, and the C libraries they load, copied from this machine;
 *   <li>vNPU's image: built by Jib from vnpu-cli's own configuration (the image users build), with
 *       that base instead of {@code eclipse-temurin} ({@code -Djib.from.image=tar://});
 *   <li>the workload image: the demo's workload program with the fake Ascend runtime where a CANN
 *       image keeps its libraries.
 * </ul>
 */
public final class NodeImages {

  private static final Logger LOG = LoggerFactory.getLogger(NodeImages.class);

  public static final String PAUSE = "localhost/vnpu/pause:1.0";
  public static final String JAVA_BASE = "localhost/vnpu/java-base:17";
  public static final String VNPU = "localhost/vnpu/vnpu:real-node";
  public static final String WORKLOAD = "localhost/vnpu/workload:1.0";

  /** Where a CANN image keeps the runtime's libraries; the workload image's fakes go there. */
  public static final String TOOLKIT_LIBRARIES = "/usr/local/Ascend/ascend-toolkit/latest/lib64";

  private static final String JAVA_HOME = "/opt/java/openjdk";
  private static final List<String> JAVA_MODULES =
      List.of(
          "java.se",
          "jdk.crypto.ec",
          "jdk.unsupported",
          "jdk.management",
          "jdk.zipfs",
          "jdk.naming.dns",
          "jdk.httpserver");
  private static final long BUILD_MINUTES = 15;
  private static final List<String> C_LIBRARY_COMPANIONS =
      List.of(
          "libdl.so.2",
          "libpthread.so.0",
          "librt.so.1",
          "libm.so.6",
          "libresolv.so.2",
          "libutil.so.1",
          "libgcc_s.so.1",
          "libnss_files.so.2",
          "libnss_dns.so.2");
  private static final List<String> SYSTEM_LIBRARIES =
      List.of("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/");

  private final Path directory;

  /**
   * @param directory where the archives and the build's intermediate files go
   */
  public NodeImages(Path directory) {
    this.directory = directory;
  }

  /** The sandbox image, from the pause program of the upstream build. */
  public Path pause(UpstreamBinaries binaries) throws IOException {
    Path tar = directory.resolve("pause.tar");
    ImageArchive.named(PAUSE)
        .file("/pause", binaries.binary("pause"))
        .entrypoint(List.of("/pause"))
        .write(tar);
    return tar;
  }

  /** The workload image: the workload program, the fake runtime, busybox and their libraries. */
  public Path workload(NativeFiles natives) throws IOException, InterruptedException {
    Path busybox = busybox();
    ImageArchive image =
        ImageArchive.named(WORKLOAD)
            .file("/usr/local/bin/vnpu-workload", natives.workload())
            .file(TOOLKIT_LIBRARIES + "/libascendcl.so", natives.fake("libascendcl.so"))
            .file(TOOLKIT_LIBRARIES + "/libruntime.so", natives.fake("libruntime.so"))
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("LD_LIBRARY_PATH", TOOLKIT_LIBRARIES)
            .entrypoint(List.of("/usr/local/bin/vnpu-workload"));
    withBusybox(image, busybox);
    withLibraries(
        image,
        List.of(
            natives.workload(),
            natives.shim(),
            natives.fake("libascendcl.so"),
            natives.fake("libruntime.so")));
    Path tar = directory.resolve("workload.tar");
    image.write(tar);
    return tar;
  }

  /**
   * vNPU's image, built by Jib in the source tree ({@code -Pimage-tar}) on the Java base this makes
   * first.
   */
  public Path vnpu(SourceTree tree) throws IOException, InterruptedException {
    Path base = javaBase();
    Path tar = directory.resolve("vnpu.tar").toAbsolutePath();
    List<String> command =
        List.of(
            tree.root().resolve("mvnw").toString(),
            "-B",
            "-q",
            "-pl",
            "vnpu-cli",
            "-am",
            "package",
            "-DskipTests",
            "-Pimage-tar",
            "-Djib.from.image=tar://" + base.toAbsolutePath(),
            "-Dimage=" + VNPU,
            "-Djib.outputPaths.tar=" + tar);
    LOG.info("building {} with Jib: {}", VNPU, String.join(" ", command));
    run(command, tree.root(), directory.resolve("jib.log"));
    return tar;
  }

  /** A Java runtime by jlink from this JDK, with busybox and the libraries they load. */
  Path javaBase() throws IOException, InterruptedException {
    Path jdk = Path.of(System.getProperty("java.home"));
    Path jlink = jdk.resolve("bin/jlink");
    if (!Files.isExecutable(jlink) || !Files.isDirectory(jdk.resolve("jmods"))) {
      throw new IOException(
          "the Java base image is made by jlink from the running JDK, and "
              + jdk
              + " has no bin/jlink or jmods/ (a JRE); run vnpu with a full JDK 17 (Debian:"
              + " openjdk-17-jdk-headless)");
    }
    Path runtime = directory.resolve("java-runtime");
    deleteTree(runtime);
    run(
        List.of(
            jlink.toString(),
            "--add-modules",
            String.join(",", JAVA_MODULES),
            "--strip-debug",
            "--no-header-files",
            "--no-man-pages",
            "--output",
            runtime.toString()),
        directory,
        directory.resolve("jlink.log"));
    ImageArchive image =
        ImageArchive.named(JAVA_BASE)
            .tree(JAVA_HOME, runtime)
            .text("/etc/passwd", "root:x:0:0:root:/root:/bin/sh\n")
            .text("/etc/group", "root:x:0:\n")
            .scratchDirectory("/tmp")
            .env("PATH", JAVA_HOME + "/bin:/usr/local/bin:/usr/bin:/bin")
            .env("JAVA_HOME", JAVA_HOME)
            // As eclipse-temurin sets it: Java writes UTF-8, not '?' for each non-ASCII character.
            .env("LANG", "C.UTF-8");
    withBusybox(image, busybox());
    List<Path> loaded = new ArrayList<>(List.of(runtime.resolve("bin/java")));
    for (String library :
        List.of(
            "server/libjvm.so", "libjava.so", "libnet.so", "libnio.so", "libzip.so", "libjli.so")) {
      loaded.add(runtime.resolve("lib").resolve(library));
    }
    withLibraries(image, loaded);
    Path tar = directory.resolve("java-base.tar");
    image.write(tar);
    return tar;
  }

  private static Path busybox() throws IOException {
    for (String candidate : List.of("/bin/busybox", "/usr/bin/busybox")) {
      if (Files.isExecutable(Path.of(candidate))) {
        return Path.of(candidate);
      }
    }
    throw new IOException(
        "the node's images take their shell from busybox, and this machine has none (Debian:"
            + " apt-get install busybox-static)");
  }

  /** busybox at /bin/busybox with a link in /bin for each of its commands. */
  private void withBusybox(ImageArchive image, Path busybox)
      throws IOException, InterruptedException {
    image.file("/bin/busybox", busybox);
    String list = output(List.of(busybox.toString(), "--list"));
    for (String command : list.lines().map(String::strip).toList()) {
      if (command.matches("[a-z0-9_.\\[-]+") && !command.equals("busybox")) {
        image.symlink("/bin/" + command, "busybox");
      }
    }
  }

  /**
   * The system's shared libraries {@code binaries} load, as {@code ldd} finds them, at the same
   * paths; libraries beside the binaries (the runtime's own, the fakes) come with them.
   */
  private static void withLibraries(ImageArchive image, List<Path> binaries)
      throws IOException, InterruptedException {
    Set<String> libraries = new TreeSet<>();
    for (Path binary : binaries) {
      for (String line : output(List.of("ldd", binary.toString())).lines().toList()) {
        String[] fields = line.strip().split("\\s+");
        for (String field : fields) {
          String library = Path.of(field).normalize().toString();
          if (field.startsWith("/") && SYSTEM_LIBRARIES.stream().anyMatch(library::startsWith)) {
            libraries.add(library);
            break;
          }
        }
      }
    }
    // The C library's companions too: native code loaded later (netty's epoll transport, JNA's
    // dispatch library) links libdl, libpthread and librt, which glibc 2.34+ programs no longer
    // load themselves.
    for (String library : List.copyOf(libraries)) {
      if (Path.of(library).getFileName().toString().equals("libc.so.6")) {
        for (String companion : C_LIBRARY_COMPANIONS) {
          Path path = Path.of(library).resolveSibling(companion);
          if (Files.exists(path)) {
            libraries.add(path.toString());
          }
        }
      }
    }
    for (String library : libraries) {
      image.file(library, Path.of(library));
    }
  }

  /** What {@code command} prints; ldd of a static program exits 1 and prints nothing useful. */
  private static String output(List<String> command) throws IOException, InterruptedException {
    HostCommands.Result result = HostCommands.attempt(command);
    if (result.exit() != 0
        && !result.errors().contains("not a dynamic executable")
        && !result.output().contains("not a dynamic executable")) {
      throw new IOException(String.join(" ", command) + " failed: " + result.errors());
    }
    return result.output();
  }

  private static void run(List<String> command, Path workingDirectory, Path log)
      throws IOException, InterruptedException {
    Files.createDirectories(log.getParent());
    Process process =
        new ProcessBuilder(command)
            .directory(workingDirectory.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    if (!process.waitFor(BUILD_MINUTES, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IOException(command.get(0) + " took over " + BUILD_MINUTES + " min; see " + log);
    }
    if (process.exitValue() != 0) {
      List<String> lines = Files.readAllLines(log);
      throw new IOException(
          String.join(" ", command)
              + " failed (exit "
              + process.exitValue()
              + "); last lines of "
              + log
              + ":\n  "
              + String.join("\n  ", lines.subList(Math.max(0, lines.size() - 20), lines.size())));
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var files = Files.walk(root)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }
}
