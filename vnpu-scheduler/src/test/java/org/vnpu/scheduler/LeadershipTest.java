package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.core.chip.ChipCatalog;

/** Two replicas on one Lease: one leads and writes, the other is not ready and refuses writes. */
@EnableKubernetesMockClient(crud = true)
class LeadershipTest {

  KubernetesClient client;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void oneReplicaLeadsTheOtherTakesOverWhenItStops() throws Exception {
    SchedulerService first = replica("first");
    await().atMost(Duration.ofSeconds(10)).until(() -> status(first, "/readyz") == 200);
    SchedulerService second = replica("second");
    try {
      assertThat(status(second, "/readyz")).isEqualTo(503);
      String bind =
          post(
              second,
              "/kube/bind",
              "{\"PodName\":\"p\",\"PodNamespace\":\"default\",\"PodUID\":\"u\",\"Node\":\"n\"}");
      assertThat(bind)
          .contains("replica second is not the vNPU scheduler's leader (the leader is first)");
      assertThat(
              post(
                  second,
                  "/volcano/deallocateFunc",
                  "{\"task\":{\"Pod\":{\"metadata\":{\"name\":\"p\",\"uid\":\"u\"}}}}"))
          .contains("is not the vNPU scheduler's leader");

      first.close();
      await().atMost(Duration.ofSeconds(15)).until(() -> status(second, "/readyz") == 200);
    } finally {
      second.close();
    }
  }

  private SchedulerService replica(String identity) throws Exception {
    PayloadCodec codec = new PayloadCodec();
    Scheduler scheduler =
        new Scheduler(
            client,
            ChipCatalog.builtIn(),
            new AllocationSigner(new byte[32], codec),
            SchedulerSettings.defaults(),
            Clock.systemUTC());
    return SchedulerService.start(
        new InetSocketAddress("127.0.0.1", 0),
        scheduler,
        client,
        Leadership.elect(client, "vnpu-system", identity, Duration.ofSeconds(3)));
  }

  private int status(SchedulerService service, String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private String post(SchedulerService service, String path, String body) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path))
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
