package org.vnpu.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The vNPU source tree a real cluster is built and installed from: its {@code upstream/} Go modules
 * and its Helm chart. Found at or above the working directory, or named by {@code VNPU_SOURCE_DIR}.
 */
public record SourceTree(Path root) {

  /** The tree at or above {@code from}, or at {@code $VNPU_SOURCE_DIR}. */
  public static SourceTree find(Path from) throws IOException {
    String configured = System.getenv("VNPU_SOURCE_DIR");
    if (configured != null && !configured.isBlank()) {
      return checked(Path.of(configured));
    }
    for (Path directory = from.toAbsolutePath();
        directory != null;
        directory = directory.getParent()) {
      if (Files.isRegularFile(directory.resolve(UpstreamBinaries.SCRIPT))) {
        return checked(directory);
      }
    }
    throw new IOException(
        "no vNPU source tree (with "
            + UpstreamBinaries.SCRIPT
            + ") at or above "
            + from.toAbsolutePath()
            + ": run this from the source tree, or set VNPU_SOURCE_DIR to it");
  }

  private static SourceTree checked(Path root) throws IOException {
    if (!Files.isRegularFile(root.resolve(UpstreamBinaries.SCRIPT))
        || !Files.isRegularFile(root.resolve("deploy/helm/vnpu/Chart.yaml"))) {
      throw new IOException(
          root + " is not a vNPU source tree: it lacks upstream/ or deploy/helm/");
    }
    return new SourceTree(root);
  }

  public Path buildScript() {
    return root.resolve(UpstreamBinaries.SCRIPT);
  }

  public Path chart() {
    return root.resolve("deploy/helm/vnpu");
  }
}
