package org.vnpu.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.testkit.MutableClock;

/**
 * The signing key is made once, by whichever scheduler starts first, and outlives every render of
 * the chart; a rotated key joins the public keys beside the old one, and nodes find it without a
 * restart.
 */
@EnableKubernetesMockClient(crud = true)
class SigningKeysTest {

  KubernetesClient client;

  @TempDir Path directory;

  private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));

  private SigningKey bootstrap() {
    return SigningKeys.bootstrap(client, "vnpu", "vnpu-signing", "vnpu-verifying-keys");
  }

  @Test
  void theFirstSchedulerMakesTheKeyAndEveryLaterOneReadsIt() {
    SigningKey first = bootstrap();
    SigningKey again = bootstrap();

    assertThat(again.verifying().id()).isEqualTo(first.verifying().id());
    assertThat(
            client.configMaps().inNamespace("vnpu").withName("vnpu-verifying-keys").get().getData())
        .containsOnlyKeys(first.verifying().id());
    assertThat(
            VerifyingKeys.inConfigMap(client, "vnpu", "vnpu-verifying-keys", clock)
                .find(first.verifying().id()))
        .contains(first.verifying());
  }

  @Test
  void aRotatedKeyJoinsTheOldOneAndNodesFindItWithoutARestart() throws Exception {
    SigningKey old = bootstrap();
    Path mounted = Files.createDirectories(directory.resolve("verifying"));
    Files.writeString(mounted.resolve(old.verifying().id()), old.verifying().encoded());
    Files.writeString(mounted.resolve("..data"), "the kubelet's link, not a key");
    VerifyingKeys node = VerifyingKeys.inDirectory(mounted, clock);
    assertThat(node.find(old.verifying().id())).contains(old.verifying());

    client.secrets().inNamespace("vnpu").withName("vnpu-signing").delete();
    SigningKey rotated = bootstrap();
    assertThat(rotated.verifying().id()).isNotEqualTo(old.verifying().id());
    assertThat(
            client.configMaps().inNamespace("vnpu").withName("vnpu-verifying-keys").get().getData())
        .containsOnlyKeys(old.verifying().id(), rotated.verifying().id());

    // The kubelet syncs the ConfigMap's new entry into the volume.
    Files.writeString(mounted.resolve(rotated.verifying().id()), rotated.verifying().encoded());
    assertThat(node.find(rotated.verifying().id()))
        .as("read again only once the last read is %s old", VerifyingKeys.RELOAD)
        .isEmpty();
    clock.advance(VerifyingKeys.RELOAD);
    assertThat(node.find(rotated.verifying().id())).contains(rotated.verifying());
    assertThat(node.find(old.verifying().id())).contains(old.verifying());
  }

  @Test
  void aKeyFileNamedForAnotherKeyIsIgnored() throws Exception {
    SigningKey key = SigningKey.generate();
    Files.writeString(directory.resolve("ed25519-0000000000000000"), key.verifying().encoded());
    assertThat(VerifyingKeys.inDirectory(directory, clock).find("ed25519-0000000000000000"))
        .isEmpty();
  }

  @Test
  void aSecretWithoutAKeySaysSoAndHowToMend() {
    client
        .secrets()
        .inNamespace("vnpu")
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("vnpu-signing")
                .endMetadata()
                .addToData("key", "c2VjcmV0")
                .build())
        .create();

    assertThatThrownBy(this::bootstrap)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Secret vnpu/vnpu-signing does not hold an Ed25519 key")
        .hasMessageContaining("delete it and a new key is made");
  }
}
