package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.kube.SigningKeys;
import org.vnpu.sandbox.ApiServer;

/**
 * {@code vnpu keys}: after a leak an administrator sees which pods each key still signs and takes
 * the leaked key out now; the key the scheduler signs with is refused until it is rotated.
 */
class KeysCommandTest {

  @TempDir Path directory;

  private ApiServer server;
  private String kubeconfig;
  private SigningKey leaked;
  private SigningKey signing;

  @BeforeEach
  void rotatedAfterALeak() throws Exception {
    server = ApiServer.start(0);
    kubeconfig = server.writeKubeconfig(directory.resolve("kubeconfig")).toString();
    KubernetesClient client = server.client();
    leaked = SigningKeys.bootstrap(client, "vnpu", "vnpu-signing", "vnpu-verifying-keys");
    PayloadCodec codec = new PayloadCodec();
    String allocation =
        codec.encodeAllocation(
            new AllocationSigner(leaked, codec)
                .sign(new PodAllocation("uid-bert", "n1", List.of(), null), "nonce"));
    client
        .pods()
        .inNamespace("team-a")
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("bert")
                .withNamespace("team-a")
                .withAnnotations(Map.of(AnnotationKeys.ALLOCATION, allocation))
                .endMetadata()
                .build())
        .create();
    client.secrets().inNamespace("vnpu").withName("vnpu-signing").delete();
    signing = SigningKeys.bootstrap(client, "vnpu", "vnpu-signing", "vnpu-verifying-keys");
  }

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void listNamesThePodsEachKeyStillSignsAndRetireTakesTheLeakedKeyOutNow() {
    Run list = Run.of("keys", "list", "--namespace", "vnpu", "--kubeconfig", kubeconfig);
    assertThat(list.exitCode()).as(list.err()).isZero();
    assertThat(list.out())
        .contains(leaked.verifying().id() + ": 1 running pod(s): team-a/bert")
        .contains(signing.verifying().id() + " (signing now): 0 running pod(s)");

    Run retire =
        Run.of(
            "keys",
            "retire",
            leaked.verifying().id(),
            "--namespace",
            "vnpu",
            "--kubeconfig",
            kubeconfig);
    assertThat(retire.exitCode()).as(retire.err()).isZero();
    assertThat(retire.out())
        .contains("retired key " + leaked.verifying().id())
        .contains("1 running pod(s) still carry allocations it signed")
        .contains("team-a/bert");
    assertThat(
            server
                .client()
                .configMaps()
                .inNamespace("vnpu")
                .withName("vnpu-verifying-keys")
                .get()
                .getData())
        .containsOnlyKeys(signing.verifying().id());
  }

  @Test
  void theSigningKeyAndAKeyNotPublishedAreRefusedWithWhatToDo() {
    Run current =
        Run.of(
            "keys",
            "retire",
            signing.verifying().id(),
            "--namespace",
            "vnpu",
            "--kubeconfig",
            kubeconfig);
    assertThat(current.exitCode()).isNotZero();
    assertThat(current.err())
        .contains("is the one the scheduler signs with now")
        .contains("delete secret vnpu-signing");

    Run unknown =
        Run.of("keys", "retire", "ed25519-nope", "--namespace", "vnpu", "--kubeconfig", kubeconfig);
    assertThat(unknown.exitCode()).isNotZero();
    assertThat(unknown.err()).contains("is not in ConfigMap vnpu/vnpu-verifying-keys");
  }
}
