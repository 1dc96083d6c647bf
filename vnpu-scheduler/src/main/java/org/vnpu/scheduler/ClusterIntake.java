package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.codec.MalformedPayloadException;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.SignedAllocation;
import org.vnpu.api.signing.AllocationVerifier;

/**
 * What the informers deliver, into the scheduler's state: signatures are verified outside its lock
 * (verifying may read the public keys from the API server), and what verifies is applied inside it.
 * A record or allocation that fails is logged and not charged.
 */
final class ClusterIntake {

  private static final Logger LOG = LoggerFactory.getLogger(ClusterIntake.class);

  private final SchedulerState state;
  private final ClusterView cluster;
  private final AllocationVerifier verifier;
  private final PayloadCodec codec;
  private final ClusterPort writes;

  ClusterIntake(
      SchedulerState state, AllocationVerifier verifier, PayloadCodec codec, ClusterPort writes) {
    this.state = state;
    this.cluster = state.cluster();
    this.verifier = verifier;
    this.codec = codec;
    this.writes = writes;
  }

  /** A node appeared or changed: its inventory and heartbeat. */
  void nodeChanged(Node changed) {
    NodeSeen node = Fabric8Views.seen(changed);
    synchronized (state) {
      cluster.nodeChanged(node);
      cluster.holds().retry(); // its inventory changed: a held place may fit now
    }
  }

  /** A node's lock Lease appeared or changed: {@code locks}, its entries and hand-outs, decoded. */
  void locksChanged(String node, NodeLockSet locks) {
    List<HandoutCharges.Verified> verified = new ArrayList<>();
    for (HandoutRecord record : locks.handouts()) {
      verifiedHandout(node, record).ifPresent(verified::add);
    }
    synchronized (state) {
      cluster.locksChanged(node, locks, verified);
      cluster.holds().retry(); // its hand-outs settled: a held place may fit now
    }
  }

  /** A node's lock Lease was deleted. */
  void locksRemoved(String node) {
    synchronized (state) {
      cluster.locksRemoved(node);
      cluster.holds().retry();
    }
  }

  /**
   * The record's allocation, when it is signed by this scheduler for the pod and node the record
   * names, with the record's nonce.
   */
  private Optional<HandoutCharges.Verified> verifiedHandout(String node, HandoutRecord record) {
    try {
      SignedAllocation signed = codec.decodeAllocation(record.allocation());
      if (signed.nonce().equals(record.nonce())
          && verifier.verifiesFor(signed, record.signedFor().uid(), node)) {
        return Optional.of(new HandoutCharges.Verified(record, signed));
      }
    } catch (MalformedPayloadException e) {
      LOG.warn("node {}: hand-out {}: {}", node, record.nonce(), e.getMessage());
      return Optional.empty();
    }
    LOG.warn(
        "node {}: hand-out {} names an allocation not signed for pod {} there; ignored",
        node,
        record.nonce(),
        record.signedFor());
    return Optional.empty();
  }

  void nodeRemoved(String name) {
    synchronized (state) {
      cluster.nodeRemoved(name);
    }
  }

  /** A pod appeared or changed: its signed allocation is charged until it finishes. */
  void podChanged(Pod changed) {
    PodSeen pod = Fabric8Views.seen(changed);
    Optional<SignedAllocation> uncharged;
    synchronized (state) {
      uncharged = cluster.unchargedAllocation(pod);
    }
    Optional<SignedAllocation> verified =
        uncharged
            .filter(signed -> signed.allocation().podUid().equals(pod.uid()))
            .filter(verifier::verifies);
    if (uncharged.isPresent() && verified.isEmpty()) {
      LOG.warn(
          "pod {}/{}: ignoring an allocation whose signature does not verify",
          pod.manifest().namespace(),
          pod.manifest().name());
    }
    synchronized (state) {
      cluster.podChanged(pod, verified);
    }
  }

  /**
   * A pod is gone: its vNPUs and, if it still held its node's lock, the lock ({@link
   * NodeLocks#releaseDeleted}: an entry that may stand for a waiting pod of its shape stays, and
   * can hand out nothing, as its pod's annotations are gone). A preemption's victim keeps its vNPUs
   * charged until the other victims are gone too (docs/colocation.md).
   */
  void podRemoved(String uid) {
    Optional<String> locked;
    synchronized (state) {
      cluster.podDeleted(uid);
      if (cluster.holds().removed(uid)) {
        return;
      }
      locked = cluster.lockedBy(uid);
      cluster.forget(uid);
      cluster.holds().retry(); // room it held may be what a held place waits for
    }
    locked.ifPresent(node -> writes.unlockDeleted(node, uid));
  }
}
