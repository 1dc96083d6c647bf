package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.PodRef;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.HostResources;

class PodAllocationsTest {

  private final PodAllocations allocations = new PodAllocations();
  private final PodRef first = new PodRef("uid-1", "default", "first");
  private final PodRef second = new PodRef("uid-2", "default", "second");

  @Test
  void aNodesAllocationsAreThoseOfItsPodsOnly() {
    allocations.put(first, plan("uid-1", "a"), "nonce-1");
    allocations.put(second, plan("uid-2", "b"), "nonce-2");

    assertThat(allocations.on("a")).containsExactly(plan("uid-1", "a"));
    assertThat(allocations.noncesOn("b")).containsExactly("nonce-2");
    assertThat(allocations.carrier("b", "nonce-2")).contains(second);
    assertThat(allocations.carrier("a", "nonce-2")).isEmpty();
    assertThat(allocations.on("c")).isEmpty();
  }

  @Test
  void aPodReSignedForAnotherNodeLeavesItsFormerNode() {
    allocations.put(first, plan("uid-1", "a"), "nonce-1");
    allocations.put(first, plan("uid-1", "b"), "nonce-3");

    assertThat(allocations.on("a")).isEmpty();
    assertThat(allocations.noncesOn("b")).containsExactly("nonce-3");
    assertThat(allocations.nonce("uid-1")).isEqualTo("nonce-3");
  }

  @Test
  void aRemovedPodIsGoneFromEveryView() {
    allocations.put(first, plan("uid-1", "a"), "nonce-1");

    assertThat(allocations.remove("uid-1")).isEqualTo(plan("uid-1", "a"));
    assertThat(allocations.remove("uid-1")).isNull();
    assertThat(allocations.has("uid-1")).isFalse();
    assertThat(allocations.plan("uid-1")).isNull();
    assertThat(allocations.nonce("uid-1")).isNull();
    assertThat(allocations.on("a")).isEmpty();
    assertThat(allocations.carrier("a", "nonce-1")).isEmpty();
  }

  private static AllocationPlan plan(String uid, String node) {
    return new AllocationPlan(new PodAllocation(uid, node, List.of()), HostResources.NONE);
  }
}
