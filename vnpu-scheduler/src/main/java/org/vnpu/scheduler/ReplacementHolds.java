package org.vnpu.scheduler;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.ChargeKey;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.HandoutShape;
import org.vnpu.core.request.PodRequest;

/**
 * Places held for the replacements of pods the rebalancer moves (docs/rebalancing.md). Before a pod
 * is evicted, the place the plan found for it elsewhere is charged as a {@link
 * ChargeKey.Kind#REPLACEMENT}, keyed by the pod's owner and shape: the pod its controller creates
 * in its stead sees that place free and takes it, nothing else does, and the hold ends when it is
 * taken, cancelled or expired. Not thread-safe: the {@link SchedulerState}'s lock guards it.
 */
final class ReplacementHolds {

  private static final Logger LOG = LoggerFactory.getLogger(ReplacementHolds.class);

  /**
   * One held place.
   *
   * @param owner the owner and shape a replacement must have ({@link #owner})
   * @param movedPod the UID of the pod whose replacement it is for
   * @param ledgerKey its key in the ledger
   * @param node where it is
   * @param expiresAt when it ends, taken or not
   */
  private record Held(
      String owner, String movedPod, String ledgerKey, String node, Instant expiresAt) {}

  private final Ledger ledger;
  private final List<Held> held = new ArrayList<>();

  ReplacementHolds(Ledger ledger) {
    this.ledger = ledger;
  }

  /**
   * The key of pods owned by {@code ownerUid} and shaped as {@code request}; null without owner.
   */
  static String owner(String ownerUid, PodRequest request) {
    return ownerUid == null ? null : ownerUid + "/" + HandoutShape.of(request).digest();
  }

  /** Charges {@code place} for the replacement of {@code movedPod}; false when it does not fit. */
  boolean hold(String owner, String movedPod, AllocationPlan place, Instant expiresAt) {
    String key = ChargeKey.replacement(movedPod).ledgerKey();
    if (!ledger.apply(new AllocationPlan(place.allocation().forPod(key), place.host()))) {
      return false;
    }
    held.add(new Held(owner, movedPod, key, place.node(), expiresAt));
    return true;
  }

  /** {@code node} as a pod of {@code owner} sees it: with one place held for its kind free. */
  NodeState seenBy(String owner, NodeState node) {
    return find(owner, node.name())
        .map(h -> Ledger.without(node, ledger.placements().get(h.ledgerKey())))
        .orElse(node);
  }

  /**
   * A pod of {@code owner} was placed on {@code node}: one place held there is its own now. Placed
   * elsewhere (its scores preferred another node), it is still the replacement of one moved pod:
   * one place held for its kind on another node goes, rather than stay charged until it expires.
   */
  void taken(String owner, String node) {
    find(owner, node)
        .or(() -> held.stream().filter(h -> h.owner().equals(owner)).findFirst())
        .ifPresent(this::end);
  }

  /** The move of {@code movedPod} did not happen: its replacement's place goes. */
  void cancel(String movedPod) {
    held.stream().filter(h -> h.movedPod().equals(movedPod)).findFirst().ifPresent(this::end);
  }

  void expire(Instant now) {
    for (Held h : List.copyOf(held)) {
      if (h.expiresAt().isBefore(now)) {
        end(h);
        LOG.info(
            "the place held on node {} for the replacement of pod UID {} expired untaken",
            h.node(),
            h.movedPod());
      }
    }
  }

  private Optional<Held> find(String owner, String node) {
    return owner == null
        ? Optional.empty()
        : held.stream().filter(h -> h.owner().equals(owner) && h.node().equals(node)).findFirst();
  }

  private void end(Held h) {
    held.remove(h);
    ledger.release(h.ledgerKey());
  }
}
