package org.vnpu.deviceplugin;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.vnpu.kube.VerifyingKeys;

/**
 * The checks of {@code vnpu doctor} that read the node's files: the container runtime's NPU hook,
 * the kubelet's device-plugin socket, the shim (preloaded into a process), the device plugin's
 * state directory and the scheduler's verifying keys.
 */
final class HostChecks {

  private static final List<String> RUNTIME_BINARIES =
      List.of("ascend-docker-runtime", "ascend-docker-hook");

  private static final int PRELOAD_SECONDS = 10;

  private HostChecks() {}

  static NodeDoctor.Check runtime(Path directory) {
    for (String binary : RUNTIME_BINARIES) {
      if (Files.isExecutable(directory.resolve(binary))) {
        return NodeDoctor.Check.pass(
            "runtime-hook", "Ascend Docker Runtime at " + directory.resolve(binary));
      }
    }
    return new NodeDoctor.Check(
        "runtime-hook",
        NodeDoctor.Outcome.FAIL,
        "no " + String.join(" or ", RUNTIME_BINARIES) + " in " + directory,
        "install Ascend Docker Runtime 7.2.RC1 or newer as the container runtime's NPU hook"
            + " (docs/install.md), or name its directory with --ascend-runtime");
  }

  static NodeDoctor.Check kubelet(Path directory) {
    Path socket = directory.resolve("kubelet.sock");
    if (!Files.isDirectory(directory)) {
      return new NodeDoctor.Check(
          "kubelet",
          NodeDoctor.Outcome.FAIL,
          directory + " is not a directory",
          "mount the kubelet's device-plugin directory (hostPath"
              + " /var/lib/kubelet/device-plugins) or name it with --kubelet-dir");
    }
    if (!isSocket(socket)) {
      return new NodeDoctor.Check(
          "kubelet",
          NodeDoctor.Outcome.FAIL,
          "no kubelet.sock in " + directory,
          "start the kubelet; if it runs, its device-plugin directory is elsewhere: --kubelet-dir");
    }
    return NodeDoctor.Check.pass("kubelet", "kubelet.sock in " + directory);
  }

  private static boolean isSocket(Path path) {
    try {
      int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
      return (mode & 0170000) == 0140000;
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }

  /** The shim exists and the dynamic loader preloads it into a process. */
  static NodeDoctor.Check shim(Path library) {
    String fix =
        "the device plugin's init container copies the shim there; check that the image has one"
            + " for this node's architecture (docs/install.md), or name it with --shim-library";
    if (!Files.isRegularFile(library)) {
      return new NodeDoctor.Check("shim", NodeDoctor.Outcome.FAIL, "no file " + library, fix);
    }
    Path trueCommand =
        Stream.of("/bin/true", "/usr/bin/true")
            .map(Path::of)
            .filter(Files::isExecutable)
            .findFirst()
            .orElse(null);
    if (trueCommand == null) {
      return new NodeDoctor.Check(
          "shim",
          NodeDoctor.Outcome.WARN,
          library + " exists; no /bin/true to preload it into",
          "run LD_PRELOAD=" + library + " true and look for ld.so errors");
    }
    try {
      ProcessBuilder builder =
          new ProcessBuilder(trueCommand.toString())
              .redirectOutput(ProcessBuilder.Redirect.DISCARD);
      builder.environment().put("LD_PRELOAD", library.toString());
      Process process = builder.start();
      String errors;
      try (InputStream stderr = process.getErrorStream()) {
        errors = new String(stderr.readNBytes(4096), StandardCharsets.UTF_8).strip();
      }
      if (!process.waitFor(PRELOAD_SECONDS, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        return new NodeDoctor.Check(
            "shim",
            NodeDoctor.Outcome.FAIL,
            "a process with it preloaded did not end within " + PRELOAD_SECONDS + " s",
            fix);
      }
      if (errors.contains("cannot be preloaded") || process.exitValue() != 0) {
        return new NodeDoctor.Check(
            "shim",
            NodeDoctor.Outcome.FAIL,
            "the dynamic loader refuses it: "
                + (errors.isEmpty() ? "exit " + process.exitValue() : errors),
            fix);
      }
    } catch (IOException e) {
      return new NodeDoctor.Check(
          "shim",
          NodeDoctor.Outcome.FAIL,
          "cannot start a process with it: " + e.getMessage(),
          fix);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return new NodeDoctor.Check(
          "shim", NodeDoctor.Outcome.WARN, "interrupted", "run vnpu doctor again");
    }
    return NodeDoctor.Check.pass("shim", library + " preloads");
  }

  /**
   * The state directory and its {@code pods} and {@code chips} are the device plugin's user's and
   * nobody else may write them: whoever can forges shim configs (docs/security.md).
   */
  static NodeDoctor.Check state(Path directory) {
    if (!Files.exists(directory)) {
      return NodeDoctor.Check.pass(
          "state-dir", directory + " does not exist yet; the device plugin creates it");
    }
    String user = System.getProperty("user.name");
    List<String> problems = new ArrayList<>();
    for (Path path : List.of(directory, directory.resolve("pods"), directory.resolve("chips"))) {
      if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
        continue;
      }
      try {
        if (!Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
          problems.add(path + " is not a directory");
          continue;
        }
        String owner = Files.getOwner(path, LinkOption.NOFOLLOW_LINKS).getName();
        if (!owner.equals(user)) {
          problems.add(path + " is owned by " + owner + ", not " + user);
        }
        Set<PosixFilePermission> modes =
            Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS);
        if (modes.contains(PosixFilePermission.GROUP_WRITE)
            || modes.contains(PosixFilePermission.OTHERS_WRITE)) {
          problems.add(path + " is writable by group or others");
        }
      } catch (IOException e) {
        problems.add(path + ": " + e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      return new NodeDoctor.Check(
          "state-dir",
          NodeDoctor.Outcome.FAIL,
          String.join("; ", problems),
          "chown -R "
              + user
              + " "
              + directory
              + " && chmod go-w "
              + directory
              + " "
              + directory.resolve("pods")
              + " "
              + directory.resolve("chips"));
    }
    return NodeDoctor.Check.pass(
        "state-dir", directory + " is " + user + "'s, writable by nobody else");
  }

  static NodeDoctor.Check keys(Path directory) {
    String fix =
        "mount the scheduler's verifying-keys ConfigMap there (the chart does), or name the"
            + " directory with --verifying-keys";
    if (!Files.isDirectory(directory)) {
      return new NodeDoctor.Check(
          "signing-keys", NodeDoctor.Outcome.FAIL, directory + " is not a directory", fix);
    }
    Set<String> ids = VerifyingKeys.inDirectory(directory, Clock.systemUTC()).readIds();
    if (ids.isEmpty()) {
      return new NodeDoctor.Check(
          "signing-keys",
          NodeDoctor.Outcome.FAIL,
          "no valid verifying key in " + directory + ": every allocation would be refused",
          fix + "; the scheduler writes its keys into the ConfigMap when it starts");
    }
    return NodeDoctor.Check.pass(
        "signing-keys", ids.size() + " verifying key(s) in " + directory + ": " + ids);
  }
}
