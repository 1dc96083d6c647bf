package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.ShimContract;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.ledger.ChargeKey;
import org.vnpu.core.request.PodManifests;
import org.vnpu.deviceplugin.PluginHarness;
import org.vnpu.deviceplugin.ScheduledPods;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;

/**
 * The scheduler over HTTP as kube-scheduler and Volcano call it, against fabric8's CRUD mock API
 * server, with a real device plugin (kubelet emulator, simulated chips) on the node it binds to.
 */
@EnableKubernetesMockClient(crud = true)
class SchedulerServiceTest {

  private static final AtomicInteger NODES = new AtomicInteger();
  private static final ObjectMapper JSON = new ObjectMapper();

  KubernetesClient client;

  @TempDir Path directory;

  private final HttpClient http = HttpClient.newHttpClient();
  private PluginHarness node;
  private Scheduler scheduler;
  private SchedulerService service;

  @BeforeEach
  void start() throws IOException {
    node = PluginHarness.start(client, directory, "sched-node-" + NODES.incrementAndGet());
    scheduler = scheduler();
    service = serve();
  }

  private SchedulerService serve() throws IOException {
    return SchedulerService.start(
        Listeners.plain(new InetSocketAddress("127.0.0.1", 0)),
        scheduler,
        client,
        Leadership.alone());
  }

  @AfterEach
  void stop() {
    service.close();
    node.close();
    // Before the mock shuts down: its Vert.x 5 server waits for each open WebSocket to close.
    client.close();
  }

  private Scheduler scheduler() {
    return new Scheduler(
        client,
        ChipCatalog.builtIn(),
        new AllocationSigner(ScheduledPods.KEY, node.pods.codec),
        new AllocationVerifier(ScheduledPods.VERIFYING, node.pods.codec),
        SchedulerSettings.defaults(),
        Clock.systemUTC());
  }

  @Test
  void kubeSchedulerFiltersPrioritizesAndBindsAndTheDevicePluginHandsOut() throws Exception {
    Pod pod = create("bert", "30", "8");

    JsonNode filter =
        post("/kube/filter", Map.of("Pod", json(pod), "NodeNames", List.of(node.node, "cpu-only")));
    assertThat(filter.path("NodeNames")).extracting(JsonNode::asText).containsExactly(node.node);
    assertThat(filter.path("FailedAndUnresolvableNodes").path("cpu-only").asText())
        .contains("no vNPU inventory");
    assertThat(filter.path("Error").asText()).isEmpty();

    JsonNode scores =
        post("/kube/prioritize", Map.of("Pod", json(pod), "NodeNames", List.of(node.node)));
    assertThat(scores.get(0).path("Host").asText()).isEqualTo(node.node);
    assertThat(scores.get(0).path("Score").asLong()).isBetween(0L, 10L);

    JsonNode bind = bind(pod);
    assertThat(bind.path("Error").asText()).isEmpty();
    assertThat(node.pods.lockAnnotations())
        .containsKey(AnnotationKeys.nodeLock(pod.getMetadata().getUid()));
    Binding binding = client.bindings().inNamespace(ScheduledPods.NAMESPACE).withName("bert").get();
    assertThat(binding.getTarget().getName()).isEqualTo(node.node);
    assertThat(binding.getMetadata().getAnnotations())
        .as("the allocation goes onto the pod with its node, in the one write of the Binding")
        .containsEntry(AnnotationKeys.BIND_PHASE, "allocating")
        .containsKey(AnnotationKeys.ALLOCATION);
    bound(pod);
    assertThat(node.pods.podAnnotation("bert", AnnotationKeys.BIND_PHASE)).isEqualTo("allocating");

    String metrics = get("/metrics");
    assertThat(metrics)
        .contains("vnpu_scheduler_request_duration_seconds_count{verb=\"/kube/bind\"} 1")
        .contains("vnpu_scheduler_answers_total{outcome=\"ok\",verb=\"/kube/filter\"} 1.0")
        .contains("vnpu_scheduler_ledger_pods 1.0");

    await()
        .untilAsserted(
            () ->
                assertThat(events("bert"))
                    .anyMatch(
                        e ->
                            e.getReason().equals("VnpuAllocated")
                                && e.getMessage().contains(node.node)));

    bound(pod);
    ContainerAllocateResponse handout = node.allocate(1);
    assertThat(handout.getMountsList())
        .anyMatch(mount -> mount.getContainerPath().equals(ShimContract.CONTAINER_CONFIG));
    assertThat(node.pods.podAnnotation("bert", AnnotationKeys.BIND_PHASE)).isEqualTo("success");
    await().until(() -> node.pods.lockAnnotations().isEmpty());
  }

  @Test
  void volcanoPredicatePrioritizesAllocatesAndRollsBack() throws Exception {
    Pod pod = create("resnet", "50", "70");
    JsonNode task = JSON.createObjectNode().set("Pod", json(pod));

    JsonNode predicate =
        post("/volcano/predicate", Map.of("task", task, "node", Map.of("Name", node.node)));
    assertThat(get("/metrics"))
        .contains("vnpu_scheduler_rejections_total{reason=\"not_enough_memory\"} 1.0");
    assertThat(predicate.path("code").asInt()).isEqualTo(2);
    assertThat(predicate.path("status").asText()).contains("not enough device memory");
    JsonNode filter =
        post("/kube/filter", Map.of("Pod", json(pod), "NodeNames", List.of(node.node)));
    assertThat(filter.path("NodeNames")).isEmpty();
    await()
        .untilAsserted(
            () ->
                assertThat(events("resnet"))
                    .anyMatch(
                        e ->
                            e.getReason().equals("VnpuUnschedulable")
                                && e.getMessage()
                                    .startsWith("0/1 nodes fit: 1 not enough device memory")));

    Pod fits = create("bert", "50", "8");
    JsonNode fitsTask = JSON.createObjectNode().set("Pod", json(fits));
    JsonNode ok =
        post("/volcano/predicate", Map.of("task", fitsTask, "node", Map.of("Name", node.node)));
    assertThat(ok.path("status").asText()).isEmpty();
    assertThat(ok.path("code").asInt()).isZero();
    JsonNode prioritize =
        post(
            "/volcano/prioritize",
            Map.of("task", fitsTask, "nodes", List.of(Map.of("Name", node.node))));
    assertThat(prioritize.path("nodeScore").path(node.node).asDouble()).isBetween(0.0, 100.0);

    ((com.fasterxml.jackson.databind.node.ObjectNode) fitsTask).put("NodeName", node.node);
    JsonNode allocate = post("/volcano/allocateFunc", Map.of("task", fitsTask));
    assertThat(allocate.path("errorMessage").asText()).isEmpty();
    // Answered once decided; the allocation and the node's entry are written after the answer.
    // The node's entry first, then the pod's annotations (PodReserver.write).
    await().until(() -> node.pods.podAnnotation("bert", AnnotationKeys.ALLOCATION) != null);
    assertThat(node.pods.lockAnnotations()).isNotEmpty();
    assertThat(scheduler.placements()).containsKey(fits.getMetadata().getUid());

    JsonNode deallocate = post("/volcano/deallocateFunc", Map.of("task", fitsTask));
    assertThat(deallocate.path("errorMessage").asText()).isEmpty();
    assertThat(node.pods.podAnnotation("bert", AnnotationKeys.ALLOCATION)).isNull();
    assertThat(node.pods.lockAnnotations()).isEmpty();
    assertThat(scheduler.placements()).isEmpty();
  }

  /**
   * Statement.Pipeline calls allocateFunc with the task {@code Pipelined} (1 << 2): the place is
   * held and nothing is written, so that a later session's binding elsewhere carries no allocation
   * back; deallocateFunc (Statement.Discard) lets the place go.
   */
  @Test
  void aPipelinedTasksAllocateFuncHoldsItsPlaceAndWritesNothing() throws Exception {
    Pod pod = create("waiting", "50", "8");
    ObjectNode task = JSON.createObjectNode();
    task.set("Pod", json(pod));
    task.put("NodeName", node.node);
    task.put("Status", 1 << 2);

    JsonNode allocate = post("/volcano/allocateFunc", Map.of("task", task));

    assertThat(allocate.path("errorMessage").asText()).isEmpty();
    assertThat(node.pods.podAnnotation("waiting", AnnotationKeys.ALLOCATION)).isNull();
    assertThat(node.pods.lockAnnotations()).isEmpty();
    assertThat(scheduler.placements())
        .containsKey(ChargeKey.preemptorPlace(pod.getMetadata().getUid()).ledgerKey());

    post("/volcano/deallocateFunc", Map.of("task", task));
    assertThat(scheduler.placements()).isEmpty();
  }

  @Test
  void allocateFuncReservesWhatTheStoredPodAsksNotWhatTheRequestSays() throws Exception {
    Pod stored = create("honest", "30", "8");
    Pod claimed = create("honest-copy", "10", "1");
    claimed.getMetadata().setName("honest");
    claimed.getMetadata().setUid(stored.getMetadata().getUid());
    JsonNode task = JSON.createObjectNode().set("Pod", json(claimed));
    ((com.fasterxml.jackson.databind.node.ObjectNode) task).put("NodeName", node.node);

    JsonNode allocate = post("/volcano/allocateFunc", Map.of("task", task));

    assertThat(allocate.path("errorMessage").asText()).isEmpty();
    assertThat(scheduler.placements().get(stored.getMetadata().getUid()).allocation().containers())
        .singleElement()
        .satisfies(c -> assertThat(c.vnpus().get(0).cores()).as("the stored pod's").isEqualTo(30));

    claimed.getMetadata().setUid("forged-uid");
    claimed.getMetadata().setName("nobody");
    JsonNode forged =
        post(
            "/volcano/allocateFunc",
            Map.of(
                "task",
                JSON.createObjectNode().put("NodeName", node.node).set("Pod", json(claimed))));
    assertThat(forged.path("errorMessage").asText())
        .isEqualTo("pod serving/nobody with UID forged-uid does not exist");
    assertThat(scheduler.placements()).doesNotContainKey("forged-uid");
  }

  @Test
  void deallocateLeavesABoundPodItsVnpus() throws Exception {
    Pod pod = create("running", "30", "8");
    JsonNode bind = bind(pod);
    assertThat(bind.path("Error").asText()).isEmpty();
    bound(pod);

    JsonNode deallocate =
        post(
            "/volcano/deallocateFunc",
            Map.of("task", JSON.createObjectNode().set("Pod", json(pod))));

    assertThat(deallocate.path("errorMessage").asText())
        .isEqualTo(
            "pod serving/running is bound to node "
                + node.node
                + ": its vNPUs are released when it ends, not by deallocateFunc");
    assertThat(scheduler.placements()).containsKey(pod.getMetadata().getUid());
    assertThat(node.pods.podAnnotation("running", AnnotationKeys.ALLOCATION)).isNotNull();
  }

  @Test
  void aBoundPodTheSessionEvictsKeepsItsVnpusUntilItIsGone() throws Exception {
    Pod pod = create("victim", "30", "8");
    assertThat(bind(pod).path("Error").asText()).isEmpty();
    bound(pod);
    ObjectNode task = JSON.createObjectNode();
    task.set("Pod", json(pod));
    task.put("NodeName", node.node);
    task.put("Status", VolcanoProtocol.RELEASING); // Statement.Evict

    JsonNode deallocate = post("/volcano/deallocateFunc", Map.of("task", task));

    assertThat(deallocate.path("errorMessage").asText()).isEmpty();
    assertThat(scheduler.placements()).containsKey(pod.getMetadata().getUid());
    assertThat(node.pods.podAnnotation("victim", AnnotationKeys.ALLOCATION)).isNotNull();
  }

  @Test
  void twoPodsRacingForTheNodeCannotBothWin() throws Exception {
    // Two shapes asking for one vNPU each: Allocate could not tell them apart, so one waits.
    List<Pod> pods = List.of(create("a", "30", "8"), create("b", "40", "8"));
    CountDownLatch go = new CountDownLatch(1);
    List<String> errors = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (Pod pod : pods) {
      Thread thread =
          new Thread(
              () -> {
                try {
                  go.await();
                  scheduler.reserve(PodManifests.fromJson(json(pod)), node.node).join();
                } catch (SchedulingException e) {
                  synchronized (errors) {
                    errors.add(e.getMessage());
                  }
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      thread.start();
      threads.add(thread);
    }
    go.countDown();
    for (Thread thread : threads) {
      thread.join();
    }

    assertThat(errors).hasSize(1);
    assertThat(errors.get(0)).contains("locked");
    assertThat(get("/metrics"))
        .containsPattern(
            "vnpu_scheduler_(lock_refusals_total|rejections_total\\{reason=\"locked\"\\}) 1.0");
    assertThat(scheduler.placements()).hasSize(1);
  }

  @Test
  void aRestartedSchedulerRebuildsTheSameLedgerFromTheApiServer() throws Exception {
    Pod pod = create("bert", "30", "8");
    scheduler.reserve(PodManifests.fromJson(json(pod)), node.node).join();

    Scheduler restarted = scheduler();
    restarted.rebuild();

    assertThat(restarted.placements()).isEqualTo(scheduler.placements()).hasSize(1);
  }

  /**
   * Volcano sends the predicate its session's {@code NodeInfo}, with every task on the node and
   * each task's whole pod (pkg/scheduler/plugins/extender/argument.go {@code PredicateRequest}): a
   * busy node's is over 1 MiB, and refusing it would leave the node to no pod.
   */
  @Test
  void volcanosPredicateReadsTheNodeInfoOfABusyNode() throws Exception {
    Pod pod = create("bert", "30", "8");
    ObjectNode tasks = JSON.createObjectNode();
    for (int i = 0; i < 110; i++) {
      ObjectNode pad = JSON.createObjectNode();
      pad.putObject("metadata").putObject("annotations").put("pad", "x".repeat(20_000));
      tasks.putObject("default/t" + i).put("UID", "t" + i).put("Status", 32).set("Pod", pad);
    }
    ObjectNode request = JSON.createObjectNode();
    request.putObject("task").set("Pod", json(pod));
    request.putObject("node").put("Name", node.node).set("Tasks", tasks);
    assertThat(request.toString().length()).isGreaterThan(2 << 20);

    HttpResponse<String> answer = raw("/volcano/predicate", request.toString());

    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(JSON.readTree(answer.body()).path("code").asInt()).isZero();
  }

  @Test
  void badRequestsGetTheProtocolsErrorsAndChangeNothing() throws Exception {
    assertThat(raw("/kube/filter", "{not json").statusCode()).isEqualTo(400);
    HttpResponse<String> noPod = raw("/kube/filter", "{\"NodeNames\":[\"x\"]}");
    assertThat(noPod.statusCode()).isEqualTo(400);
    assertThat(noPod.body()).contains("missing Pod");
    assertThat(raw("/volcano/predicate", "{\"task\":{}}").body()).contains("missing task.Pod");
    // the node lists are parsed for a few fields, and still as JSON, whole
    assertThat(raw("/volcano/prioritize", "{\"nodes\":[{\"Name\":\"n\"}").statusCode())
        .isEqualTo(400);
    assertThat(raw("/volcano/prioritize", "{\"nodes\":[{\"Name\":7}]}").body())
        .contains("missing Name");
    assertThat(raw("/kube/filter", "x".repeat((10 << 20) + 1)).statusCode()).isEqualTo(413);
    HttpResponse<String> bigBind = raw("/kube/bind", "x".repeat((64 << 10) + 1));
    assertThat(bigBind.statusCode()).isEqualTo(413);
    assertThat(bigBind.body()).contains("request body exceeds 64 KiB");
    assertThat(raw("/volcano/allocateFunc", "x".repeat((1 << 20) + 1)).statusCode()).isEqualTo(413);
    assertThat(raw("/volcano/predicate", "x".repeat((64 << 20) + 1)).statusCode()).isEqualTo(413);
    assertThat(raw("/volcano/onSessionOpen", "x".repeat(20 << 20)).statusCode())
        .as("the session is drained, never parsed, whatever its size")
        .isEqualTo(200);

    Pod invalid = create("bad", "30", "8");
    invalid
        .getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .getLimits()
        .put(ResourceNames.VNPU_NUMBER, new Quantity("2"));
    JsonNode filter =
        post("/kube/filter", Map.of("Pod", json(invalid), "NodeNames", List.of(node.node)));
    assertThat(filter.path("FailedAndUnresolvableNodes").path(node.node).asText())
        .contains("several vNPUs are only allowed for whole cards");
    JsonNode bind =
        post(
            "/kube/bind",
            Map.of(
                "PodName", "ghost", "PodNamespace", "serving", "PodUID", "u", "Node", node.node));
    assertThat(bind.path("Error").asText()).contains("does not exist");
    assertThat(scheduler.placements()).isEmpty();
  }

  @Test
  void aHugeQuantityIsRefusedAtOnceAndSchedulingGoesOn() throws Exception {
    Pod hostile = create("hostile", "30", "8");
    hostile
        .getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .setRequests(Map.of("cpu", new Quantity("1e99999999")));
    Pod fine = create("fine", "30", "8");

    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () -> {
          JsonNode scores =
              post(
                  "/kube/prioritize",
                  Map.of("Pod", json(hostile), "NodeNames", List.of(node.node)));
          assertThat(scores.get(0).path("Score").asLong()).isZero();
          JsonNode filter =
              post("/kube/filter", Map.of("Pod", json(hostile), "NodeNames", List.of(node.node)));
          assertThat(filter.path("NodeNames"))
              .as("filters leave host resources to kube-scheduler; they only must not hang")
              .hasSize(1);
          assertThat(
                  post("/kube/filter", Map.of("Pod", json(fine), "NodeNames", List.of(node.node)))
                      .path("NodeNames"))
              .hasSize(1);
        });
  }

  @Test
  void aCallerSkippingTheFiltersCannotBindOrReserveWhereTheNodeRulesForbid() throws Exception {
    Pod pod = create("bert", "30", "8");
    client
        .nodes()
        .withName(node.node)
        .edit(
            n -> {
              n.setSpec(new NodeSpec());
              n.getSpec()
                  .setTaints(List.of(new Taint("NoSchedule", "huawei.com/Ascend910", null, null)));
              return n;
            });
    // The writing verbs read the node from the service's informer, as kube-scheduler reads its own
    // cache: the taint counts once the informer has it.
    await()
        .until(
            () ->
                service.cachedNode(node.node).getSpec() != null
                    && service.cachedNode(node.node).getSpec().getTaints() != null
                    && !service.cachedNode(node.node).getSpec().getTaints().isEmpty());

    JsonNode bind = bind(pod);
    JsonNode allocate =
        post(
            "/volcano/allocateFunc",
            Map.of("task", Map.of("Pod", json(pod), "NodeName", node.node)));

    String refusal =
        "may not go to node "
            + node.node
            + ": node "
            + node.node
            + " has the taint huawei.com/Ascend910:NoSchedule that the pod does not tolerate";
    assertThat(bind.path("Error").asText()).contains(refusal);
    assertThat(allocate.path("errorMessage").asText()).contains(refusal);
    assertThat(scheduler.placements()).isEmpty();
  }

  @Test
  void livenessFailsWhileTheSchedulerCannotDecide() throws Exception {
    assertThat(get("/healthz")).isEqualTo("ok\n");
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread stuck =
        new Thread(
            () -> {
              synchronized (scheduler.monitor()) { // a decision that does not end
                held.countDown();
                try {
                  release.await();
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              }
            });
    stuck.start();
    held.await();

    HttpResponse<String> probe =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + "/healthz"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(probe.statusCode()).isEqualTo(503);
    assertThat(probe.body()).contains("has not been able to decide for 3 s");

    release.countDown();
    stuck.join();
    await().untilAsserted(() -> assertThat(get("/healthz")).isEqualTo("ok\n"));
  }

  private List<io.fabric8.kubernetes.api.model.Event> events(String pod) {
    return client.v1().events().inNamespace(ScheduledPods.NAMESPACE).list().getItems().stream()
        .filter(e -> e.getInvolvedObject().getName().equals(pod))
        .toList();
  }

  private Pod create(String name, String cores, String memoryGib) {
    return client
        .pods()
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(ScheduledPods.NAMESPACE)
                .endMetadata()
                .withNewSpec()
                .withSchedulerName("volcano")
                .addNewContainer()
                .withName("model")
                .withImage("model:1")
                .withNewResources()
                .addToLimits(ResourceNames.VNPU_NUMBER, new Quantity("1"))
                .addToLimits(ResourceNames.VNPU_CORES, new Quantity(cores))
                .addToLimits(ResourceNames.VNPU_MEMORY_GIB, new Quantity(memoryGib))
                .endResources()
                .endContainer()
                .endSpec()
                .build())
        .create();
  }

  /** kube-scheduler's bind of {@code pod} to this test's node, as it sends it. */
  private JsonNode bind(Pod pod) throws Exception {
    return post(
        "/kube/bind",
        Map.of(
            "PodName",
            pod.getMetadata().getName(),
            "PodNamespace",
            ScheduledPods.NAMESPACE,
            "PodUID",
            pod.getMetadata().getUid(),
            "Node",
            node.node));
  }

  /**
   * What the kubelet sees once the binding took effect (the mock does not apply bindings): the
   * node, and the Binding's annotations merged onto the pod's, as the API server's {@code
   * setPodHostAndAnnotations} does.
   */
  private void bound(Pod pod) {
    Binding binding =
        client
            .bindings()
            .inNamespace(ScheduledPods.NAMESPACE)
            .withName(pod.getMetadata().getName())
            .get();
    client
        .pods()
        .inNamespace(ScheduledPods.NAMESPACE)
        .withName(pod.getMetadata().getName())
        .edit(
            p -> {
              p.getSpec().setNodeName(node.node);
              if (binding != null && binding.getMetadata().getAnnotations() != null) {
                Map<String, String> annotations = new HashMap<>();
                if (p.getMetadata().getAnnotations() != null) {
                  annotations.putAll(p.getMetadata().getAnnotations());
                }
                annotations.putAll(binding.getMetadata().getAnnotations());
                p.getMetadata().setAnnotations(annotations);
              }
              return p;
            });
  }

  private static JsonNode json(Object value) {
    try {
      return JSON.readTree(Serialization.asJson(value));
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  private JsonNode post(String path, Object body) throws Exception {
    HttpResponse<String> response = raw(path, JSON.writeValueAsString(body));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private String get(String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private HttpResponse<String> raw(String path, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
