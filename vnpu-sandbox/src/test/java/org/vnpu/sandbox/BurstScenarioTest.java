package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.api.payload.VnpuAssignment;

/**
 * The burst benchmark on a small cluster: every pod created at once binds and is handed out exactly
 * what its annotation names, and a container that runs with another allocation is counted.
 */
class BurstScenarioTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(90);

  @TempDir Path directory;

  @Test
  void aBurstBindsEveryPodAndCountsWhatItMeasures() throws Exception {
    List<Pod> pods = BurstScenario.pods(24, BurstScenario.Shapes.MIX, PlacementPolicy.BINPACK, 7);
    BurstScenario.Report report;
    int sequential;
    try (Sandbox sandbox = start(directory.resolve("burst"))) {
      report = new BurstScenario(sandbox, line -> {}, TIMEOUT).burst(pods);
    }
    try (Sandbox sandbox = start(directory.resolve("sequential"))) {
      sequential =
          new BurstScenario(sandbox, line -> {}, TIMEOUT)
              .sequential(
                  BurstScenario.pods(24, BurstScenario.Shapes.MIX, PlacementPolicy.BINPACK, 7));
    }

    assertThat(report.pods()).isEqualTo(24);
    assertThat(report.bound()).isEqualTo(24);
    assertThat(report.seconds()).isPositive();
    assertThat(report.podsPerSecond()).isEqualTo(24 / report.seconds());
    assertThat(report.mismatchedHandouts()).isZero();
    assertThat(report.chipsUsed()).isBetween(1, 4);
    assertThat(sequential).isBetween(1, 4);
    assertThat(report.lockRefusals()).isNotNegative();
  }

  @Test
  void aContainerHandedOutAnotherAllocationThanItsAnnotationNamesIsCounted() throws Exception {
    try (Sandbox sandbox = start(directory)) {
      BurstScenario burst = new BurstScenario(sandbox, line -> {}, TIMEOUT);
      List<Pod> pods =
          BurstScenario.pods(2, BurstScenario.Shapes.DEPLOYMENT, PlacementPolicy.SPREAD, 1);
      assertThat(burst.burst(pods).mismatchedHandouts()).isZero();

      // As a swap would leave it: the annotation names another chip than the one handed out.
      PayloadCodec codec = new PayloadCodec();
      sandbox
          .client()
          .pods()
          .inNamespace(Scenario.NAMESPACE)
          .withName(pods.get(0).getMetadata().getName())
          .edit(
              pod -> {
                String annotation =
                    pod.getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION);
                SignedAllocation signed = codec.decodeAllocation(annotation);
                List<ContainerAllocation> moved = new ArrayList<>();
                for (ContainerAllocation container : signed.allocation().containers()) {
                  List<VnpuAssignment> vnpus = new ArrayList<>();
                  for (VnpuAssignment vnpu : container.vnpus()) {
                    vnpus.add(
                        new VnpuAssignment(
                            (vnpu.chipIndex() + 1) % 8,
                            vnpu.dieId(),
                            vnpu.chipType(),
                            vnpu.memoryMiB(),
                            vnpu.cores(),
                            vnpu.mode(),
                            vnpu.wholeCard(),
                            vnpu.policy(),
                            vnpu.template()));
                  }
                  moved.add(new ContainerAllocation(container.name(), container.init(), vnpus));
                }
                PodAllocation allocation = signed.allocation();
                pod.getMetadata()
                    .getAnnotations()
                    .put(
                        AnnotationKeys.ALLOCATION,
                        codec.encodeAllocation(
                            new SignedAllocation(
                                new PodAllocation(allocation.podUid(), allocation.node(), moved),
                                signed.nonce(),
                                signed.keyId(),
                                signed.signature())));
                return pod;
              });

      assertThat(burst.mismatchedHandouts()).isEqualTo(1);
    }
  }

  private static Sandbox start(Path directory) throws Exception {
    return Sandbox.start(
        new SandboxOptions(directory, Sandbox.Driver.VOLCANO, BurstScenario.nodes(2))
            .withoutWorkloads());
  }
}
