package org.vnpu.cli;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.VerifyingKey;
import org.vnpu.kube.SigningKeys;
import org.vnpu.kube.VerifyingKeyRetirement;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code vnpu keys}: the verifying keys nodes trust, which pods each still signs, and retiring a
 * leaked one now (ADR 0011; docs/security.md, "Rotating the signing key").
 */
@Command(
    name = "keys",
    mixinStandardHelpOptions = true,
    description = {
      "The scheduler's verifying keys: which pods' allocations each signs (list), and taking a"
          + " leaked one out of the ConfigMap nodes verify with, now (retire). The scheduler's"
          + " leader retires old keys by itself once no running pod needs them.",
      VnpuCommand.KUBERNETES_CONNECTION
    },
    subcommands = {KeysCommand.ListKeys.class, KeysCommand.RetireKey.class})
final class KeysCommand implements Runnable {

  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /** Where the keys are: the release namespace and the chart's object names. */
  static final class Location {
    @Option(
        names = "--namespace",
        paramLabel = "NAMESPACE",
        required = true,
        description = "The vNPU release's namespace, where the keys live.")
    String namespace;

    @Option(
        names = "--verifying-keys",
        paramLabel = "CONFIGMAP",
        defaultValue = "vnpu-verifying-keys",
        description = "The ConfigMap of public keys (default: ${DEFAULT-VALUE}).")
    String verifyingKeys;

    @Option(
        names = "--signing-secret",
        paramLabel = "SECRET",
        defaultValue = "vnpu-signing",
        description = "The Secret of the scheduler's private key (default: ${DEFAULT-VALUE}).")
    String signingSecret;

    /** The ID of the key the scheduler signs with now, or null when the Secret holds none. */
    String signingKeyId(KubernetesClient client) {
      Secret secret = client.secrets().inNamespace(namespace).withName(signingSecret).get();
      Map<String, String> data = secret == null ? null : secret.getData();
      if (data == null || !data.containsKey(SigningKeys.PUBLIC_KEY)) {
        return null;
      }
      String encoded = new String(Base64.getDecoder().decode(data.get(SigningKeys.PUBLIC_KEY)));
      return VerifyingKey.decode(encoded).id();
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "Print each verifying key, whether it signs now, and the pods it still signs.")
  static final class ListKeys implements Callable<Integer> {
    @Mixin Location location;
    @Mixin ConnectionOptions connection;
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      try (KubernetesClient client = connection.client()) {
        VerifyingKeyRetirement keys = retirement(client, location);
        String signing = location.signingKeyId(client);
        Map<String, Set<String>> pods = keys.podsByKey(pods(client));
        PrintWriter out = spec.commandLine().getOut();
        for (String id : keys.published()) {
          Set<String> signed = pods.getOrDefault(id, Set.of());
          out.printf(
              "%s%s: %d running pod(s)%s%n",
              id,
              id.equals(signing) ? " (signing now)" : "",
              signed.size(),
              signed.isEmpty() ? "" : ": " + String.join(", ", signed));
        }
        out.flush();
      }
      return 0;
    }
  }

  @Command(
      name = "retire",
      mixinStandardHelpOptions = true,
      description = {
        "Take KEY_ID out of the ConfigMap nodes verify with, now: every allocation it signed is"
            + " refused from the next hand-out on. The key the scheduler signs with cannot be"
            + " retired: rotate it first (delete the signing Secret and restart the schedulers),"
            + " then retire the leaked key. Pods still signed with it are named; they keep running,"
            + " but a container they start again is refused until they are scheduled anew."
      })
  static final class RetireKey implements Callable<Integer> {
    @Parameters(paramLabel = "KEY_ID", description = "The key to retire (vnpu keys list).")
    String keyId;

    @Mixin Location location;
    @Mixin ConnectionOptions connection;
    @Spec CommandSpec spec;

    @Override
    public Integer call() {
      try (KubernetesClient client = connection.client()) {
        VerifyingKeyRetirement keys = retirement(client, location);
        if (keyId.equals(location.signingKeyId(client))) {
          throw new InputException(
              "key "
                  + keyId
                  + " is the one the scheduler signs with now: rotate it first (kubectl -n "
                  + location.namespace
                  + " delete secret "
                  + location.signingSecret
                  + ", then restart the schedulers), then retire it");
        }
        if (!keys.published().contains(keyId)) {
          throw new InputException(
              "key "
                  + keyId
                  + " is not in ConfigMap "
                  + location.namespace
                  + "/"
                  + location.verifyingKeys
                  + " (it holds "
                  + String.join(", ", keys.published())
                  + ")");
        }
        Set<String> signed = keys.podsByKey(pods(client)).getOrDefault(keyId, Set.of());
        keys.remove(Set.of(keyId));
        PrintWriter out = spec.commandLine().getOut();
        out.printf("retired key %s%n", keyId);
        if (!signed.isEmpty()) {
          out.printf(
              "%d running pod(s) still carry allocations it signed; their next hand-out is"
                  + " refused: %s%n",
              signed.size(), String.join(", ", signed));
        }
        out.flush();
      }
      return 0;
    }
  }

  private static VerifyingKeyRetirement retirement(KubernetesClient client, Location location) {
    return new VerifyingKeyRetirement(
        client, location.namespace, location.verifyingKeys, new PayloadCodec());
  }

  private static List<Pod> pods(KubernetesClient client) {
    return new ArrayList<>(client.pods().inAnyNamespace().list().getItems());
  }
}
