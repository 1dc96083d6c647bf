package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.HandshakeState;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.NodeHandshake;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.request.PodManifest;
import org.vnpu.testkit.GoldenFile;

/**
 * Both protocols' payloads as the schedulers send them (built from the documented shapes:
 * PascalCase Go field names, Volcano's milli-unit scalars, a full v1.Pod inside) and our answers,
 * as golden files: `*-request.json` are inputs, `*-response.json` the expected answers.
 */
@EnableKubernetesMockClient(crud = true)
class ProtocolGoldenTest {

  private static final SigningKey KEY = SigningKey.generate();

  private static final ObjectMapper JSON = new ObjectMapper();

  /** The 60 % offline pod on chip 0 of the preemption scene ({@link #preemptionScene}). */
  private static final String BIG_OFFLINE = "7d3e0a11-0000-4000-8000-000000000002";

  /** The preemptor's UID in the golden preemption requests. */
  private static final String PREEMPTOR = "7d3e0a11-0000-4000-8000-000000000001";

  KubernetesClient client;

  @Test
  void answersMatchTheGoldenFiles() throws Exception {
    answer(
        scheduler(),
        List.of("kube-filter", "kube-prioritize", "volcano-predicate", "volcano-prioritize"),
        body -> body);
  }

  /**
   * Preemption on golden-node: chip 0 runs two offline pods (60 % and 30 %), chip 1 an online one
   * (90 %); an online pod of 50 % may evict the 60 % pod alone, and the pod without vNPUs is not
   * the extender's to keep. kube-scheduler's candidate node without a vNPU inventory is dropped.
   */
  @Test
  void preemptionAnswersMatchTheGoldenFiles() throws Exception {
    Scheduler scheduler = scheduler();
    preemptionScene(scheduler);
    String uid = storePreemptor(Map.of());
    answer(
        scheduler,
        List.of("volcano-preemptable", "volcano-reclaimable", "kube-preempt"),
        body -> body.replace(PREEMPTOR, uid));
  }

  /**
   * The preemptor as the API server stores it: what the extender reads its request and priority
   * from (the requests' copies are the callers' word). Returns the UID the API server gave it,
   * which the requests then carry in place of the golden files' {@link #PREEMPTOR}.
   */
  private String storePreemptor(Map<String, String> annotations) throws Exception {
    JsonNode sent = JSON.readTree(GoldenFile.read("kube-preempt-request.json")).path("Pod");
    Pod pod = JSON.treeToValue(sent, Pod.class);
    pod.getMetadata().setAnnotations(new HashMap<>(annotations));
    return client.pods().inNamespace("serving").resource(pod).create().getMetadata().getUid();
  }

  /**
   * Volcano's preempt action evicts victims in its session one at a time and asks the predicate
   * again after each ({@code actions/preempt/preempt.go normalPreempt} → {@code
   * preemptorFitsOnNode}, since Volcano's commit 5a15213); it commits the evictions only once the
   * predicate passes. The evicted tasks stay in the request's {@code NodeInfo.Tasks} with status
   * {@code Releasing} ({@code api/types.go}: 1 << 6), so the predicate judges the node without
   * them; judged with them, no preemption would ever commit. A task it has not released, or one the
   * ledger does not know, changes nothing; one it calls releasing that is not gone gets the pod no
   * reservation; one without a UID is refused.
   */
  @Test
  void volcanosPredicateJudgesTheNodeWithoutTheTasksItsSessionReleases() throws Exception {
    Scheduler scheduler = scheduler();
    preemptionScene(scheduler);
    String uid = storePreemptor(Map.of());
    ObjectNode request =
        (ObjectNode) JSON.readTree(GoldenFile.read("volcano-predicate-request.json"));
    request.set(
        "task",
        JSON.readTree(GoldenFile.read("volcano-preemptable-request.json").replace(PREEMPTOR, uid))
            .path("evictor"));
    ObjectNode tasks = ((ObjectNode) request.path("node")).putObject("Tasks");
    try (SchedulerService service = serve(scheduler)) {
      tasks.putObject(BIG_OFFLINE).put("UID", BIG_OFFLINE).put("Status", 32); // Running
      tasks.putObject("elsewhere").put("UID", "not-a-known-pod").put("Status", 64);
      JsonNode running =
          JSON.readTree(post(service, "volcano-predicate", request.toString()).body());
      assertThat(running.path("code").asInt()).isEqualTo(2);
      assertThat(running.path("status").asText()).contains("largest free 10%");

      ((ObjectNode) tasks.path(BIG_OFFLINE)).put("Status", 64); // Releasing: evicted in the session
      JsonNode releasing =
          JSON.readTree(post(service, "volcano-predicate", request.toString()).body());
      assertThat(releasing.path("code").asInt()).isZero();
      assertThat(scheduler.placements())
          .containsKey(BIG_OFFLINE); // judged without it, still charged

      // The request is anyone's word: a pod it calls releasing that is not gone gives a "fits"
      // and nothing more. The reservation is judged on the ledger.
      PodManifest preemptor =
          Fabric8Views.manifest(client.pods().inNamespace("serving").withName("online-0").get());
      assertThatThrownBy(() -> scheduler.reserve(preemptor, "golden-node").join())
          .isInstanceOf(SchedulingException.class)
          .hasMessageContaining("largest free 10%");
      assertThat(scheduler.placements()).doesNotContainKey(uid);

      tasks.putObject("no-uid").put("Status", 64);
      HttpResponse<String> malformed = post(service, "volcano-predicate", request.toString());
      assertThat(malformed.statusCode()).isEqualTo(400);
      assertThat(malformed.body()).contains("missing UID");
    }
  }

  /**
   * Hostile preemption requests: an evictor the API server does not have, one whose stored pod is
   * offline although the request's copy says online, and bodies that lack what the verbs read. None
   * of them chooses a victim or holds a place.
   */
  @Test
  void preemptionReadsThePodFromTheApiServerAndRefusesMalformedRequests() throws Exception {
    Scheduler scheduler = scheduler();
    preemptionScene(scheduler);
    String volcano = GoldenFile.read("volcano-preemptable-request.json");
    String kube = GoldenFile.read("kube-preempt-request.json");
    try (SchedulerService service = serve(scheduler)) {
      assertThat(JSON.readTree(post(service, "volcano-preemptable", volcano).body()))
          .as("an evictor the API server does not have")
          .isEqualTo(JSON.readTree("{\"status\":-1,\"victims\":[]}"));
      String uid = storePreemptor(Map.of(AnnotationKeys.PRIORITY, "offline"));
      volcano = volcano.replace(PREEMPTOR, uid);
      kube = kube.replace(PREEMPTOR, uid);
      assertThat(JSON.readTree(post(service, "volcano-preemptable", volcano).body()))
          .as("the stored pod is offline, whatever the request's copy says")
          .isEqualTo(JSON.readTree("{\"status\":-1,\"victims\":[]}"));
      assertThat(JSON.readTree(post(service, "kube-preempt", kube).body()))
          .isEqualTo(JSON.readTree("{\"NodeNameToMetaVictims\":{}}"));
      assertThat(scheduler.preemptionCandidates()).doesNotContainKey("evicted");

      HttpResponse<String> noEvictor = post(service, "volcano-preemptable", "{\"evictees\":[]}");
      assertThat(noEvictor.statusCode()).isEqualTo(400);
      assertThat(noEvictor.body()).contains("missing evictor.Pod");
      ObjectNode nodeless = (ObjectNode) JSON.readTree(volcano);
      ObjectNode evictee = (ObjectNode) nodeless.path("evictees").get(0);
      evictee.remove("NodeName");
      ((ObjectNode) evictee.path("Pod").path("spec")).remove("nodeName");
      HttpResponse<String> noNode = post(service, "volcano-preemptable", nodeless.toString());
      assertThat(noNode.statusCode()).isEqualTo(400);
      assertThat(noNode.body()).contains("an evictee has neither NodeName nor Pod.spec.nodeName");
      HttpResponse<String> noVictims =
          post(
              service,
              "kube-preempt",
              JSON.createObjectNode().set("Pod", JSON.readTree(kube).path("Pod")).toString());
      assertThat(noVictims.statusCode()).isEqualTo(400);
      assertThat(noVictims.body())
          .contains("neither NodeNameToMetaVictims nor NodeNameToVictims is given");
    }
  }

  /**
   * golden-node's preemption scene: chip 0 runs two offline pods (60 % and 30 %), chip 1 an online
   * one (90 %).
   */
  private void preemptionScene(Scheduler scheduler) {
    running(scheduler, BIG_OFFLINE, "batch", "batch-big-0", 0, 60, true);
    running(
        scheduler, "7d3e0a11-0000-4000-8000-000000000003", "batch", "batch-small-0", 0, 30, true);
    running(
        scheduler, "7d3e0a11-0000-4000-8000-000000000004", "serving", "serving-c-0", 1, 90, false);
  }

  /** The extender's verbs over plain HTTP on a free local port, this node alone the leader. */
  private SchedulerService serve(Scheduler scheduler) throws Exception {
    return SchedulerService.start(
        Listeners.plain(new InetSocketAddress("127.0.0.1", 0)),
        scheduler,
        client,
        Leadership.alone());
  }

  /** A pod running on golden-node with a signed share of chip {@code chip}. */
  private void running(
      Scheduler scheduler,
      String uid,
      String namespace,
      String name,
      int chip,
      int cores,
      boolean offline) {
    PodAllocation allocation =
        ClusterFixture.share(
            uid,
            "golden-node",
            chip,
            "GOLDEN-DIE-" + chip,
            8192,
            cores,
            offline ? new OfflineWork(1) : null);
    PayloadCodec codec = new PayloadCodec();
    scheduler.podChanged(
        new PodBuilder()
            .withNewMetadata()
            .withUid(uid)
            .withNamespace(namespace)
            .withName(name)
            .addToAnnotations(
                AnnotationKeys.ALLOCATION,
                codec.encodeAllocation(
                    new AllocationSigner(KEY, codec).sign(allocation, AllocationSigner.nonce())))
            .endMetadata()
            .withNewSpec()
            .withNodeName("golden-node")
            .withPriority(offline ? -100 : 500)
            .endSpec()
            .build());
  }

  private Scheduler scheduler() {
    PayloadCodec codec = new PayloadCodec();
    Scheduler scheduler =
        new Scheduler(
            client,
            ChipCatalog.builtIn(),
            new AllocationSigner(KEY, codec),
            AllocationVerifier.of(KEY, codec),
            SchedulerSettings.defaults(),
            Clock.systemUTC());
    List<RegisteredChip> chips = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      chips.add(new RegisteredChip(i, "GOLDEN-DIE-" + i, "910B3", 65536, 20, 7, true, 0, ""));
    }
    scheduler.nodeChanged(
        new NodeBuilder()
            .withNewMetadata()
            .withName("golden-node")
            .addToAnnotations(
                AnnotationKeys.NODE_REGISTER,
                codec.encodeRegistration(new NodeRegistration(SplitMode.SOFT, 4, chips)))
            .addToAnnotations(
                AnnotationKeys.NODE_HANDSHAKE,
                codec.encodeHandshake(
                    new NodeHandshake(HandshakeState.REPORTED, Instant.now().plusSeconds(3600))))
            .endMetadata()
            .build());
    return scheduler;
  }

  /** Posts each verb's golden request and compares the answer with its golden response. */
  private void answer(Scheduler scheduler, List<String> verbs, UnaryOperator<String> request)
      throws Exception {
    try (SchedulerService service = serve(scheduler)) {
      for (String verb : verbs) {
        String answer =
            post(service, verb, request.apply(GoldenFile.read(verb + "-request.json"))).body();
        GoldenFile.assertMatches(
            verb + "-response.json",
            JSON.writerWithDefaultPrettyPrinter().writeValueAsString(JSON.readTree(answer)));
      }
    }
  }

  /** Posts {@code body} to {@code verb} ({@code volcano-preemptable} is /volcano/preemptable). */
  private static HttpResponse<String> post(SchedulerService service, String verb, String body)
      throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create(
                        "http://127.0.0.1:" + service.port() + "/" + verb.replaceFirst("-", "/")))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }
}
