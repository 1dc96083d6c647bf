package org.vnpu.deviceplugin.allocate;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.vnpu.api.ShimContract;

/**
 * The device plugin's files on the node, under its state directory:
 *
 * <pre>
 * &lt;state&gt;/ld.so.preload                      names the shim; mounted as /etc/ld.so.preload
 * &lt;state&gt;/chips/&lt;dieId&gt;/                    a chip's shared-region directory (mode 0777)
 * &lt;state&gt;/pods/&lt;podUid&gt;/pod                 namespace and name of the pod, one per line
 * &lt;state&gt;/pods/&lt;podUid&gt;/&lt;container&gt;.conf    a container's shim config (mode 0444)
 * </pre>
 */
public final class NodeFiles {

  /** A pod the node has files for. */
  public record PodRecord(String uid, String namespace, String name) {}

  private static final Pattern SAFE_NAME = Pattern.compile("[A-Za-z0-9._-]+");

  private final Path state;

  public NodeFiles(Path state) {
    this.state = state;
  }

  /** Creates the state directory and the preload file. */
  public NodeFiles prepare() {
    try {
      Files.createDirectories(state.resolve("pods"));
      Files.createDirectories(state.resolve("chips"));
      writeAtomically(preloadFile(), ShimContract.CONTAINER_LIBRARY + "\n");
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot prepare the state directory " + state + ": " + e.getMessage(), e);
    }
  }

  /** The host file mounted as the container's {@code /etc/ld.so.preload}. */
  public Path preloadFile() {
    return state.resolve("ld.so.preload");
  }

  /**
   * The chip's shared-region directory on the host, created writable for every container user.
   *
   * @throws IOException also when the die ID could name another path ({@code ..}, {@code /})
   */
  public Path chipDirectory(String dieId) throws IOException {
    if (!SAFE_NAME.matcher(dieId).matches() || dieId.equals(".") || dieId.equals("..")) {
      throw new IOException("die ID '" + dieId + "' cannot name a directory");
    }
    Path directory = state.resolve("chips").resolve(dieId);
    if (!Files.isDirectory(directory)) {
      Files.createDirectories(directory);
      Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxrwxrwx"));
    }
    return directory;
  }

  /** Writes a container's shim config, read-only, and returns its host path. */
  public Path writeConfig(PodRecord pod, String container, String text) throws IOException {
    Path directory = state.resolve("pods").resolve(pod.uid());
    Files.createDirectories(directory);
    Path record = directory.resolve("pod");
    if (!Files.exists(record)) {
      writeAtomically(record, pod.namespace() + "\n" + pod.name() + "\n");
    }
    Path config = directory.resolve(container + ".conf");
    writeAtomically(config, text);
    Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("r--r--r--"));
    return config;
  }

  /** The pods that have files here; directories without a readable record are skipped. */
  public List<PodRecord> pods() throws IOException {
    List<PodRecord> pods = new ArrayList<>();
    try (Stream<Path> directories = Files.list(state.resolve("pods"))) {
      for (Path directory : directories.toList()) {
        Path record = directory.resolve("pod");
        if (Files.isRegularFile(record)) {
          List<String> lines = Files.readAllLines(record, StandardCharsets.UTF_8);
          if (lines.size() >= 2) {
            pods.add(new PodRecord(directory.getFileName().toString(), lines.get(0), lines.get(1)));
          }
        }
      }
    }
    return pods;
  }

  /** Deletes every file of the pod {@code uid}. */
  public void remove(String uid) throws IOException {
    Path directory = state.resolve("pods").resolve(uid);
    if (!Files.exists(directory)) {
      return;
    }
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path file : files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) {
        Files.delete(file);
      }
    }
  }

  private static void writeAtomically(Path file, String text) throws IOException {
    Path temporary = Files.createTempFile(file.getParent(), ".write-", ".tmp");
    try {
      Files.writeString(temporary, text, StandardCharsets.UTF_8);
      Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("rw-r--r--"));
      try {
        Files.move(
            temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temporary);
    }
  }
}
