package org.vnpu.cli;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.vnpu.kube.KubeClients;
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
    try {
      return kubeconfig == null
          ? KubeClients.build(Config.autoConfigure(context))
          : KubeClients.fromKubeconfig(kubeconfig, context);
    } catch (KubernetesClientException e) {
      // A key or certificate the client cannot read: say which file, not a stack trace.
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new InputException(
          (kubeconfig == null ? "the kubeconfig" : "--kubeconfig " + kubeconfig)
              + (context == null ? "" : " --context " + context)
              + ": no client can be made from it: "
              + cause.getMessage());
    }
  }
}
