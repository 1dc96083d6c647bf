package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
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
import java.time.ZonedDateTime;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.api.LabelKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.core.chip.ChipCatalog;

/**
 * Replicas on one Lease: one leads, writes and carries the leader label on its pod; every replica
 * is ready; a follower refuses writes; a replica that loses the Lease stands again.
 */
@EnableKubernetesMockClient(crud = true)
class LeadershipTest {

  private static final SigningKey KEY = SigningKey.generate();

  private static final String NAMESPACE = "vnpu-system";
  private static final Duration LEASE = Duration.ofSeconds(3);

  KubernetesClient client;

  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void pods() {
    for (String name : new String[] {"first", "second"}) {
      client
          .pods()
          .inNamespace(NAMESPACE)
          .resource(new PodBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
    }
  }

  @Test
  void oneReplicaLeadsAndIsLabelledTheOtherTakesOverWhenItStops() throws Exception {
    SchedulerService first = replica("first");
    await().atMost(Duration.ofSeconds(10)).until(() -> leaderLabel("first") != null);
    SchedulerService second = replica("second");
    try {
      assertThat(status(second, "/readyz")).as("a follower is ready too").isEqualTo(200);
      assertThat(leaderLabel("second")).isNull();
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
      await().atMost(Duration.ofSeconds(15)).until(() -> leaderLabel("second") != null);
      await()
          .alias("the leader that stopped removed its label")
          .atMost(Duration.ofSeconds(5))
          .until(() -> leaderLabel("first") == null);
    } finally {
      second.close();
    }
  }

  @Test
  void aLeaderThatLosesTheLeaseStandsAgainAndLeadsWhenItIsFree() throws Exception {
    Leadership leadership =
        Leadership.elect(client, NAMESPACE, Leadership.DEFAULT_LEASE, "first", "first", LEASE);
    try {
      await().atMost(Duration.ofSeconds(10)).until(leadership::isLeader);

      takeTheLease("intruder");
      await().atMost(Duration.ofSeconds(10)).until(() -> !leadership.isLeader());
      await().atMost(Duration.ofSeconds(5)).until(() -> leaderLabel("first") == null);

      await()
          .atMost(Duration.ofSeconds(20))
          .alias("the intruder does not renew: its Lease expires and first leads again")
          .until(leadership::isLeader);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> LabelKeys.SCHEDULER_LEADER_VALUE.equals(leaderLabel("first")));
    } finally {
      leadership.close();
    }
  }

  private void takeTheLease(String holder) {
    client
        .leases()
        .inNamespace(NAMESPACE)
        .withName(Leadership.DEFAULT_LEASE)
        .edit(
            (Lease lease) -> {
              lease.getSpec().setHolderIdentity(holder);
              lease.getSpec().setAcquireTime(ZonedDateTime.now());
              lease.getSpec().setRenewTime(ZonedDateTime.now());
              lease.getSpec().setLeaseTransitions(lease.getSpec().getLeaseTransitions() + 1);
              return lease;
            });
  }

  private String leaderLabel(String pod) {
    return client
        .pods()
        .inNamespace(NAMESPACE)
        .withName(pod)
        .get()
        .getMetadata()
        .getLabels()
        .get(LabelKeys.SCHEDULER_LEADER);
  }

  private SchedulerService replica(String identity) throws Exception {
    PayloadCodec codec = new PayloadCodec();
    Scheduler scheduler =
        new Scheduler(
            client,
            ChipCatalog.builtIn(),
            new AllocationSigner(KEY, codec),
            AllocationVerifier.of(KEY, codec),
            SchedulerSettings.defaults(),
            Clock.systemUTC());
    return SchedulerService.start(
        Listeners.plain(new InetSocketAddress("127.0.0.1", 0)),
        scheduler,
        client,
        Leadership.elect(client, NAMESPACE, Leadership.DEFAULT_LEASE, identity, identity, LEASE));
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
