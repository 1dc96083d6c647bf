package org.vnpu.sandbox;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kubelet.UnixSockets;

/**
 * Where a cluster's node directories go, each holding the node's Unix sockets (the kubelet's and
 * the plugins', containerd's). A socket's path holds at most 107 bytes ({@link UnixSockets}), so
 * below a deep checkout they cannot be {@code DIR/nodes}: they go to a directory of their own under
 * the system's temporary directory instead, which {@code DIR/nodes} links to. Every caller gets the
 * same answer for the same {@code DIR}, the real path, which is what the mount table shows.
 */
public final class NodesDirectory {

  private static final Logger LOG = LoggerFactory.getLogger(NodesDirectory.class);

  /**
   * The room a node's sockets need below the nodes' directory: a node name of up to 16 bytes and
   * the longest socket path within a node's directory, {@code
   * plugins_registry/vnpu.huawei.com-reg.sock} (40), with their separators.
   */
  static final int SOCKET_ROOM = 58;

  private static final String PREFIX = "vnpu-nodes-";

  private NodesDirectory() {}

  /**
   * The directory of the nodes of the cluster in {@code directory}: {@code directory/nodes}, or
   * where that link leads.
   *
   * @throws IOException when neither fits the sockets, or {@code directory/nodes} is a directory
   *     too deep for them
   */
  public static Path of(Path directory) throws IOException {
    Path nodes = directory.toAbsolutePath().resolve("nodes");
    Optional<Path> linked = linked(nodes);
    if (linked.isPresent()) {
      return linked.get();
    }
    if (Files.isSymbolicLink(nodes)) {
      Files.delete(nodes); // the temporary directory went (a reboot): made again below
    }
    if (fits(nodes)) {
      Files.createDirectories(nodes);
      return nodes;
    }
    if (Files.exists(nodes)) {
      throw new IOException(
          nodes
              + " is an earlier run's, too deep for the nodes' sockets (a Unix socket's path holds"
              + " at most "
              + UnixSockets.MAX_PATH_BYTES
              + " bytes): remove it, and it becomes a link to a shorter directory");
    }
    Files.createDirectories(directory);
    Path shorter = Files.createTempDirectory(PREFIX).toRealPath();
    if (!fits(shorter)) {
      throw new IOException(
          "the nodes' sockets do not fit a Unix socket's path below "
              + nodes
              + " nor below "
              + shorter
              + ": set TMPDIR to a shorter directory");
    }
    Files.createSymbolicLink(nodes, shorter);
    LOG.info(
        "the nodes' directories are in {} ({} links there): below {} their sockets' paths would"
            + " pass a Unix socket's {} bytes",
        shorter,
        nodes,
        directory,
        UnixSockets.MAX_PATH_BYTES);
    return shorter;
  }

  /**
   * Deletes the directory {@code directory/nodes} links to, if it links to one of ours: before the
   * cluster directory is removed, whose removal would leave it behind under the temporary
   * directory.
   */
  public static void deleteLinked(Path directory) throws IOException {
    Optional<Path> linked = linked(directory.toAbsolutePath().resolve("nodes"));
    if (linked.isEmpty()) {
      return;
    }
    try (Stream<Path> files = Files.walk(linked.get())) {
      for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(file);
      }
    }
  }

  /** The existing directory of ours that {@code nodes} is a link to, if it is one. */
  private static Optional<Path> linked(Path nodes) throws IOException {
    if (!Files.isSymbolicLink(nodes)) {
      return Optional.empty();
    }
    Path target = nodes.resolveSibling(Files.readSymbolicLink(nodes));
    return Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)
            && target.getFileName().toString().startsWith(PREFIX)
        ? Optional.of(target)
        : Optional.empty();
  }

  private static boolean fits(Path nodes) {
    return nodes.toString().length() + SOCKET_ROOM <= UnixSockets.MAX_PATH_BYTES;
  }
}
