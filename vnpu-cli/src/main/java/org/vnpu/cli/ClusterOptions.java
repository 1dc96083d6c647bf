package org.vnpu.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.kube.VerifyingKeys;
import org.vnpu.scheduler.SchedulerReader;
import org.vnpu.scheduler.SchedulerSettings;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options of commands that read the cluster as the scheduler reads it: the connection, as
 * kubectl takes it, and the scheduler's verifying keys.
 */
final class ClusterOptions {

  @Mixin ConnectionOptions connection;

  @Option(
      names = "--keys-namespace",
      paramLabel = "NAMESPACE",
      defaultValue = "${env:POD_NAMESPACE:-vnpu-system}",
      description =
          "Namespace of the scheduler's verifying-keys ConfigMap; allocations whose signature"
              + " does not verify are not charged, as in the scheduler (default: ${DEFAULT-VALUE}).")
  String keysNamespace;

  @Option(
      names = "--verifying-keys",
      paramLabel = "NAME",
      defaultValue = "vnpu-verifying-keys",
      description = "The verifying keys' ConfigMap (default: ${DEFAULT-VALUE}).")
  String verifyingKeys;

  /** A client of the cluster these options name. */
  KubernetesClient client() {
    return connection.client();
  }

  /**
   * The scheduler's state rebuilt from the cluster as the scheduler rebuilds it, allocations
   * verified with the scheduler's public keys; it holds no signing key.
   */
  SchedulerReader reader(KubernetesClient client, ChipCatalog catalog) {
    SchedulerReader reader =
        new SchedulerReader(
            client, catalog, verifier(client), SchedulerSettings.defaults(), Clock.systemUTC());
    reader.rebuild();
    return reader;
  }

  private AllocationVerifier verifier(KubernetesClient client) {
    return new AllocationVerifier(
        VerifyingKeys.inConfigMap(client, keysNamespace, verifyingKeys, Clock.systemUTC()),
        new PayloadCodec());
  }
}
