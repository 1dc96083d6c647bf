package org.vnpu.scheduler;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.ChargeKey;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;

/**
 * The hand-out records on the nodes' locks (ADR 0013), as the ledger charges them: each record's
 * allocation is charged exactly once, by the pod whose annotation carries its nonce or, while no
 * pod's does, on the record alone. Not thread-safe: the {@link SchedulerState}'s lock guards it.
 */
final class HandoutCharges {

  /** A hand-out record of a node's locks whose allocation's signature the caller checked. */
  record Verified(HandoutRecord record, SignedAllocation signed) {}

  private final Ledger ledger;
  private final Function<String, Set<String>> named;
  private final Consumer<AllocationPlan> charge;

  /** The verified records of each node, by nonce. */
  private final Map<String, Map<String, Verified>> byNode = new HashMap<>();

  /**
   * @param named the nonces of the allocations charged to pods on a node
   * @param charge charges a plan to the ledger, logging one that does not fit
   */
  HandoutCharges(
      Ledger ledger, Function<String, Set<String>> named, Consumer<AllocationPlan> charge) {
    this.ledger = ledger;
    this.named = named;
    this.charge = charge;
  }

  /** The node's records, as its locks carry them now, each with its checked signature. */
  void recorded(String node, List<Verified> verified) {
    Map<String, Verified> byNonce = new HashMap<>();
    verified.forEach(handout -> byNonce.put(handout.record().nonce(), handout));
    byNode.put(node, byNonce);
    charge(node);
  }

  void nodeRemoved(String node) {
    byNode.remove(node);
  }

  /**
   * The hand-out records the scheduler may settle now: their holder is known and has no entry left
   * on the node's locks at {@code now}, so no Allocate reads its annotations any more.
   */
  List<HandoutRecord> settleable(Instant now) {
    List<HandoutRecord> ready = new ArrayList<>();
    byNode.forEach(
        (node, records) ->
            records.values().stream()
                .map(Verified::record)
                .filter(record -> record.heldBy() != null)
                .filter(
                    record ->
                        ledger
                            .node(node)
                            .map(
                                state ->
                                    state.locks().live(now).stream()
                                        .noneMatch(
                                            lock -> lock.podUid().equals(record.heldBy().uid())))
                            .orElse(true))
                .forEach(ready::add));
    return ready;
  }

  /**
   * Whether {@code node}'s locks record a hand-out of the allocation signed with {@code nonce}:
   * once no pod's annotation names it, the record alone keeps it charged.
   */
  boolean recorded(String node, String nonce) {
    return byNode.getOrDefault(node, Map.of()).containsKey(nonce);
  }

  /**
   * Keeps every hand-out recorded on {@code node}'s locks charged exactly once: by the pod whose
   * annotation carries its nonce, or, when no pod's does (the pod it was signed for is gone, or its
   * annotation was already re-signed for another reservation), on the record alone until the record
   * is settled. So a chip in use is never under-counted while its pod is unknown.
   */
  void charge(String node) {
    releaseNamed(node);
    chargeUnnamed(node);
  }

  /** Releases the charges of {@code node}'s hand-outs a pod's annotation names or no record has. */
  void releaseNamed(String node) {
    Set<String> named = this.named.apply(node);
    Map<String, Verified> records = byNode.getOrDefault(node, Map.of());
    for (AllocationPlan plan : List.copyOf(ledger.placementsOn(node))) {
      ChargeKey charged = ChargeKey.of(plan.podUid());
      if (charged.kind() == ChargeKey.Kind.HANDOUT) {
        String nonce = charged.id();
        if (!records.containsKey(nonce) || named.contains(nonce)) {
          ledger.release(plan.podUid());
        }
      }
    }
  }

  /** Charges {@code node}'s hand-out records that no pod's annotation names, on the record. */
  void chargeUnnamed(String node) {
    Set<String> named = this.named.apply(node);
    byNode
        .getOrDefault(node, Map.of())
        .forEach(
            (nonce, handout) -> {
              // Charged on the record alone, not on any pod's annotation.
              String key = ChargeKey.handout(nonce).ledgerKey();
              if (!named.contains(nonce) && !ledger.placements().containsKey(key)) {
                PodAllocation allocation = handout.signed().allocation();
                charge.accept(new AllocationPlan(allocation.forPod(key), HostResources.NONE));
              }
            });
  }
}
