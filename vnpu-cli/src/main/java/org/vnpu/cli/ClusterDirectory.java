package org.vnpu.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.vnpu.sandbox.NodesDirectory;

/** A real cluster's directory, which a run starts empty. */
final class ClusterDirectory {

  private ClusterDirectory() {}

  /**
   * Removes a previous run's cluster directory, with the nodes' directory it links to ({@link
   * NodesDirectory}), unless its processes still run.
   */
  static void fresh(Path cluster) throws IOException {
    Path pids = cluster.resolve("pids");
    if (Files.isDirectory(pids)) {
      try (Stream<Path> running = Files.list(pids)) {
        if (running.findAny().isPresent()) {
          throw new InputException(
              cluster
                  + " holds a running cluster's PIDs: stop it first (vnpu cluster down --dir "
                  + cluster
                  + ")");
        }
      }
    }
    if (Files.exists(cluster)) {
      NodesDirectory.deleteLinked(cluster);
      try (Stream<Path> files = Files.walk(cluster)) {
        for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(file);
        }
      }
    }
  }
}
