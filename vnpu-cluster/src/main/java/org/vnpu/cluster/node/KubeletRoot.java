package org.vnpu.cluster.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The real node's kubelet root directory: the machine's own {@code /var/lib/kubelet}, as on any
 * node, so that the chart's default host paths (pod resources, DRA plugin registry and sockets) are
 * the ones tested. The kubelet's device-plugin directory is there whatever its root, so one machine
 * holds one such node anyway; and the kubelet's sockets must fit a Unix socket's 107 bytes, which a
 * root below a deep checkout does not (a CI clone's DRA registration socket was 113).
 *
 * <p>A mark file says the directory is the real node's. A directory holding another kubelet's files
 * is refused, never cleared.
 */
final class KubeletRoot {

  private static final Logger LOG = LoggerFactory.getLogger(KubeletRoot.class);

  /** Where every kubelet keeps its state unless told otherwise ({@code --root-dir}). */
  static final Path MACHINE = Path.of("/var/lib/kubelet");

  /** The file that says a vNPU real node made the directory. */
  static final String MARK = "vnpu-real-node";

  /** What a directory may hold and still be free: the plugin sockets of an earlier real node. */
  private static final Set<String> LEFT_BY_PLUGINS = Set.of("device-plugins");

  private final Path path;
  private boolean claimed;

  KubeletRoot(Path path) {
    this.path = path;
  }

  /**
   * Takes the directory for this node: clears what an earlier real node left (its mark there) and
   * marks it.
   *
   * @throws IOException when another kubelet's files are there, naming them
   */
  Path claim() throws IOException {
    if (Files.isDirectory(path)) {
      List<String> entries = entries();
      if (entries.contains(MARK)) {
        LOG.info("clearing {}, left by an earlier real node", path);
        delete();
      } else if (!LEFT_BY_PLUGINS.containsAll(entries)) {
        throw new IOException(
            path
                + " holds another kubelet's files ("
                + String.join(", ", entries)
                + "): the real node's kubelet keeps its state there, as every kubelet does; stop"
                + " that kubelet and move the directory away, or use another machine");
      }
    }
    Files.createDirectories(path);
    Files.writeString(
        path.resolve(MARK), "made by vnpu real-node; deleted with the node, cleared by the next\n");
    claimed = true;
    return path;
  }

  /**
   * Unmounts what the pods left below the directory and deletes it, unless a mount remains. Does
   * nothing unless {@link #claim} took it.
   */
  void release() {
    if (!claimed || !Files.isDirectory(path)) {
      return;
    }
    try {
      delete();
    } catch (IOException | UncheckedIOException e) {
      LOG.warn("{} is kept: {}", path, e.toString());
    }
  }

  private List<String> entries() throws IOException {
    try (var files = Files.list(path)) {
      return files.map(file -> file.getFileName().toString()).sorted().toList();
    }
  }

  private void delete() throws IOException {
    if (!Mounts.unmountBelow(path)) {
      throw new IOException(
          "cannot clear " + path + ": mounts are left below it (see /proc/self/mounts)");
    }
    try (var files = Files.walk(path)) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(file);
      }
    }
  }
}
