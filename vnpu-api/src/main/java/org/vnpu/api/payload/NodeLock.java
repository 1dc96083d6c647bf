package org.vnpu.api.payload;

import java.time.Instant;
import java.util.List;

/**
 * One pod's reservation on a node, one entry of the node's {@link NodeLockSet}, under {@code
 * huawei.com/vnpu-node-lock.<pod UID>}: the device plugin hands the pod's vNPUs only while it
 * stands.
 *
 * @param podUid UID of the pod being allocated
 * @param podNamespace namespace of that pod, for humans and logs
 * @param podName name of that pod, for humans and logs
 * @param acquiredAt when the scheduler took the lock
 * @param expiresAt after this instant the entry is void and may be dropped
 * @param nonce names the reservation; the pod's signed allocation must carry the same nonce
 * @param shape digest of the pod's vNPU request (every container's count, cores, memory, types,
 *     policy and the pod's options); pods with equal shapes are interchangeable at Allocate
 * @param counts the distinct vNPU counts of the pod's vNPU containers, ascending: what the
 *     kubelet's Allocate calls for this pod ask for
 * @param handedOut how many of the pod's vNPU containers the device plugin has handed out; more
 *     than 0 means the kubelet is admitting this pod now
 */
public record NodeLock(
    String podUid,
    String podNamespace,
    String podName,
    Instant acquiredAt,
    Instant expiresAt,
    String nonce,
    String shape,
    List<Integer> counts,
    int handedOut) {

  public NodeLock {
    Checks.text(podUid, "podUid");
    Checks.text(nonce, "nonce");
    Checks.text(podNamespace, "podNamespace");
    Checks.text(podName, "podName");
    Checks.present(acquiredAt, "acquiredAt");
    Checks.present(expiresAt, "expiresAt");
    Checks.text(shape, "shape");
    counts = Checks.list(counts, "counts");
    if (counts.isEmpty()) {
      throw new IllegalArgumentException("counts must name at least one vNPU count");
    }
    for (int i = 0; i < counts.size(); i++) {
      Checks.range(counts.get(i), 1, 1024, "counts[]");
      if (i > 0 && counts.get(i) <= counts.get(i - 1)) {
        throw new IllegalArgumentException(
            "counts must be distinct and ascending, found " + counts);
      }
    }
    Checks.range(handedOut, 0, 1024, "handedOut");
    if (!expiresAt.isAfter(acquiredAt)) {
      throw new IllegalArgumentException(
          "expiresAt " + expiresAt + " must be after acquiredAt " + acquiredAt);
    }
  }

  /** Whether the entry no longer holds at {@code now}. */
  public boolean isExpiredAt(Instant now) {
    return !now.isBefore(expiresAt);
  }

  /** Whether the kubelet has started this pod's Allocate calls. */
  public boolean started() {
    return handedOut > 0;
  }

  /** This entry after one more of the pod's containers was handed out. */
  public NodeLock afterHandout() {
    return new NodeLock(
        podUid, podNamespace, podName, acquiredAt, expiresAt, nonce, shape, counts, handedOut + 1);
  }

  /**
   * Whether this pod and {@code other} may be reserved on one node at once, so that every Allocate
   * call still names its pod or a pod interchangeable with it: the same pod, the same shape (either
   * may run on the other's allocation), or no vNPU count in common (a call's count tells them
   * apart).
   */
  public boolean mayShareNodeWith(NodeLock other) {
    return mayShareNodeWith(other.podUid, other.shape, other.counts);
  }

  /** {@link #mayShareNodeWith(NodeLock)} for a pod not reserved yet. */
  public boolean mayShareNodeWith(String otherUid, String otherShape, List<Integer> otherCounts) {
    return podUid.equals(otherUid)
        || shape.equals(otherShape)
        || counts.stream().noneMatch(otherCounts::contains);
  }

  /** Whether an Allocate call for {@code count} vNPUs may be this pod's. */
  public boolean serves(int count) {
    return counts.contains(count);
  }
}
