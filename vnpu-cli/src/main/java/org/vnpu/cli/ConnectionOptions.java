package org.vnpu.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The connection to the API server, as kubectl takes it. */
final class ConnectionOptions {

  @Option(
      names = "--kubeconfig",
      paramLabel = "FILE",
      description =
          "Kubeconfig file (default: fabric8's, as kubectl's: in a pod its service account,"
              + " elsewhere $KUBECONFIG or ~/.kube/config).")
  Path kubeconfig;

  @Option(
      names = "--context",
      paramLabel = "NAME",
      description = "Kubeconfig context (default: the file's current context).")
  String context;

  /** A client of the cluster these options name. */
  KubernetesClient client() {
    if (kubeconfig != null && !Files.isReadable(kubeconfig)) {
      throw new InputException("--kubeconfig " + kubeconfig + ": no readable file there");
    }
    Config config =
        kubeconfig == null
            ? Config.autoConfigure(context)
            : Config.fromKubeconfig(context, kubeconfig.toFile());
    return new KubernetesClientBuilder().withConfig(config).build();
  }
}
