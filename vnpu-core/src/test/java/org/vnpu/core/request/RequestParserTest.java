package org.vnpu.core.request;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AiCpuLevel;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.api.Priority;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.validation.Problem;
import org.vnpu.core.validation.Validated;

class RequestParserTest {

  private final RequestParser parser = new RequestParser(ChipCatalog.builtIn());

  // ---- valid requests ----

  @Test
  void readsSoftShareWithDefaults() {
    PodRequest request =
        valid(
            pod(
                Map.of(),
                limits(
                    "main",
                    "huawei.com/vnpu-number=1",
                    "huawei.com/vnpu-cores=30",
                    "huawei.com/vnpu-memory.1Gi=8")));

    assertThat(request.options()).isEqualTo(PodOptions.defaults());
    assertThat(request.containers())
        .containsExactly(
            new ContainerRequest("main", false, 1, 30, 8192L, ChipTypes.ANY, AiCorePolicy.ELASTIC));
  }

  @Test
  void priorityComesFromTheAnnotationElseFromSpecPriorityAgainstTheThreshold() {
    RequestParser cluster = new RequestParser(ChipCatalog.builtIn(), PodOptions.defaults(), 1000);
    ContainerSpec share = limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=30");
    Map<String, String> none = Map.of();

    assertThat(offline(cluster, none, null)).as("no spec.priority: online").isNull();
    assertThat(offline(cluster, none, 1000)).as("at the threshold: online").isNull();
    assertThat(offline(cluster, none, 999)).isEqualTo(PodOptions.DEFAULT_OFFLINE);
    assertThat(offline(cluster, Map.of("huawei.com/vnpu-priority", "online"), -5)).isNull();
    assertThat(
            offline(
                cluster,
                Map.of(
                    "huawei.com/vnpu-priority", "offline",
                    "huawei.com/vnpu-offline-max-kernels-in-flight", "4"),
                5000))
        .isEqualTo(new OfflineWork(4));
    assertThat(
            new RequestParser(ChipCatalog.builtIn())
                .parse(new PodManifest("ns", "p", "u", Map.of(), List.of(), List.of(share), -1))
                .orElseThrow()
                .options()
                .offline())
        .as("the default threshold 0 makes negative PriorityClasses offline")
        .isEqualTo(PodOptions.DEFAULT_OFFLINE);
  }

  @Test
  void refusesPriorityAnnotationsItCannotHonour() {
    assertThat(
            problems(
                pod(
                    Map.of("huawei.com/vnpu-priority", "urgent"),
                    limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=30"))))
        .containsExactly("huawei.com/vnpu-priority=urgent: must be one of online, offline");
    assertThat(
            problems(
                pod(
                    Map.of("huawei.com/vnpu-offline-max-kernels-in-flight", "2"),
                    limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=30"))))
        .containsExactly(
            "huawei.com/vnpu-offline-max-kernels-in-flight=2: applies to offline pods only, and this"
                + " pod is online (spec.priority null >= threshold 0)");
    assertThat(
            problems(
                pod(
                    Map.of(
                        "huawei.com/vnpu-priority", "offline",
                        "huawei.com/vnpu-offline-max-kernels-in-flight", "17"),
                    limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=30"))))
        .containsExactly(
            "huawei.com/vnpu-offline-max-kernels-in-flight=17: must be a whole number from 0 (no cap)"
                + " to 16");
  }

  private static OfflineWork offline(
      RequestParser parser, Map<String, String> annotations, Integer priority) {
    return parser
        .parse(
            new PodManifest(
                "ns",
                "p",
                "u",
                annotations,
                List.of(),
                List.of(limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=30")),
                priority))
        .orElseThrow()
        .options()
        .offline();
  }

  @Test
  void aClustersDefaultPoliciesApplyWhereThePodNamesNone() {
    RequestParser cluster =
        new RequestParser(
            ChipCatalog.builtIn(),
            PodOptions.defaults().withPolicies(PlacementPolicy.BINPACK, PlacementPolicy.SPREAD),
            Priority.DEFAULT_ONLINE_THRESHOLD);
    ContainerSpec share =
        limits(
            "main",
            "huawei.com/vnpu-number=1",
            "huawei.com/vnpu-cores=30",
            "huawei.com/vnpu-memory.1Gi=8");

    PodOptions unnamed = cluster.parse(pod(Map.of(), share)).orElseThrow().options();
    PodOptions named =
        cluster
            .parse(pod(Map.of("huawei.com/vnpu-pod-node-scheduler-policy", "spread"), share))
            .orElseThrow()
            .options();

    assertThat(unnamed.nodePolicy()).isEqualTo(PlacementPolicy.BINPACK);
    assertThat(unnamed.devicePolicy()).isEqualTo(PlacementPolicy.SPREAD);
    assertThat(named.nodePolicy()).isEqualTo(PlacementPolicy.SPREAD);
  }

  @Test
  void treatsNumberAloneAsOneWholeCard() {
    ContainerRequest request =
        valid(pod(Map.of(), limits("main", "huawei.com/vnpu-number=1"))).containers().get(0);
    assertThat(request.wholeCard()).isTrue();
    assertThat(request.memoryMiB()).isNull();
    assertThat(request.policy()).isNull();
  }

  @Test
  void acceptsSeveralWholeCards() {
    ContainerRequest request =
        valid(
                pod(
                    Map.of(),
                    limits("train", "huawei.com/vnpu-number=8", "huawei.com/vnpu-cores=100")))
            .containers()
            .get(0);
    assertThat(request.count()).isEqualTo(8);
    assertThat(request.wholeCard()).isTrue();
  }

  @Test
  void treatsZeroCoresAsBestEffortMemoryOnly() {
    ContainerRequest request =
        valid(
                pod(
                    Map.of(),
                    limits(
                        "m",
                        "huawei.com/vnpu-number=1",
                        "huawei.com/vnpu-cores=0",
                        "huawei.com/vnpu-memory.1Gi=4")))
            .containers()
            .get(0);
    assertThat(request.policy()).isEqualTo(AiCorePolicy.BEST_EFFORT);
    assertThat(request.memoryMiB()).isEqualTo(4096L);
  }

  @Test
  void readsEveryPodAnnotation() {
    PodRequest request =
        valid(
            pod(
                Map.of(
                    "huawei.com/vnpu-mode", "hard",
                    "huawei.com/vnpu-hard-aicpu-level", "high",
                    "huawei.com/vnpu-pod-node-scheduler-policy", "spread",
                    "huawei.com/vnpu-pod-device-scheduler-policy", "spread",
                    "huawei.com/vnpu-use-npu-dieID", "VDIE-7",
                    "huawei.com/vnpu-use-npu-type", "NPU-ASCEND-310P3"),
                limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=50")));

    assertThat(request.options())
        .isEqualTo(
            new PodOptions(
                SplitMode.HARD,
                AiCpuLevel.HIGH,
                PlacementPolicy.SPREAD,
                PlacementPolicy.SPREAD,
                "VDIE-7",
                null));
    ContainerRequest container = request.containers().get(0);
    assertThat(container.chipTypes()).isEqualTo(ChipTypes.of("310P3"));
    assertThat(container.policy()).as("hard mode has no AI Core policy").isNull();
  }

  @Test
  void readsFixedSharePolicyAndChipTypeSelector() {
    ContainerRequest request =
        valid(
                pod(
                    Map.of("huawei.com/vnpu-aicore-policy", "fixed-share"),
                    limits(
                        "main",
                        "huawei.com/vnpu-number=1",
                        "huawei.com/vnpu-cores=25",
                        "huawei.com/vnpu-memory.1Gi=16",
                        "huawei.com/vnpu-type.910B3=1")))
            .containers()
            .get(0);
    assertThat(request.policy()).isEqualTo(AiCorePolicy.FIXED_SHARE);
    assertThat(request.chipTypes()).isEqualTo(ChipTypes.of("910B3"));
  }

  @Test
  void readsInitContainersFirstAndSkipsContainersWithoutVnpus() {
    PodManifest pod =
        new PodManifest(
            "ns",
            "p",
            "uid-1",
            Map.of(),
            List.of(
                limits(
                    "warmup",
                    "huawei.com/vnpu-number=1",
                    "huawei.com/vnpu-cores=0",
                    "huawei.com/vnpu-memory.1Gi=2")),
            List.of(limits("sidecar", "cpu=1"), limits("server", "huawei.com/vnpu-number=1")));

    PodRequest request = valid(pod);

    assertThat(request.containers())
        .extracting(ContainerRequest::name)
        .containsExactly("warmup", "server");
    assertThat(request.containers())
        .extracting(ContainerRequest::init)
        .containsExactly(true, false);
    assertThat(request.uid()).isEqualTo("uid-1");
  }

  @Test
  void podWithoutVnpuResourcesRequestsNone() {
    assertThat(valid(pod(Map.of(), limits("web", "cpu=2", "memory=1Gi"))).requestsVnpus())
        .isFalse();
  }

  @Test
  void acceptsRequestsEqualToLimits() {
    ContainerSpec spec =
        new ContainerSpec(
            "main", Map.of("huawei.com/vnpu-number", "1"), Map.of("huawei.com/vnpu-number", "1"));
    assertThat(valid(pod(Map.of(), spec)).requestsVnpus()).isTrue();
  }

  // ---- every rule, with its message ----

  @Test
  void rejectsSeveralSharedVnpus() {
    assertThat(
            problems(
                pod(
                    Map.of(),
                    limits("main", "huawei.com/vnpu-number=2", "huawei.com/vnpu-cores=30"))))
        .containsExactly(
            "huawei.com/vnpu-number=2 with huawei.com/vnpu-cores=30 in container main:"
                + " several vNPUs are only allowed for whole cards");
  }

  @Test
  void rejectsSeveralVnpusWithMemory() {
    assertThat(
            problems(
                pod(
                    Map.of(),
                    limits("main", "huawei.com/vnpu-number=2", "huawei.com/vnpu-memory.1Gi=8"))))
        .containsExactly(
            "huawei.com/vnpu-number=2 with huawei.com/vnpu-memory.1Gi=8 in container main:"
                + " several vNPUs are only allowed for whole cards, which take the chip's whole memory");
  }

  @Test
  void rejectsMemoryOnWholeCard() {
    assertThat(
            problems(
                pod(
                    Map.of(),
                    limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-memory.1Gi=8"))))
        .containsExactly(
            "huawei.com/vnpu-memory.1Gi=8 with huawei.com/vnpu-cores=unset (100) in container main:"
                + " a whole card takes the chip's whole memory; set huawei.com/vnpu-cores to 1..99"
                + " for a share, or to 0 for memory only");
  }

  @Test
  void rejectsCoresAboveOneHundred() {
    assertThat(
            problems(
                pod(
                    Map.of(),
                    limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=150"))))
        .containsExactly(
            "huawei.com/vnpu-cores=150 in container main: must be 0..100 (percent of one chip's"
                + " AI Cores; 0 reserves none)");
  }

  @Test
  void rejectsZeroMemory() {
    assertThat(
            problems(
                pod(
                    Map.of(),
                    limits(
                        "main",
                        "huawei.com/vnpu-number=1",
                        "huawei.com/vnpu-cores=10",
                        "huawei.com/vnpu-memory.1Gi=0"))))
        .containsExactly(
            "huawei.com/vnpu-memory.1Gi=0 in container main: must be at least 1; leave it unset"
                + " for the whole chip's memory");
  }

  @Test
  void rejectsMemoryBeyondTheLargestChip() {
    assertThat(
            problems(
                pod(
                    Map.of(),
                    limits(
                        "main",
                        "huawei.com/vnpu-number=1",
                        "huawei.com/vnpu-cores=10",
                        "huawei.com/vnpu-memory.1Gi=200"))))
        .containsExactly(
            "huawei.com/vnpu-memory.1Gi=200 in container main: exceeds the memory of the largest"
                + " chip, 950PR (128 GiB)");
  }

  @Test
  void rejectsMemoryBeyondThePinnedChipType() {
    assertThat(
            problems(
                pod(
                    Map.of("huawei.com/vnpu-use-npu-type", "310P3"),
                    limits(
                        "main",
                        "huawei.com/vnpu-number=1",
                        "huawei.com/vnpu-cores=10",
                        "huawei.com/vnpu-memory.1Gi=32"))))
        .containsExactly(
            "huawei.com/vnpu-memory.1Gi=32 in container main: exceeds the memory of chip type"
                + " 310P3 (24 GiB)");
  }

  @Test
  void rejectsBestEffortWithoutMemory() {
    assertThat(
            problems(
                pod(
                    Map.of(),
                    limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=0"))))
        .containsExactly(
            "huawei.com/vnpu-cores=0 in container main: a best-effort (memory-only) vNPU needs"
                + " huawei.com/vnpu-memory.1Gi");
  }

  @Test
  void rejectsBestEffortPolicyWithCores() {
    assertThat(
            problems(
                pod(
                    Map.of("huawei.com/vnpu-aicore-policy", "best-effort"),
                    limits(
                        "main",
                        "huawei.com/vnpu-number=1",
                        "huawei.com/vnpu-cores=30",
                        "huawei.com/vnpu-memory.1Gi=4"))))
        .containsExactly(
            "huawei.com/vnpu-aicore-policy=best-effort with huawei.com/vnpu-cores=30 in container"
                + " main: best-effort reserves no AI Core; set huawei.com/vnpu-cores to 0");
  }

  @Test
  void rejectsGuaranteedPolicyWithoutCores() {
    assertThat(
            problems(
                pod(
                    Map.of("huawei.com/vnpu-aicore-policy", "fixed-share"),
                    limits(
                        "main",
                        "huawei.com/vnpu-number=1",
                        "huawei.com/vnpu-cores=0",
                        "huawei.com/vnpu-memory.1Gi=4"))))
        .containsExactly(
            "huawei.com/vnpu-aicore-policy=fixed-share with huawei.com/vnpu-cores=0 in container"
                + " main: fixed-share needs an AI Core share of 1..99");
  }

  @Test
  void rejectsBestEffortInHardMode() {
    assertThat(
            problems(
                pod(
                    Map.of("huawei.com/vnpu-mode", "hard"),
                    limits(
                        "main",
                        "huawei.com/vnpu-number=1",
                        "huawei.com/vnpu-cores=0",
                        "huawei.com/vnpu-memory.1Gi=4"))))
        .containsExactly(
            "huawei.com/vnpu-cores=0 in container main: hard mode picks a template by AI Cores;"
                + " 0 (best-effort) is for soft mode only");
  }

  @Test
  void rejectsPolicyInHardMode() {
    assertThat(
            problems(
                pod(
                    Map.of(
                        "huawei.com/vnpu-mode", "hard", "huawei.com/vnpu-aicore-policy", "elastic"),
                    limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=50"))))
        .containsExactly(
            "huawei.com/vnpu-aicore-policy=elastic: AI Core policies apply to soft mode only, and"
                + " this pod asks for huawei.com/vnpu-mode=hard");
  }

  @Test
  void rejectsUnknownAnnotationValuesListingTheChoices() {
    assertThat(
            problems(
                pod(
                    ordered(
                        "huawei.com/vnpu-mode",
                        "auto",
                        "huawei.com/vnpu-hard-aicpu-level",
                        "max",
                        "huawei.com/vnpu-aicore-policy",
                        "greedy",
                        "huawei.com/vnpu-pod-node-scheduler-policy",
                        "pack",
                        "huawei.com/vnpu-pod-device-scheduler-policy",
                        "random"),
                    limits("main", "huawei.com/vnpu-number=1"))))
        .containsExactlyInAnyOrder(
            "huawei.com/vnpu-mode=auto: must be one of soft, hard",
            "huawei.com/vnpu-hard-aicpu-level=max: must be one of low, high",
            "huawei.com/vnpu-aicore-policy=greedy: must be one of fixed-share, elastic, best-effort",
            "huawei.com/vnpu-pod-node-scheduler-policy=pack: must be one of binpack, spread,"
                + " fragmentation-aware",
            "huawei.com/vnpu-pod-device-scheduler-policy=random: must be one of binpack, spread,"
                + " fragmentation-aware");
  }

  @Test
  void rejectsUnknownChipTypeInAnnotationAndSelector() {
    String names = ChipCatalog.builtIn().names();
    assertThat(
            problems(
                pod(
                    Map.of("huawei.com/vnpu-use-npu-type", "H100"),
                    limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-type.A100=1"))))
        .containsExactly(
            "huawei.com/vnpu-use-npu-type=H100: names H100, which is not a chip type of the catalog ("
                + names
                + "); list types separated by commas, e.g. 910B3,910B4",
            "huawei.com/vnpu-type.A100 in container main: names no chip type of the catalog ("
                + names
                + ")");
  }

  @Test
  void acceptsSeveralChipTypesInTheAnnotationAndASelectorAmongThem() {
    PodRequest pod =
        valid(
            pod(
                Map.of("huawei.com/vnpu-use-npu-type", "910B3, 910B4"),
                limits("any-of-two", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=30"),
                limits(
                    "selected",
                    "huawei.com/vnpu-number=1",
                    "huawei.com/vnpu-cores=30",
                    "huawei.com/vnpu-type.910B4=1")));

    assertThat(pod.containers().get(0).chipTypes())
        .isEqualTo(ChipTypes.of(List.of("910B3", "910B4")));
    assertThat(pod.containers().get(1).chipTypes()).isEqualTo(ChipTypes.of("910B4"));
  }

  @Test
  void rejectsAChipTypeListWithAnUnknownOrEmptyEntry() {
    assertThat(
            problems(
                pod(
                    Map.of("huawei.com/vnpu-use-npu-type", "910B3,,910B4"),
                    limits("main", "huawei.com/vnpu-number=1"))))
        .containsExactly(
            "huawei.com/vnpu-use-npu-type=910B3,,910B4: has an empty chip type of the catalog ("
                + ChipCatalog.builtIn().names()
                + "); list types separated by commas, e.g. 910B3,910B4");
  }

  @Test
  void rejectsAContainerNameThatCouldNotBeAFileNameOnTheNode() {
    assertThat(problems(pod(Map.of(), limits("../../etc/cron.d/x", "huawei.com/vnpu-number=1"))))
        .containsExactly(
            "container name \"../../etc/cron.d/x\": must be a DNS-1123 label: at most 63"
                + " lower-case letters, digits and '-', starting and ending with a letter or digit");
  }

  @Test
  void rejectsSelectorConflictingWithPodChipType() {
    assertThat(
            problems(
                pod(
                    Map.of("huawei.com/vnpu-use-npu-type", "310P3,910B4"),
                    limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-type.910B3=1"))))
        .containsExactly(
            "huawei.com/vnpu-type.910B3 in container main: conflicts with the pod's"
                + " huawei.com/vnpu-use-npu-type=310P3,910B4");
  }

  @Test
  void rejectsSeveralChipTypeSelectorsAndSelectorQuantityOtherThanOne() {
    assertThat(
            problems(
                pod(
                    Map.of(),
                    limits(
                        "main",
                        "huawei.com/vnpu-number=1",
                        "huawei.com/vnpu-type.910B3=2",
                        "huawei.com/vnpu-type.310P3=1"))))
        .containsExactly(
            "huawei.com/vnpu-type.910B3=2 in container main: must be 1 (it selects a chip type)",
            "huawei.com/vnpu-type.<chip> in container main: selects several chip types [310P3, 910B3];"
                + " a container's vNPUs share one chip type");
  }

  @Test
  void rejectsNonNumericQuantitiesWithTheUnitHint() {
    assertThat(
            problems(
                pod(
                    Map.of(),
                    limits(
                        "main",
                        "huawei.com/vnpu-number=one",
                        "huawei.com/vnpu-cores=30%",
                        "huawei.com/vnpu-memory.1Gi=8Gi"))))
        .containsExactly(
            "huawei.com/vnpu-number=one in container main: must be a whole number, e.g. \"8\"",
            "huawei.com/vnpu-cores=30% in container main: must be a whole number, e.g. \"8\"",
            "huawei.com/vnpu-memory.1Gi=8Gi in container main: must be a whole number of GiB (the"
                + " unit is in the resource name), e.g. \"8\"");
  }

  @Test
  void rejectsZeroVnpus() {
    assertThat(problems(pod(Map.of(), limits("main", "huawei.com/vnpu-number=0"))))
        .containsExactly(
            "huawei.com/vnpu-number=0 in container main: must be at least 1; remove it for a"
                + " container without vNPUs");
  }

  @Test
  void rejectsVnpuResourcesWithoutNumber() {
    assertThat(problems(pod(Map.of(), limits("main", "huawei.com/vnpu-cores=30"))))
        .containsExactly(
            "vNPU resources without huawei.com/vnpu-number in container main: set"
                + " huawei.com/vnpu-number to 1");
  }

  @Test
  void rejectsMisspelledVnpuResource() {
    assertThat(
            problems(
                pod(
                    Map.of(),
                    limits("main", "huawei.com/vnpu-number=1", "huawei.com/vnpu-core=30"))))
        .containsExactly(
            "huawei.com/vnpu-core in container main: is not a vNPU resource; known:"
                + " huawei.com/vnpu-number, huawei.com/vnpu-cores, huawei.com/vnpu-memory.1Gi,"
                + " huawei.com/vnpu-type.<chip>");
  }

  @Test
  void rejectsRequestsThatDifferFromLimits() {
    ContainerSpec spec =
        new ContainerSpec(
            "main",
            Map.of("huawei.com/vnpu-number", "1", "huawei.com/vnpu-cores", "30"),
            Map.of("huawei.com/vnpu-cores", "20"));
    assertThat(problems(pod(Map.of(), spec)))
        .containsExactly(
            "huawei.com/vnpu-cores in container main: requests (20) must equal limits (30) for"
                + " extended resources");
  }

  @Test
  void rejectsRequestsWithoutLimits() {
    ContainerSpec spec =
        new ContainerSpec(
            "main", Map.of("huawei.com/vnpu-number", "1"), Map.of("huawei.com/vnpu-cores", "20"));
    assertThat(problems(pod(Map.of(), spec)))
        .containsExactly(
            "huawei.com/vnpu-cores=20 in requests in container main: extended resources are read"
                + " from limits; set it in limits");
  }

  @Test
  void reportsProblemsOfEveryContainerAtOnce() {
    PodManifest pod =
        new PodManifest(
            "ns",
            "p",
            "",
            Map.of(),
            List.of(limits("init", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=0")),
            List.of(
                limits("a", "huawei.com/vnpu-number=3", "huawei.com/vnpu-cores=50"),
                limits("b", "huawei.com/vnpu-number=1", "huawei.com/vnpu-cores=101")));
    assertThat(problems(pod)).hasSize(3);
  }

  // ---- helpers ----

  private PodRequest valid(PodManifest pod) {
    Validated<PodRequest> result = parser.parse(pod);
    assertThat(result).as("%s", result).isInstanceOf(Validated.Valid.class);
    return result.orElseThrow();
  }

  private List<String> problems(PodManifest pod) {
    Validated<PodRequest> result = parser.parse(pod);
    assertThat(result).as("%s", result).isInstanceOf(Validated.Invalid.class);
    return ((Validated.Invalid<PodRequest>) result)
        .problems().stream().map(Problem::message).toList();
  }

  private static PodManifest pod(Map<String, String> annotations, ContainerSpec... containers) {
    return new PodManifest("default", "pod", "uid", annotations, List.of(), List.of(containers));
  }

  private static ContainerSpec limits(String name, String... pairs) {
    return new ContainerSpec(name, ordered(pairs), Map.of());
  }

  private static Map<String, String> ordered(String... pairs) {
    Map<String, String> map = new LinkedHashMap<>();
    if (pairs.length > 0 && !pairs[0].contains("=")) {
      for (int i = 0; i < pairs.length; i += 2) {
        map.put(pairs[i], pairs[i + 1]);
      }
      return map;
    }
    for (String pair : pairs) {
      String[] kv = pair.split("=", 2);
      map.put(kv[0], kv[1]);
    }
    return map;
  }
}
