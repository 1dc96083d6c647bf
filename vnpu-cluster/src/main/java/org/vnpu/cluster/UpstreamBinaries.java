package org.vnpu.cluster;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The upstream binaries {@code upstream/build.sh} builds from the Go module proxy (or finds in its
 * cache): etcd, kube-apiserver, kube-controller-manager, kube-scheduler, the kubelet, kube-proxy,
 * Volcano's scheduler and controller manager and Volcano's CRDs; for a real node, containerd with
 * its runc shim and ctr, runc, the CNI plugins and the pause program.
 *
 * @param directory the build's cache directory, the last line {@code build.sh} prints
 */
public record UpstreamBinaries(Path directory) {

  /** The build script, below the vNPU source tree this runs in. */
  static final String SCRIPT = "upstream/build.sh";

  /**
   * Runs {@code upstream/build.sh} of the source tree at or above {@code from} (its progress goes
   * to this process's standard error) and returns what it built or found cached.
   *
   * @throws IOException when there is no source tree, no Go, or the build fails; the message says
   *     which
   */
  public static UpstreamBinaries build(SourceTree tree) throws IOException, InterruptedException {
    Path script = tree.buildScript();
    ProcessBuilder builder = new ProcessBuilder("bash", script.toString());
    builder.redirectError(ProcessBuilder.Redirect.INHERIT);
    Process process = builder.start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = process.waitFor();
    List<String> lines = output.lines().toList();
    if (exit != 0 || lines.isEmpty()) {
      throw new IOException(
          script
              + " failed (exit "
              + exit
              + "); its messages above say why (without Go or the Go module proxy it cannot build"
              + " the real control plane)");
    }
    UpstreamBinaries binaries = new UpstreamBinaries(Path.of(lines.get(lines.size() - 1)));
    for (String name : List.of("etcd", "kube-apiserver", "vc-scheduler")) {
      if (!Files.isExecutable(binaries.binary(name))) {
        throw new IOException(script + " printed " + binaries.directory() + " without " + name);
      }
    }
    return binaries;
  }

  public Path binary(String name) {
    return directory.resolve("bin").resolve(name);
  }

  /** The CNI plugins a node's pod network uses (bridge, host-local, loopback, portmap). */
  public Path cniPlugins() {
    return directory.resolve("cni/bin");
  }

  /** Volcano's CRDs, from the Volcano module the binaries were built from. */
  public List<Path> volcanoCrds() throws IOException {
    try (var files = Files.list(directory.resolve("volcano-crds"))) {
      return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
    }
  }

  /** What the build says it holds, e.g. {@code Kubernetes v1.34.1, Volcano v1.14.1, ...}. */
  public String versions() throws IOException {
    return Files.readString(directory.resolve("complete")).strip();
  }
}
