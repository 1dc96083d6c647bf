package org.vnpu.exporter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.SigningKey;

/** The exporter over HTTP, with its pod informer against fabric8's CRUD mock API server. */
@EnableKubernetesMockClient(crud = true)
class ExporterTest {

  private static final SigningKey KEY = SigningKey.generate();

  KubernetesClient client;

  @TempDir Path directory;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void seriesFollowThePodsOfTheNodeAndBothFormatsAndHealthAreServed() throws Exception {
    String node = "e2e";
    var driver = ExporterFixtures.node(client, directory, node, 1, 4);
    try (Exporter exporter =
        Exporter.start(
            new ExporterSettings(
                node,
                new InetSocketAddress("127.0.0.1", 0),
                directory.resolve("state"),
                Duration.ofMillis(100),
                false),
            driver,
            AllocationVerifier.of(KEY, new PayloadCodec()),
            client)) {
      assertThat(get(exporter, "/healthz", "*/*").body()).isEqualTo("ok\n");
      assertThat(get(exporter, "/metrics", "*/*").body()).doesNotContain("pod=\"bert\"");

      create("bert", node, KEY);
      create("elsewhere", "another-node", KEY);
      create("forged", node, SigningKey.generate());
      // a status without a phase, as one written field by field (a claim controller's)
      create(
          "no-phase",
          node,
          KEY,
          new PodStatusBuilder().addNewResourceClaimStatus("npu", "no-phase-npu").build());
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () ->
                  get(exporter, "/metrics", "*/*").body().contains("pod=\"bert\"")
                      && get(exporter, "/metrics", "*/*").body().contains("pod=\"no-phase\""));
      String metrics = get(exporter, "/metrics", "*/*").body();
      assertThat(metrics)
          .contains("vnpu_container_memory_used_bytes{")
          .doesNotContain("pod=\"elsewhere\"")
          .as("an allocation signed with another key adds no series")
          .doesNotContain("pod=\"forged\"");
      HttpResponse<String> open =
          get(exporter, "/metrics", "application/openmetrics-text; version=1.0.0");
      assertThat(open.headers().firstValue("Content-Type").orElse(""))
          .startsWith("application/openmetrics-text");
      assertThat(open.body()).endsWith("# EOF\n");

      client.pods().inNamespace("default").withName("bert").delete();
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> !get(exporter, "/metrics", "*/*").body().contains("pod=\"bert\""));
    }
  }

  private void create(String name, String node, SigningKey key) {
    create(name, node, key, null);
  }

  private void create(String name, String node, SigningKey key, PodStatus status) {
    var pod =
        client
            .pods()
            .resource(
                new PodBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace("default")
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName(node)
                    .addNewContainer()
                    .withName("main")
                    .withImage("model:1")
                    .endContainer()
                    .endSpec()
                    .withStatus(status)
                    .build())
            .create();
    String uid = pod.getMetadata().getUid();
    PayloadCodec codec = new PayloadCodec();
    AllocationSigner signer = new AllocationSigner(key, codec);
    PodAllocation allocation =
        new PodAllocation(
            uid,
            node,
            List.of(
                new ContainerAllocation(
                    "main",
                    false,
                    List.of(ExporterFixtures.soft(0, ExporterFixtures.die(node, 0), 20, 2048)))));
    client
        .pods()
        .inNamespace("default")
        .withName(name)
        .edit(
            p -> {
              p.getMetadata()
                  .setAnnotations(
                      Map.of(
                          AnnotationKeys.ALLOCATION,
                          codec.encodeAllocation(signer.sign(allocation, "nonce"))));
              return p;
            });
  }

  private HttpResponse<String> get(Exporter exporter, String path, String accept)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + exporter.port() + path))
            .header("Accept", accept)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
