package org.vnpu.cluster.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The mounts a node's pods and volumes leave below a directory of this host. */
final class Mounts {

  private static final Logger LOG = LoggerFactory.getLogger(Mounts.class);

  private Mounts() {}

  /** The mount points below {@code directory}, the deepest first. */
  static List<String> below(Path directory) throws IOException {
    String prefix = directory.toAbsolutePath() + "/";
    return Files.readAllLines(Path.of("/proc/self/mounts")).stream()
        .map(line -> line.split(" ")[1].replace("\\040", " "))
        .filter(point -> (point + "/").startsWith(prefix))
        .sorted(Comparator.reverseOrder())
        .toList();
  }

  /**
   * Lazily unmounts every mount below {@code directory}, the deepest first.
   *
   * @return whether none is left
   */
  static boolean unmountBelow(Path directory) {
    try {
      for (String point : below(directory)) {
        if (HostCommands.attempt(List.of("umount", "-l", point)).exit() != 0) {
          LOG.warn("cannot unmount {} left below {}", point, directory);
        }
      }
      return below(directory).isEmpty();
    } catch (IOException e) {
      LOG.warn("cannot list the mounts below {}: {}", directory, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }
}
