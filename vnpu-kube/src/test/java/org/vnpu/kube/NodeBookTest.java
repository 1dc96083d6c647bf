package org.vnpu.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.vnpu.api.ResourceNames;

/** Each upstream resource rule the emulators follow, one test per rule. */
class NodeBookTest {

  private static final String CORES = ResourceNames.VNPU_CORES;

  @Test
  void volcanoCountsAResourceTheNodeDoesNotAdvertiseAsZero() {
    NodeBook book = book(Map.of("cpu", "4", "memory", "8Gi", "pods", "10"), List.of());

    assertThat(book.volcanoShortfall(Map.of(CORES, BigDecimal.TEN), true)).containsExactly(CORES);
  }

  @Test
  void volcanoCountsThePodItselfAgainstThePodsTheNodeTakes() {
    NodeBook book =
        book(Map.of("cpu", "4", "memory", "8Gi", "pods", "1"), List.of(pod("a", "n", null)));

    assertThat(book.volcanoShortfall(Map.of(), true)).containsExactly("pods");
  }

  @Test
  void volcanoFreesWhatReleasingPodsHoldOnlyInFutureIdle() {
    Pod leaving = pod("a", "n", CORES);
    leaving.getMetadata().setDeletionTimestamp("2026-12-01T00:00:00Z");
    NodeBook book =
        book(Map.of("cpu", "4", "memory", "8Gi", "pods", "10", CORES, "100"), List.of(leaving));
    Map<String, BigDecimal> request = Map.of(CORES, BigDecimal.valueOf(60));

    assertThat(book.volcanoShortfall(request, false)).containsExactly(CORES);
    assertThat(book.volcanoShortfall(request, true)).isEmpty();
  }

  @Test
  void kubeSchedulerSkipsResourcesTheExtenderTakesOverButNotOthers() {
    NodeBook book = book(Map.of("pods", "10"), List.of());
    Map<String, BigDecimal> request = Map.of(CORES, BigDecimal.TEN);

    assertThat(book.kubeShortfall(request, Set.of(CORES))).isEmpty();
    assertThat(book.kubeShortfall(request, Set.of()))
        .containsExactly(Map.entry(CORES, "Insufficient " + CORES));
  }

  @Test
  void kubeSchedulerCountsThePodsAlreadyOnTheNode() {
    NodeBook book =
        book(
            Map.of("pods", "10", CORES, "100"),
            List.of(pod("a", "n", CORES), pod("b", "m", CORES)));

    assertThat(book.kubeShortfall(Map.of(CORES, BigDecimal.valueOf(50)), Set.of()))
        .as("a's 60 stay booked, b is on another node")
        .containsOnlyKeys(CORES);
    assertThat(book.kubeShortfall(Map.of(CORES, BigDecimal.valueOf(40)), Set.of())).isEmpty();
  }

  @Test
  void aTerminatedPodFreesWhatItRequested() {
    Pod done = pod("a", "n", CORES);
    done.setStatus(new PodStatusBuilder().withPhase("Succeeded").build());
    NodeBook book = book(Map.of("pods", "10", CORES, "100"), List.of(done));

    assertThat(book.kubeShortfall(Map.of(CORES, BigDecimal.valueOf(100)), Set.of())).isEmpty();
  }

  @Test
  void podRequestsTakeTheLargestInitContainerOverTheSumOfTheApps() {
    Pod pod =
        new PodBuilder(pod("a", "n", CORES))
            .editSpec()
            .addNewInitContainer()
            .withName("init")
            .withNewResources()
            .addToRequests(CORES, new Quantity("80"))
            .endResources()
            .endInitContainer()
            .endSpec()
            .build();

    assertThat(PodRequests.of(pod)).containsEntry(CORES, BigDecimal.valueOf(80));
  }

  private static NodeBook book(Map<String, String> allocatable, List<Pod> pods) {
    Map<String, Quantity> quantities = new TreeMap<>();
    allocatable.forEach((name, amount) -> quantities.put(name, new Quantity(amount)));
    Node node =
        new NodeBuilder()
            .withNewMetadata()
            .withName("n")
            .endMetadata()
            .withNewStatus()
            .withAllocatable(quantities)
            .endStatus()
            .build();
    return NodeBook.of(List.of(node), pods).get("n");
  }

  /** A pod on {@code node} requesting 60 of {@code resource} (nothing when null). */
  private static Pod pod(String name, String node, String resource) {
    Pod pod =
        new PodBuilder()
            .withNewMetadata()
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withNodeName(node)
            .addNewContainer()
            .withName("main")
            .withNewResources()
            .endResources()
            .endContainer()
            .endSpec()
            .build();
    if (resource != null) {
      pod.getSpec()
          .getContainers()
          .get(0)
          .getResources()
          .setRequests(Map.of(resource, new Quantity("60")));
    }
    return pod;
  }
}
