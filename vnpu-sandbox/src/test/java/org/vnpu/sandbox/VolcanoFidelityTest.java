package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.kube.NodeLocks;
import org.vnpu.scheduler.VolcanoSchedulerConf;

/**
 * The Volcano session and the kubelet emulator refuse what the real Volcano and kubelet refuse, and
 * the shipped Volcano configuration leaves vNPU pods the engine's ranking. Two nodes with two 910B3
 * each.
 */
class VolcanoFidelityTest {

  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final List<NodeSpec> NODES =
      List.of(
          NodeSpec.uniform("n1", "two 910B3", SplitMode.SOFT, "910B3", 2),
          NodeSpec.uniform("n2", "two 910B3", SplitMode.SOFT, "910B3", 2));

  @TempDir Path directory;
  private Sandbox sandbox;
  private SandboxPods pods;

  private void start(VolcanoConfig config) throws Exception {
    sandbox = SandboxPods.start(directory, Sandbox.Driver.VOLCANO, NODES, config);
    pods = new SandboxPods(sandbox);
  }

  @AfterEach
  void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  @Test
  void nodesAdvertiseEveryVnpuResourceWithCountsThatMatchTheirChips() throws Exception {
    start(VolcanoConfig.shipped());

    assertThat(allocatable("n1"))
        .containsEntry(ResourceNames.VNPU_NUMBER, new Quantity("40"))
        .containsEntry(ResourceNames.VNPU_CORES, new Quantity("200"))
        .containsEntry(ResourceNames.VNPU_MEMORY_GIB, new Quantity("128"))
        .containsEntry(ResourceNames.typeResource("910B3"), new Quantity("40"))
        .containsEntry("pods", new Quantity("110"));
  }

  @Test
  void aSharedChipPodStaysPendingWhileTheNodesAdvertiseOnlyVnpuNumber() throws Exception {
    start(VolcanoConfig.shipped());
    for (NodeSpec node : NODES) {
      sandbox
          .client()
          .nodes()
          .withName(node.name())
          .editStatus(
              n -> {
                n.getStatus()
                    .getAllocatable()
                    .keySet()
                    .removeIf(
                        r ->
                            ResourceNames.isVnpuResource(r)
                                && !r.equals(ResourceNames.VNPU_NUMBER));
                return n;
              });
    }

    pods.submit("shared", 30, 4);
    pods.create(wholeCard("whole"));

    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("whole")));
    await().atMost(WAIT).until(() -> pods.notBoundBecause("shared") != null);
    assertThat(pods.node("shared")).isNull();
    assertThat(pods.notBoundBecause("shared"))
        .isEqualTo("0/2 nodes fit: 2 Insufficient " + ResourceNames.VNPU_CORES);
  }

  @Test
  void aChipTypeNoNodeHasIsRefusedBeforeTheExtenderIsAsked() throws Exception {
    start(VolcanoConfig.shipped());

    pods.submit("pinned", 30, 4, Map.of());
    Pod typed = DemoPods.inference("typed", 30, 4, "elastic", Map.of(), Map.of());
    typed
        .getSpec()
        .getContainers()
        .get(0)
        .getResources()
        .getLimits()
        .put(ResourceNames.typeResource("310P3"), new Quantity("1"));
    pods.create(typed);

    await().atMost(WAIT).until(() -> pods.notBoundBecause("typed") != null);
    assertThat(pods.notBoundBecause("typed"))
        .isEqualTo("0/2 nodes fit: 2 Insufficient " + ResourceNames.typeResource("310P3"));
  }

  @Test
  void theNodeTheEngineRanksFirstIsTheNodeVolcanoPicks() throws Exception {
    start(VolcanoConfig.shipped());
    placeACpuHungryPodOnN1();

    Pod second = binpackPod("second", "8");
    assertThat(engineRanking(second)).as("binpack: the node already in use").isEqualTo("n1");
    pods.create(second);

    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("second")));
    assertThat(pods.node("second")).isEqualTo("n1");
  }

  @Test
  void withVolcanosHostScoresOnTheLeastRequestedNodeOutvotesTheEngine() throws Exception {
    VolcanoConfig nodeorderOnly =
        new VolcanoConfig(
            VolcanoConfig.parse(VolcanoSchedulerConf.volcanoDefault()).nodeorder(), 0, Map.of());
    start(nodeorderOnly);
    placeACpuHungryPodOnN1();

    Pod second = binpackPod("second", "8");
    assertThat(engineRanking(second)).isEqualTo("n1");
    pods.create(second);

    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("second")));
    assertThat(pods.node("second")).isEqualTo("n2");
  }

  @Test
  void theKubeletDropsExtendedResourcesTheNodeLacksAndRefusesWhatDoesNotFit() throws Exception {
    start(VolcanoConfig.shipped());

    pods.create(boundTo("dongle", "n1", "example.com/dongle", "1"));
    pods.create(boundTo("greedy", "n1", "cpu", "500"));

    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("dongle")));
    await().atMost(WAIT).until(() -> "Failed".equals(pods.phase("greedy")));
    assertThat(pods.pod("greedy").getStatus().getReason()).isEqualTo("OutOfcpu");
    assertThat(pods.pod("greedy").getStatus().getMessage())
        .isEqualTo(
            "Pod was rejected: Node didn't have enough resource: cpu, requested: 500, used: 0,"
                + " capacity: 192");
  }

  @Test
  void theKubeletRefusesMoreCountedDevicesThanTheNodeHas() throws Exception {
    start(VolcanoConfig.shipped());
    pods.create(boundTo("too-much", "n1", ResourceNames.VNPU_MEMORY_GIB, "129"));

    await().atMost(WAIT).until(() -> "Failed".equals(pods.phase("too-much")));
    assertThat(pods.pod("too-much").getStatus().getReason()).isEqualTo("UnexpectedAdmissionError");
    assertThat(pods.pod("too-much").getStatus().getMessage())
        .isEqualTo(
            "Pod was rejected: Allocate failed due to requested number of devices unavailable for "
                + ResourceNames.VNPU_MEMORY_GIB
                + ". Requested: 129, Available: 128, which is unexpected");
  }

  @Test
  void anAppContainerGetsItsOwnVnpuWhenTheKubeletReusesItsInitContainersDevices() throws Exception {
    start(VolcanoConfig.shipped());
    Pod pipeline = DemoPods.inference("pipeline", 30, 4, "elastic", Map.of(), Map.of());
    Container warmup = new ContainerBuilder(pipeline.getSpec().getContainers().get(0)).build();
    warmup.setName("warmup");
    warmup.setEnv(List.of(new EnvVar("WORKLOAD_SECONDS", "1", null)));
    warmup.getResources().getLimits().put(ResourceNames.VNPU_CORES, new Quantity("10"));
    pipeline.getSpec().setInitContainers(List.of(warmup));
    pods.create(pipeline);

    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("pipeline")));
    assertThat(pods.pod("pipeline").getMetadata().getAnnotations())
        .containsEntry(AnnotationKeys.BIND_PHASE, "success");
    assertThat(pods.vnpus("pipeline")).extracting(VnpuAssignment::cores).containsExactly(10, 30);
  }

  @Test
  void anUnreachableExtenderLeavesPodsPendingInsteadOfBindingThemWithoutAnAllocation()
      throws Exception {
    start(VolcanoConfig.shipped());
    sandbox.stopScheduler();

    pods.submit("waiting", 30, 4);
    await()
        .alias("extender.ignorable is false: Volcano fails closed")
        .during(Duration.ofSeconds(2))
        .atMost(Duration.ofSeconds(5))
        .until(() -> pods.node("waiting") == null);

    sandbox.startSchedulerAgain();
    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("waiting")));
  }

  /**
   * Volcano's preempt action, as its master does since commit 5a15213: every chip runs an offline
   * pod of 60 %, so an online pod of 60 % fits no chip, although each node's vnpu-cores still has
   * 80 free. The action evicts one offline pod, the one the extender names, and commits only
   * because the extender's predicate, asked again with that pod {@code Releasing}, passes: a
   * session that stopped at the resource count (Volcano 1.15) would evict nothing and the online
   * pod would never start. The victim gets Volcano's eviction event; the other offline pods run on.
   */
  @Test
  void anOnlinePodPreemptsOneOfflinePodWhenNoChipHasRoom() throws Exception {
    start(VolcanoConfig.shipped());
    List<String> offline = List.of("batch-1", "batch-2", "batch-3", "batch-4");
    for (String name : offline) {
      pods.create(SandboxPods.prioritized(name, "offline", -10));
    }
    await()
        .atMost(WAIT)
        .until(() -> offline.stream().allMatch(n -> "Running".equals(pods.phase(n))));
    // Alike pods' hand-outs settled: a victim whose record still waits for its holder stays
    // charged until it is settled, and a session that came meanwhile would evict another.
    await().atMost(WAIT).until(() -> settled("n1") && settled("n2"));

    pods.create(SandboxPods.prioritized("serving", "online", 1000));

    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("serving")));
    List<String> evicted = offline.stream().filter(name -> pods.pod(name) == null).toList();
    assertThat(evicted).hasSize(1);
    assertThat(pods.node("serving")).isNotNull();
    assertThat(
            sandbox
                .client()
                .v1()
                .events()
                .inNamespace(Scenario.NAMESPACE)
                .list()
                .getItems()
                .stream()
                .filter(e -> "Evict".equals(e.getReason()))
                .map(e -> e.getInvolvedObject().getName()))
        .containsExactlyElementsOf(evicted);
  }

  /**
   * The preempt action's own refusals: a preemptor with {@code preemptionPolicy: Never} preempts
   * nothing ({@code taskEligibleToPreempt}), and a pod annotated {@code volcano.sh/preemptable:
   * "false"} is no preemptee ({@code GetPodPreemptable}). On each node one chip runs an offline pod
   * that may go, the other, started later, one that may not (the extender, offered it, would name
   * that one: it loses the least work); the online pod that may not preempt stays pending beside
   * the one that may, which evicts one of the two that may go.
   */
  @Test
  void onlyAPodThatMayPreemptEvictsAndOnlyPodsThatMayGo() throws Exception {
    start(VolcanoConfig.shipped());
    List<String> kept = List.of("kept-1", "kept-2");
    List<String> movable = List.of("batch-1", "batch-2");
    for (int i = 0; i < movable.size(); i++) {
      pods.create(
          onChip(
              SandboxPods.prioritized(movable.get(i), "offline", -10), "SIM-n" + (i + 1) + "-0"));
    }
    await()
        .atMost(WAIT)
        .until(() -> movable.stream().allMatch(n -> "Running".equals(pods.phase(n))));
    // Beside them on each node, started later: they lose the least work, the victims the extender
    // would rather name.
    for (int i = 0; i < kept.size(); i++) {
      Pod pod =
          onChip(SandboxPods.prioritized(kept.get(i), "offline", -10), "SIM-n" + (i + 1) + "-1");
      pod.getMetadata().getAnnotations().put("volcano.sh/preemptable", "false");
      pods.create(pod);
    }
    await()
        .atMost(WAIT)
        .until(
            () ->
                Stream.concat(kept.stream(), movable.stream())
                    .allMatch(n -> "Running".equals(pods.phase(n))));

    Pod polite = SandboxPods.prioritized("polite", "online", 1000);
    polite.getSpec().setPreemptionPolicy("Never");
    pods.create(polite);
    await().atMost(WAIT).until(() -> pods.notBoundBecause("polite") != null);
    assertThat(Stream.concat(kept.stream(), movable.stream()).map(pods::pod)).doesNotContainNull();

    pods.create(SandboxPods.prioritized("serving", "online", 1000));
    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("serving")));
    assertThat(kept.stream().map(pods::pod)).doesNotContainNull();
    assertThat(movable.stream().filter(name -> pods.pod(name) == null)).hasSize(1);
    assertThat(pods.node("polite")).isNull();
  }

  /** {@code pod} pinned to the chip with die ID {@code dieId}. */
  private static Pod onChip(Pod pod, String dieId) {
    pod.getMetadata().getAnnotations().put(AnnotationKeys.USE_NPU_DIE_ID, dieId);
    return pod;
  }

  private void placeACpuHungryPodOnN1() {
    Pod first = binpackPod("first", "150");
    first.getMetadata().getAnnotations().put(AnnotationKeys.USE_NPU_DIE_ID, "SIM-n1-0");
    pods.create(first);
    await().atMost(WAIT).until(() -> "Running".equals(pods.phase("first")));
  }

  /** A 30 % share placed by binpack, asking {@code cpu} cores of the host. */
  private static Pod binpackPod(String name, String cpu) {
    Pod pod =
        DemoPods.inference(
            name,
            30,
            4,
            "elastic",
            Map.of(AnnotationKeys.NODE_SCHEDULER_POLICY, PlacementPolicy.BINPACK.wireName()),
            Map.of("WORKLOAD_KERNEL_US", "5000"));
    pod.getSpec().getContainers().get(0).getResources().getLimits().put("cpu", new Quantity(cpu));
    return pod;
  }

  private static Pod wholeCard(String name) {
    return new PodBuilder(DemoPods.inference(name, 100, 1, null, Map.of(), Map.of()))
        .editSpec()
        .editFirstContainer()
        .editResources()
        .withLimits(Map.of(ResourceNames.VNPU_NUMBER, new Quantity("1")))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** A pod already bound to {@code node}, as a user bypassing the schedulers writes it. */
  private static Pod boundTo(String name, String node, String resource, String amount) {
    return new PodBuilder(DemoPods.inference(name, 100, 1, null, Map.of(), Map.of()))
        .editSpec()
        .withNodeName(node)
        .editFirstContainer()
        .editResources()
        .withLimits(Map.of(resource, new Quantity(amount)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /** The node the extender's prioritize scores highest for {@code pod} on both nodes. */
  private String engineRanking(Pod pod) throws Exception {
    Pod probe = new PodBuilder(pod).editMetadata().withUid("probe").endMetadata().build();
    JsonNode scores =
        ExtenderClient.volcano(sandbox.schedulerUrl())
            .post(
                "/volcano/prioritize",
                Map.of(
                    "task",
                    Map.of("Pod", ExtenderClient.pod(probe)),
                    "nodes",
                    List.of(Map.of("Name", "n1"), Map.of("Name", "n2"))))
            .path("nodeScore");
    return scores.path("n1").asDouble() > scores.path("n2").asDouble() ? "n1" : "n2";
  }

  /** Whether {@code node}'s locks hold no hand-out record waiting to be settled. */
  private boolean settled(String node) {
    return new NodeLocks(sandbox.client(), new PayloadCodec()).current(node).handouts().isEmpty();
  }

  private Map<String, Quantity> allocatable(String node) {
    Node current = sandbox.client().nodes().withName(node).get();
    return current.getStatus() == null ? Map.of() : current.getStatus().getAllocatable();
  }
}
