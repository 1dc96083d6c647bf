package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.BindPhase;
import org.vnpu.api.codec.MalformedPayloadException;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.PendingContainers;
import org.vnpu.api.payload.PodRef;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;

/**
 * Settles the hand-outs whose holder the device plugins found (ADR 0013): the pod that runs on an
 * allocation signed for an interchangeable pod gets that allocation signed for itself, and that pod
 * gets the holder's former allocation, so that every pod's annotations name the chips it runs on.
 * Each record is settled only when neither pod's annotations can still be read by an Allocate;
 * every step can be repeated after a crash, and the record goes last.
 */
final class HandoutSettlement {

  private static final Logger LOG = LoggerFactory.getLogger(HandoutSettlement.class);

  private final SchedulerState state;
  private final ClusterPort cluster;
  private final PayloadCodec codec;
  private final AllocationSigner signer;
  private final AllocationVerifier verifier;

  HandoutSettlement(
      SchedulerState state,
      ClusterPort cluster,
      PayloadCodec codec,
      AllocationSigner signer,
      AllocationVerifier verifier) {
    this.state = state;
    this.cluster = cluster;
    this.codec = codec;
    this.signer = signer;
    this.verifier = verifier;
  }

  /** One pass over the records ready to settle; one that fails is tried again next pass. */
  void settle() {
    List<HandoutRecord> ready;
    synchronized (state) {
      ready = state.cluster().settleable(state.clock().instant());
    }
    for (HandoutRecord record : ready) {
      try {
        settle(record);
      } catch (RuntimeException e) {
        LOG.warn("cannot settle hand-out {} yet: {}", record.nonce(), e.toString());
      }
    }
  }

  private void settle(HandoutRecord record) {
    SignedAllocation handedOut = codec.decodeAllocation(record.allocation());
    String node = handedOut.allocation().node();
    Optional<Pod> holding = current(record.heldBy());
    if (holding.isEmpty()) {
      cluster.settled(node, record.nonce()); // the holder is gone: nothing runs on it any more
      return;
    }
    Map<String, String> held = annotations(holding.get());
    // Pod annotations are their owners' to edit: only what this scheduler signed for that pod on
    // this node is re-signed for another pod, or charged.
    Optional<SignedAllocation> former = allocationOf(held, record.heldBy().uid(), node);
    List<ClusterView.Recharge> recharges = new ArrayList<>();
    boolean traded = former.isEmpty() || former.get().nonce().equals(record.nonce());
    Optional<PodRef> charged;
    synchronized (state) {
      charged = state.cluster().carrier(node, record.nonce());
    }
    for (PodRef candidate : carriers(record, charged)) {
      Optional<Pod> pod = current(candidate);
      if (pod.isEmpty()) {
        continue;
      }
      Optional<SignedAllocation> owned =
          allocationOf(annotations(pod.get()), candidate.uid(), node);
      // The ledger's carrier carries the reservation whatever its owner wrote over it since.
      boolean carries =
          owned
              .map(allocation -> allocation.nonce().equals(record.nonce()))
              .orElse(charged.filter(ref -> ref.uid().equals(candidate.uid())).isPresent());
      if (!traded && carries) {
        owned = Optional.of(trade(former.get(), held, candidate, record.heldBy()));
        traded = true;
      }
      owned.ifPresent(allocation -> recharges.add(new ClusterView.Recharge(candidate, allocation)));
    }
    SignedAllocation mine = holderAllocation(record, handedOut, former);
    recharges.add(new ClusterView.Recharge(record.heldBy(), mine));
    // The ledger follows the annotations as they are now, whatever an earlier attempt left.
    synchronized (state) {
      state.cluster().recharged(recharges);
    }
    cluster.settled(node, record.nonce());
  }

  /**
   * What the holder keeps: its {@code former} allocation when that is the hand-out's reservation,
   * else the handed-out allocation signed again for it and written on it, as settled.
   */
  private SignedAllocation holderAllocation(
      HandoutRecord record, SignedAllocation handedOut, Optional<SignedAllocation> former) {
    SignedAllocation mine = former.orElse(null);
    if (mine == null || !mine.nonce().equals(record.nonce())) {
      mine = resign(handedOut, record.heldBy().uid());
      cluster.annotate(
          record.heldBy().namespace(),
          record.heldBy().name(),
          Map.of(
              AnnotationKeys.ALLOCATION,
              codec.encodeAllocation(mine),
              AnnotationKeys.DEVICES_TO_ALLOCATE,
              codec.encodePending(new PendingContainers(List.of())),
              AnnotationKeys.BIND_PHASE,
              BindPhase.SUCCESS.wireName()));
      LOG.info(
          "pod {} runs on the vNPUs reserved for pod {} (interchangeable): re-signed for it",
          record.heldBy(),
          record.signedFor());
    }
    return mine;
  }

  /**
   * The pod that carries the hand-out's reservation takes what its holder carries, {@code former}
   * with the holder's {@code held} annotations: a trade, so that no two pods ever name one
   * reservation. Returns the allocation now signed for {@code carrier}.
   */
  private SignedAllocation trade(
      SignedAllocation former, Map<String, String> held, PodRef carrier, PodRef holder) {
    SignedAllocation owned = resign(former, carrier.uid());
    Map<String, String> values = new HashMap<>();
    values.put(AnnotationKeys.ALLOCATION, codec.encodeAllocation(owned));
    values.put(AnnotationKeys.DEVICES_TO_ALLOCATE, held.get(AnnotationKeys.DEVICES_TO_ALLOCATE));
    values.put(AnnotationKeys.BIND_PHASE, held.get(AnnotationKeys.BIND_PHASE));
    cluster.annotate(carrier.namespace(), carrier.name(), values);
    LOG.info(
        "pod {} takes the reservation of pod {}, which runs on the vNPUs reserved for it",
        carrier,
        holder);
    return owned;
  }

  /**
   * The pods other than its holder that may carry a hand-out's reservation: the pod it was signed
   * for, and {@code charged}, the pod the ledger charges with it, which differs after earlier
   * trades of a chain (c admitted on a's reservation, a on b's, b on c's, settled in any order).
   */
  private static List<PodRef> carriers(HandoutRecord record, Optional<PodRef> charged) {
    Set<PodRef> candidates = new LinkedHashSet<>();
    candidates.add(record.signedFor());
    charged.ifPresent(candidates::add);
    candidates.removeIf(pod -> pod.uid().equals(record.heldBy().uid()));
    return List.copyOf(candidates);
  }

  /** The pod {@code ref} names, if it still exists with that UID. */
  private Optional<Pod> current(PodRef ref) {
    return cluster
        .pod(ref.namespace(), ref.name())
        .filter(pod -> ref.uid().equals(pod.getMetadata().getUid()));
  }

  /**
   * The signed allocation in {@code annotations}, if it reads, is for the pod {@code uid} on {@code
   * node} and its signature verifies; a forged or edited one is none.
   */
  private Optional<SignedAllocation> allocationOf(
      Map<String, String> annotations, String uid, String node) {
    String value = annotations.get(AnnotationKeys.ALLOCATION);
    try {
      return Optional.ofNullable(value)
          .map(codec::decodeAllocation)
          .filter(signed -> verifier.verifiesFor(signed, uid, node));
    } catch (MalformedPayloadException e) {
      return Optional.empty();
    }
  }

  /** {@code signed}'s allocation signed again for the pod {@code uid}, same node and nonce. */
  private SignedAllocation resign(SignedAllocation signed, String uid) {
    return signer.sign(signed.allocation().forPod(uid), signed.nonce());
  }

  private static Map<String, String> annotations(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    return annotations == null ? Map.of() : annotations;
  }
}
