package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.vnpu.core.ledger.HostResources;

class HostUsageTest {

  private final HostUsage usage = new HostUsage();

  @Test
  void leavesWhatTheNodeAllocatesLessWhatItsPodsRequest() {
    usage.allocatable("a", new HostResources(16_000, 64_000));
    usage.charge("p1", "a", new HostResources(4000, 1000));
    usage.charge("p2", "a", new HostResources(2000, 1000));

    assertThat(usage.left("a")).isEqualTo(new HostResources(10_000, 62_000));
  }

  @Test
  void chargingAPodAgainReplacesItsChargeAndNamesTheNodeItLeft() {
    usage.allocatable("a", new HostResources(16_000, 64_000));
    usage.allocatable("b", new HostResources(16_000, 64_000));
    usage.charge("p1", "a", new HostResources(4000, 1000));

    assertThat(usage.charge("p1", "a", new HostResources(4000, 1000))).isEmpty();
    assertThat(usage.left("a")).isEqualTo(new HostResources(12_000, 63_000));
    assertThat(usage.charge("p1", "b", new HostResources(4000, 1000))).contains("a");
    assertThat(usage.left("a")).isEqualTo(new HostResources(16_000, 64_000));
    assertThat(usage.left("b")).isEqualTo(new HostResources(12_000, 63_000));
  }

  @Test
  void releasingGivesTheRequestBackOnce() {
    usage.allocatable("a", new HostResources(16_000, 64_000));
    usage.charge("p1", "a", new HostResources(4000, 1000));

    assertThat(usage.release("p1")).contains("a");
    assertThat(usage.release("p1")).isEmpty();
    assertThat(usage.left("a")).isEqualTo(new HostResources(16_000, 64_000));
  }

  @Test
  void anOvercommittedNodeHasNothingLeftAndANodeThatDoesNotSayIsUntracked() {
    usage.allocatable("a", new HostResources(4000, 64_000));
    usage.charge("p1", "a", new HostResources(6000, 1000));
    usage.charge("p2", "b", new HostResources(6000, 1000));

    assertThat(usage.left("a")).isEqualTo(new HostResources(0, 63_000));
    assertThat(usage.left("b")).isSameAs(HostResources.UNTRACKED);
  }
}
