package org.vnpu.handouts;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.vnpu.api.ShimContract;
import org.vnpu.api.region.ChipRegion;

/**
 * The device plugin's files on the node, under its state directory:
 *
 * <pre>
 * &lt;state&gt;/ld.so.preload                      names the shim; mounted as /etc/ld.so.preload
 * &lt;state&gt;/chips/&lt;dieId&gt;/region              a chip's region (mode 0666, mounted alone)
 * &lt;state&gt;/pods/&lt;key&gt;/pod                 namespace, name and UID of the pod, one per line
 * &lt;state&gt;/pods/&lt;key&gt;/&lt;container&gt;.conf    a container's shim config (mode 0444)
 * &lt;state&gt;/pods/&lt;key&gt;/&lt;container&gt;.books/  its books, one file per chip (mode 0777)
 * </pre>
 *
 * <p>The key names the hand-out ({@link ShimContract#hostBooksDirectory}): the reservation's nonce
 * for the device plugin, the claim's UID for the DRA driver. The {@code pod} file names the pod
 * that uses the files; it changes when interchangeable pods turn out to have swapped.
 *
 * <p>Host paths come from {@link ShimContract}, which the exporter reads them by.
 */
public final class NodeFiles {

  /** A pod the node has files for. */
  public record PodRecord(String uid, String namespace, String name) {}

  /** The files of one hand-out: its key and the pod that uses them. */
  public record KeyedFiles(String key, PodRecord pod) {}

  /**
   * A container's shim files on the host.
   *
   * @param config its shim config, mounted read-only
   * @param books its books directory, mounted read-write into it alone
   */
  public record ShimFiles(Path config, Path books) {}

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
   * The chip's region on the host, created (or its header written again) as the device plugin owns
   * it.
   *
   * @throws IOException also when the die ID could name another path ({@code ..}, {@code /})
   */
  public Path chipRegion(String dieId) throws IOException {
    Path region = hostPath(() -> ShimContract.hostRegion(state, dieId));
    Files.createDirectories(region.getParent());
    ChipRegion.prepare(region, dieId);
    return region;
  }

  /**
   * Writes a container's shim config, read-only, and creates its books directory, writable for
   * whichever user the container runs as.
   */
  public ShimFiles writeShimFiles(String key, PodRecord pod, String container, String config)
      throws IOException {
    Path books = hostPath(() -> ShimContract.hostBooksDirectory(state, key, container));
    Path directory = books.getParent();
    Files.createDirectories(directory);
    if (!Files.exists(directory.resolve("pod"))) {
      user(key, pod);
    }
    Path file = directory.resolve(container + ".conf");
    writeAtomically(file, config);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--r--r--"));
    if (!Files.isDirectory(books, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectory(books);
      Files.setPosixFilePermissions(books, PosixFilePermissions.fromString("rwxrwxrwx"));
    }
    return new ShimFiles(file, books);
  }

  private static Path hostPath(Supplier<Path> path) throws IOException {
    try {
      return path.get();
    } catch (IllegalArgumentException e) {
      throw new IOException(e.getMessage(), e);
    }
  }

  /** Records that {@code pod} uses the files of hand-out {@code key}, when there are any. */
  public void user(String key, PodRecord pod) throws IOException {
    Path directory = hostPath(() -> ShimContract.hostFilesDirectory(state, key));
    if (Files.isDirectory(directory, LinkOption.NOFOLLOW_LINKS)) {
      writeAtomically(
          directory.resolve("pod"), pod.namespace() + "\n" + pod.name() + "\n" + pod.uid() + "\n");
    }
  }

  /** The hand-outs that have files here; directories without a readable record are skipped. */
  public List<KeyedFiles> pods() throws IOException {
    List<KeyedFiles> pods = new ArrayList<>();
    try (Stream<Path> directories = Files.list(state.resolve("pods"))) {
      for (Path directory : directories.toList()) {
        user(directory)
            .ifPresent(pod -> pods.add(new KeyedFiles(directory.getFileName().toString(), pod)));
      }
    }
    return pods;
  }

  /** The pod that uses the files of hand-out {@code key}; none when they or its record are gone. */
  public Optional<PodRecord> user(String key) {
    try {
      return user(state.resolve("pods").resolve(key));
    } catch (IOException | IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static Optional<PodRecord> user(Path directory) throws IOException {
    Path record = directory.resolve("pod");
    if (!Files.isRegularFile(record, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.empty();
    }
    List<String> lines = Files.readAllLines(record, StandardCharsets.UTF_8);
    return lines.size() >= 3
        ? Optional.of(new PodRecord(lines.get(2), lines.get(0), lines.get(1)))
        : Optional.empty();
  }

  /** Deletes every file of hand-out {@code key}. */
  public void remove(String key) throws IOException {
    Path directory = state.resolve("pods").resolve(key);
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
