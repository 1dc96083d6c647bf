package org.vnpu.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.SigningKey;

/**
 * After a rotation the old keys leave the ConfigMap once no running pod's allocation names them;
 * the key signing now always stays.
 */
@EnableKubernetesMockClient(crud = true)
class VerifyingKeyRetirementTest {

  KubernetesClient client;

  private final PayloadCodec codec = new PayloadCodec();
  private final SigningKey running = SigningKey.generate();
  private final SigningKey ended = SigningKey.generate();
  private final SigningKey now = SigningKey.generate();

  @Test
  void keysOfRunningPodsAndTheSigningKeyStayTheOthersAreRetired() {
    client
        .configMaps()
        .inNamespace("vnpu")
        .resource(
            new ConfigMapBuilder()
                .withNewMetadata()
                .withName("vnpu-verifying-keys")
                .withNamespace("vnpu")
                .endMetadata()
                .addToData(running.verifying().id(), running.verifying().encoded())
                .addToData(ended.verifying().id(), ended.verifying().encoded())
                .addToData(now.verifying().id(), now.verifying().encoded())
                .addToData("ed25519-unused", "never signed anything")
                .build())
        .create();
    VerifyingKeyRetirement retirement =
        new VerifyingKeyRetirement(client, "vnpu", "vnpu-verifying-keys", codec);
    List<Pod> pods =
        List.of(
            pod("serving", running, "Running"),
            pod("batch", ended, "Succeeded"),
            new PodBuilder()
                .withNewMetadata()
                .withName("forged")
                .withNamespace("team-a")
                .withAnnotations(Map.of(AnnotationKeys.ALLOCATION, "{not an allocation"))
                .endMetadata()
                .build());

    assertThat(retirement.podsByKey(pods))
        .containsOnlyKeys(running.verifying().id())
        .containsEntry(running.verifying().id(), java.util.Set.of("team-a/serving"));
    assertThat(retirement.retireUnused(pods, now.verifying().id()))
        .containsExactlyInAnyOrder(ended.verifying().id(), "ed25519-unused");
    assertThat(retirement.published())
        .containsExactlyInAnyOrder(running.verifying().id(), now.verifying().id());
  }

  private Pod pod(String name, SigningKey key, String phase) {
    String allocation =
        codec.encodeAllocation(
            new AllocationSigner(key, codec)
                .sign(new PodAllocation("uid-" + name, "n1", List.of(), null), "nonce"));
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("team-a")
        .withAnnotations(Map.of(AnnotationKeys.ALLOCATION, allocation))
        .endMetadata()
        .withNewStatus()
        .withPhase(phase)
        .endStatus()
        .build();
  }
}
