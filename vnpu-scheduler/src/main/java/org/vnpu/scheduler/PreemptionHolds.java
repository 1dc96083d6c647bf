package org.vnpu.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.ChargeKey;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;

/**
 * Places held for preemptors (docs/colocation.md). When a scheduler's preemption evicts offline
 * pods to make room for an online one, the victims' vNPUs stay charged until every one of them is
 * gone; then the preemptor's place is charged, under its {@link ChargeKey.Kind#PREEMPTOR_PLACE},
 * until the preemptor is reserved, deleted, or the hold expires. So nothing else takes the room its
 * victims made, not even between two victims' deletions. Not thread-safe: the {@link
 * SchedulerState}'s lock guards it.
 */
final class PreemptionHolds {

  private static final Logger LOG = LoggerFactory.getLogger(PreemptionHolds.class);

  /** How long a place is held for a preemptor: for its victims to go and for it to be placed. */
  static final Duration HOLD = Duration.ofMinutes(5);

  /**
   * A place held for a preemptor on one node.
   *
   * @param preemptor the preemptor's UID
   * @param plan its place on the node once the victims are gone
   * @param victims the pods evicted for it
   * @param expiresAt when the hold ends, charged or not
   */
  record Hold(String preemptor, AllocationPlan plan, Set<String> victims, Instant expiresAt) {

    Hold {
      victims = Set.copyOf(victims);
    }
  }

  private final Ledger ledger;
  private final Consumer<String> release;
  private final Predicate<String> chargedOnRelease;
  private final Map<String, Map<String, Hold>> waiting = new HashMap<>(); // preemptor, node
  private final Set<String> gone = new HashSet<>();
  private final Set<String> evicting = new HashSet<>();
  private final Map<String, Instant> charged = new HashMap<>();
  private final Set<String> waitingLogged = new HashSet<>();

  /**
   * @param release releases a victim that is gone: its allocation, ledger charge and host
   * @param chargedOnRelease whether a victim's vNPUs stay charged when it is released all the same
   *     (its node still records their hand-out)
   */
  PreemptionHolds(Ledger ledger, Consumer<String> release, Predicate<String> chargedOnRelease) {
    this.ledger = ledger;
    this.release = release;
    this.chargedOnRelease = chargedOnRelease;
  }

  /** Holds a place for {@code hold}'s preemptor, replacing one it had on the same node. */
  void hold(Hold hold) {
    waiting.computeIfAbsent(hold.preemptor(), uid -> new HashMap<>()).put(hold.plan().node(), hold);
  }

  /**
   * The pod {@code uid} is gone. Returns true when it is a victim some hold waits for: its vNPUs
   * stay charged until the hold's other victims are gone too (the caller must not release them). A
   * preemptor that is gone loses its holds.
   */
  boolean removed(String uid) {
    drop(uid);
    evicting.remove(uid);
    List<Hold> awaiting =
        waiting.values().stream()
            .flatMap(byNode -> byNode.values().stream())
            .filter(hold -> hold.victims().contains(uid))
            .toList();
    if (awaiting.isEmpty()) {
      return false;
    }
    gone.add(uid);
    retry();
    return true;
  }

  /**
   * Charges the place of every hold whose victims are all gone, where it fits now. Called as the
   * cluster changes: a node's hand-outs settled, a pod gone, at each expiry pass.
   */
  void retry() {
    List<Hold> ready =
        waiting.values().stream()
            .flatMap(byNode -> byNode.values().stream())
            .filter(hold -> gone.containsAll(hold.victims()))
            .toList();
    for (Hold hold : ready) {
      if (waiting.containsKey(hold.preemptor())) {
        charge(hold);
      }
    }
  }

  /**
   * A scheduler evicts the pod {@code uid} (Volcano's {@code Statement.Evict}), which it had only
   * asked about as a victim: it is leaving, though still charged until it is gone.
   */
  void evicting(String uid) {
    boolean awaited =
        waiting.values().stream()
            .flatMap(byNode -> byNode.values().stream())
            .anyMatch(hold -> hold.victims().contains(uid));
    if (awaited) {
      evicting.add(uid);
    }
  }

  /**
   * Whether the place held for the pod {@code uid} on {@code node} is coming: charged already, or
   * every victim of its hold there is gone or being evicted. A victim only named, never evicted
   * (Volcano 1.14 asks which pods are preemptable, then evicts none when the node's resources
   * suffice in sum), makes no room.
   */
  boolean coming(String uid, String node) {
    if (held(uid).filter(plan -> plan.node().equals(node)).isPresent()) {
      return true;
    }
    Hold hold = waiting.getOrDefault(uid, Map.of()).get(node);
    return hold != null
        && hold.victims().stream().allMatch(v -> gone.contains(v) || evicting.contains(v));
  }

  /** The preemptor {@code uid} was placed (or is gone): its held place and holds go. */
  void drop(String uid) {
    waiting.remove(uid);
    if (charged.remove(uid) != null) {
      ledger.release(ChargeKey.preemptorPlace(uid).ledgerKey());
    }
    releaseGoneVictims();
  }

  /** Ends the holds and held places whose time ran out before {@code now}. */
  void expire(Instant now) {
    for (String preemptor : List.copyOf(waiting.keySet())) {
      Map<String, Hold> byNode = waiting.get(preemptor);
      byNode.values().removeIf(hold -> hold.expiresAt().isBefore(now));
      if (byNode.isEmpty()) {
        waiting.remove(preemptor);
        LOG.info("the place held for pod UID {} expired before its victims were gone", preemptor);
      }
    }
    for (Map.Entry<String, Instant> held : List.copyOf(charged.entrySet())) {
      if (held.getValue().isBefore(now)) {
        charged.remove(held.getKey());
        ledger.release(ChargeKey.preemptorPlace(held.getKey()).ledgerKey());
        LOG.info("the place held for pod UID {} expired before it was placed", held.getKey());
      }
    }
    releaseGoneVictims();
    retry();
  }

  /**
   * How the pod {@code uid} sees a node, its own held place read once for all the nodes it is
   * weighed on: with its own held place there free; and, where another preemptor's victims are
   * still going, as it will be when they are gone, the victims' room and the rest of that
   * preemptor's place taken. Charging the victims alone kept only their chips: kube-scheduler
   * placed other pods on the node's free chips the place also needs.
   */
  UnaryOperator<NodeState> sightOf(String uid) {
    Optional<AllocationPlan> own = held(uid);
    return node -> {
      NodeState seen =
          own.filter(plan -> plan.node().equals(node.name()))
              .map(plan -> Ledger.without(node, plan))
              .orElse(node);
      for (Map.Entry<String, Map<String, Hold>> holds : waiting.entrySet()) {
        Hold hold = holds.getValue().get(node.name());
        if (hold != null && !holds.getKey().equals(uid)) {
          // Where the place does not fit yet, the victims' charges are what keeps the room.
          seen = Ledger.with(withoutVictims(hold, seen), place(hold)).orElse(seen);
        }
      }
      return seen;
    };
  }

  private static AllocationPlan place(Hold hold) {
    return new AllocationPlan(
        hold.plan().allocation().forPod(ChargeKey.preemptorPlace(hold.preemptor()).ledgerKey()),
        hold.plan().host());
  }

  /**
   * {@code node} as releasing the hold's victims leaves it: without the vNPUs they are charged
   * there, except those a hand-out record still charges once they are released.
   */
  private NodeState withoutVictims(Hold hold, NodeState node) {
    NodeState seen = node;
    for (String victim : hold.victims()) {
      if (chargedOnRelease.test(victim)) {
        continue;
      }
      AllocationPlan charge = ledger.placements().get(victim);
      if (charge != null && charge.node().equals(seen.name())) {
        seen = Ledger.without(seen, charge);
      }
    }
    return seen;
  }

  /** The place charged for the preemptor {@code uid}, if its victims are gone. */
  Optional<AllocationPlan> held(String uid) {
    return Optional.ofNullable(ledger.placements().get(ChargeKey.preemptorPlace(uid).ledgerKey()));
  }

  /**
   * Every victim is gone: once the place fits the node without them, they are released and the
   * preemptor's place charged in their stead. Until then the victims stay charged and the hold
   * waits ({@link #retry}, until it expires): the node may still charge what they held there (their
   * hand-out records, which the device plugin clears a moment after the pods are gone), and
   * releasing them would let other pods take the room made for the preemptor. The check sees the
   * node as the release leaves it, records included, so the charge that follows it never fails.
   */
  private void charge(Hold hold) {
    AllocationPlan place = place(hold);
    if (!fitsWithoutVictims(hold, place)) {
      if (waitingLogged.add(hold.preemptor())) {
        LOG.info(
            "pod UID {}: node {} has no room for its held place yet; its {} victim(s) stay"
                + " charged until it has",
            hold.preemptor(),
            hold.plan().node(),
            hold.victims().size());
      }
      return;
    }
    waiting.remove(hold.preemptor());
    waitingLogged.remove(hold.preemptor());
    hold.victims().forEach(gone::remove);
    hold.victims().forEach(release);
    releaseGoneVictims();
    if (ledger.apply(place)) {
      charged.put(hold.preemptor(), hold.expiresAt());
      LOG.info(
          "pod UID {}: its place on node {} is held for it ({} victim(s) gone)",
          hold.preemptor(),
          hold.plan().node(),
          hold.victims().size());
    } else {
      LOG.warn(
          "pod UID {}: node {} changed; its place is not held",
          hold.preemptor(),
          hold.plan().node());
    }
  }

  /** Whether {@code place} fits its node once the hold's victims are released. */
  private boolean fitsWithoutVictims(Hold hold, AllocationPlan place) {
    return ledger
        .node(hold.plan().node())
        .flatMap(node -> Ledger.with(withoutVictims(hold, node), place))
        .isPresent();
  }

  /** Releases the victims that are gone and that no hold waits for any more. */
  private void releaseGoneVictims() {
    Set<String> awaited = new HashSet<>();
    waiting.values().forEach(byNode -> byNode.values().forEach(h -> awaited.addAll(h.victims())));
    evicting.retainAll(awaited);
    for (String uid : new ArrayList<>(gone)) {
      if (!awaited.contains(uid)) {
        gone.remove(uid);
        release.accept(uid);
      }
    }
  }
}
