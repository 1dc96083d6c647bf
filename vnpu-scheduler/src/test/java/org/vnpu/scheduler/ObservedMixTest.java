package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.fragmentation.FragmentationMeter;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.core.fragmentation.WorkloadShape;
import org.vnpu.core.inventory.ChipSupply;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.ContainerSpec;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;
import org.vnpu.core.request.RequestParser;

class ObservedMixTest {

  private final RequestParser parser = new RequestParser(ChipCatalog.builtIn());
  private final ObservedMix mix = new ObservedMix();
  private final ChipSupply supply = new ChipSupply(Map.of("910B3", 16_000L));
  private final HostResources host = new HostResources(1000, 1024);

  @Test
  void theMeasureIsKeptWhileTheMixHoldsAndMadeAnewWhenItMoves() {
    for (int i = 0; i < 200; i++) {
      mix.observe(pod(i % 2 == 0 ? "5" : "10"), host, supply);
    }
    FragmentationMeter settled = mix.meter();

    mix.observe(pod("5"), host, supply);
    mix.observe(pod("10"), host, supply);
    assertThat(mix.meter()).as("half and half, give or take one pod").isSameAs(settled);

    for (int i = 0; i < 10; i++) {
      mix.observe(pod("5"), host, supply);
    }
    assertThat(mix.meter()).as("52 %% against 50 %%: moved").isNotSameAs(settled);
  }

  @Test
  void aNewShapeOrAnotherSupplyMakesANewMeasure() {
    for (int i = 0; i < 200; i++) {
      mix.observe(pod("5"), host, supply);
    }
    FragmentationMeter oneShape = mix.meter();

    mix.observe(pod("5"), host, new ChipSupply(Map.of("910B3", 15_984L)));
    assertThat(mix.meter()).as("a node's chips changed").isNotSameAs(oneShape);

    FragmentationMeter otherSupply = mix.meter();
    for (int i = 0; i < 30; i++) {
      mix.observe(pod("50"), host, new ChipSupply(Map.of("910B3", 15_984L)));
    }
    assertThat(mix.meter()).as("a second typical shape").isNotSameAs(otherSupply);
  }

  @Test
  void theMeasureWeighsTheLastThousandPodsWithinTheDrift() {
    Random random = new Random(7);
    List<String> seen = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      // the mix moves: small pods give way to large ones, and a third shape comes and goes
      String cores =
          random.nextInt(3000) > i ? "5" : (i > 1000 && i < 1800 && i % 3 == 0 ? "25" : "50");
      seen.add(cores);
      mix.observe(pod(cores), host, supply);

      List<WorkloadShape> window =
          seen.subList(Math.max(0, seen.size() - 1000), seen.size()).stream()
              .map(this::shape)
              .toList();
      assertThat(mix.mix().near(WorkloadMix.typical(window, 0.9, 1), ObservedMix.DRIFT))
          .as("after pod %d", i)
          .isTrue();
    }
  }

  private WorkloadShape shape(String cores) {
    ContainerRequest asked = pod(cores).containers().get(0);
    return new WorkloadShape(
        asked.count(), asked.cores(), asked.memoryMiB(), asked.chipTypes(), host.cpuMilli());
  }

  private PodRequest pod(String cores) {
    ContainerSpec main =
        new ContainerSpec(
            "main",
            Map.of("huawei.com/vnpu-number", "1", "huawei.com/vnpu-cores", cores),
            Map.of());
    return parser
        .parse(new PodManifest("default", "p", "uid", Map.of(), List.of(), List.of(main)))
        .orElseThrow();
  }
}
