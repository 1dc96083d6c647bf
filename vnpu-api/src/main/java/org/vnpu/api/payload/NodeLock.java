package org.vnpu.api.payload;

import java.time.Instant;

/**
 * The lock that serialises allocations on one node, under {@code huawei.com/vnpu-node-lock}. The
 * device plugin hands devices only to the pod the lock names.
 *
 * @param podUid UID of the pod being allocated
 * @param podNamespace namespace of that pod, for humans and logs
 * @param podName name of that pod, for humans and logs
 * @param acquiredAt when the scheduler took the lock
 * @param expiresAt after this instant the lock is void and may be taken over
 * @param nonce names the reservation; the pod's signed allocation must carry the same nonce
 */
public record NodeLock(
    String podUid,
    String podNamespace,
    String podName,
    Instant acquiredAt,
    Instant expiresAt,
    String nonce) {

  public NodeLock {
    Checks.text(podUid, "podUid");
    Checks.text(nonce, "nonce");
    Checks.text(podNamespace, "podNamespace");
    Checks.text(podName, "podName");
    Checks.present(acquiredAt, "acquiredAt");
    Checks.present(expiresAt, "expiresAt");
    if (!expiresAt.isAfter(acquiredAt)) {
      throw new IllegalArgumentException(
          "expiresAt " + expiresAt + " must be after acquiredAt " + acquiredAt);
    }
  }

  /** Whether the lock no longer holds at {@code now}. */
  public boolean isExpiredAt(Instant now) {
    return !now.isBefore(expiresAt);
  }
}
