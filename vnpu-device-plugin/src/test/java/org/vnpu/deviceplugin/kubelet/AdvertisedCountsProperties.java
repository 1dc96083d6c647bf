package org.vnpu.deviceplugin.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.engine.Decision;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.fragmentation.FragmentationMeter;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.core.inventory.NodeInventory;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.policy.Policies;
import org.vnpu.core.request.ContainerSpec;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;
import org.vnpu.core.request.RequestParser;
import org.vnpu.core.validation.Validated;
import org.vnpu.kubelet.deviceplugin.v1beta1.Device;

/**
 * What the node advertises never refuses a pod the engine places there: whatever pods the engine
 * placed on a node, the sums of their containers' vNPU limits (what kube-scheduler, Volcano and the
 * kubelet count) stay within the node's healthy devices of each resource. Soft, hard and whole-card
 * pods, nodes of one or mixed chip types, some chips unhealthy from the start.
 */
class AdvertisedCountsProperties {

  private static final ChipCatalog CATALOG = ChipCatalog.builtIn();
  private static final RequestParser PARSER = new RequestParser(CATALOG);
  private static final Instant NOW = Instant.parse("2026-12-01T12:00:00Z");
  private static final PlacementContext CONTEXT =
      new PlacementContext(
          NOW,
          Duration.ofSeconds(60),
          Policies.asRequested(),
          new FragmentationMeter(WorkloadMix.EMPTY));

  /** A pod as written (its containers' limits) and as parsed. */
  record Pod(List<Map<String, String>> limits, PodRequest request) {}

  @Property(tries = 400)
  void theCountsNeverRefuseWhatTheEnginePlaces(
      @ForAll("nodes") NodeRegistration node, @ForAll("histories") List<Pod> pods) {
    Ledger ledger = new Ledger();
    ledger.putNode(NodeInventory.from("n", node, CATALOG).orElseThrow(), HostResources.UNTRACKED);
    ledger.heartbeat("n", NOW);
    Map<String, Long> advertised = healthyDevices(node);
    Map<String, Long> asked = new HashMap<>();
    int serial = 0;
    for (Pod pod : pods) {
      String uid = "pod-" + serial++;
      PodRequest request =
          new PodRequest("default", uid, uid, pod.request().options(), pod.request().containers());
      Decision decision =
          PlacementEngine.place(request, HostResources.NONE, ledger.nodes(), CONTEXT);
      if (!(decision instanceof Decision.Placed placed)) {
        continue;
      }
      assertThat(ledger.apply(placed.plan())).isTrue();
      for (Map<String, String> limits : pod.limits()) {
        limits.forEach((name, value) -> asked.merge(name, Long.parseLong(value), Long::sum));
      }
      for (Map.Entry<String, Long> total : asked.entrySet()) {
        assertThat(total.getValue())
            .as("%s asked on %s after placing %s", total.getKey(), node, placed.plan())
            .isLessThanOrEqualTo(advertised.getOrDefault(total.getKey(), 0L));
      }
    }
  }

  private static Map<String, Long> healthyDevices(NodeRegistration node) {
    Map<String, Long> counts = new HashMap<>();
    for (KubeletResource resource :
        KubeletResource.forChips(node.chips(), node.maxSharesPerChip())) {
      counts.put(
          resource.name(),
          resource.devices().apply(node.chips()).stream()
              .map(Device::getHealth)
              .filter(DeviceIds.HEALTHY::equals)
              .count());
    }
    return counts;
  }

  @Provide
  Arbitrary<NodeRegistration> nodes() {
    Arbitrary<List<String>> types =
        Arbitraries.oneOf(
            Arbitraries.of("910B3", "910B4", "310P3", "910A").map(type -> List.of(type)),
            Arbitraries.just(List.of("910B3", "310P3")),
            Arbitraries.just(List.of("910B4", "910B3")));
    return Combinators.combine(
            types,
            Arbitraries.integers().between(1, 8),
            Arbitraries.of(SplitMode.SOFT, SplitMode.HARD),
            Arbitraries.integers().between(1, 20),
            Arbitraries.integers().between(0, 255))
        .as(AdvertisedCountsProperties::registration);
  }

  private static NodeRegistration registration(
      List<String> types, int chips, SplitMode mode, int maxShares, int unhealthyMask) {
    List<RegisteredChip> registered = new ArrayList<>();
    for (int i = 0; i < chips; i++) {
      String type = types.get(i % types.size());
      long memory = CATALOG.find(type).orElseThrow().memoryMiB();
      boolean healthy = (unhealthyMask >> i & 1) == 0 || i == 0;
      registered.add(new RegisteredChip(i, "d" + i, type, memory, 0, 0, healthy, 0, ""));
    }
    return new NodeRegistration(mode, maxShares, registered);
  }

  @Provide
  Arbitrary<List<Pod>> histories() {
    Arbitrary<Map<String, String>> container =
        Combinators.combine(
                Arbitraries.of(1, 1, 1, 2, 4),
                Arbitraries.of("0", "5", "10", "25", "30", "50", "75", "100", ""),
                Arbitraries.of("", "1", "3", "4", "8", "12", "16", "16", "21", "24", "32", "40"),
                Arbitraries.of("", "", "", "910B3", "910B4", "310P3", "910A"))
            .as(AdvertisedCountsProperties::limits);
    Arbitrary<Map<String, String>> annotations =
        Combinators.combine(
                Arbitraries.of("soft", "soft", "hard"),
                Arbitraries.of("binpack", "spread", "fragmentation-aware"),
                Arbitraries.of("low", "high"))
            .as(
                (mode, policy, level) ->
                    Map.of(
                        "huawei.com/vnpu-mode", mode,
                        "huawei.com/vnpu-pod-device-scheduler-policy", policy,
                        "huawei.com/vnpu-hard-aicpu-level", level));
    return Combinators.combine(annotations, container.list().ofMinSize(1).ofMaxSize(2))
        .as(AdvertisedCountsProperties::pod)
        .filter(java.util.Objects::nonNull)
        .list()
        .ofMaxSize(40);
  }

  private static Map<String, String> limits(int count, String cores, String memory, String type) {
    Map<String, String> limits = new LinkedHashMap<>();
    limits.put(ResourceNames.VNPU_NUMBER, String.valueOf(count));
    if (!cores.isEmpty()) {
      limits.put(ResourceNames.VNPU_CORES, cores);
    }
    if (!memory.isEmpty()) {
      limits.put(ResourceNames.VNPU_MEMORY_GIB, memory);
    }
    if (!type.isEmpty()) {
      limits.put(ResourceNames.typeResource(type), "1");
    }
    return limits;
  }

  private static Pod pod(Map<String, String> annotations, List<Map<String, String>> limits) {
    List<ContainerSpec> containers = new ArrayList<>();
    for (int i = 0; i < limits.size(); i++) {
      containers.add(new ContainerSpec("c" + i, limits.get(i), Map.of()));
    }
    Validated<PodRequest> parsed =
        PARSER.parse(new PodManifest("default", "p", "p", annotations, List.of(), containers));
    return parsed instanceof Validated.Valid<PodRequest> valid
        ? new Pod(limits, valid.value())
        : null;
  }
}
