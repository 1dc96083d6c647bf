package org.vnpu.api.payload;

import java.time.Instant;
import java.util.List;

/**
 * An allocation the device plugin handed out while pods of the same shape were reserved on the node
 * with it, so that the pod the kubelet was admitting may be another one than the pod it was signed
 * for. It stays on the node's locks until the pod that holds it names it: the device plugin learns
 * the holder from the kubelet's PodResources API ({@link #heldBy}), the scheduler then re-signs the
 * two pods' allocations and removes the record. While it stands the scheduler keeps the allocation
 * charged, so no chip is under-counted while its pod's name is unknown.
 *
 * @param nonce the reservation handed out; the allocation carries it
 * @param shape the {@link NodeLock#shape} of the pod it was signed for
 * @param signedFor the pod the allocation was signed for
 * @param allocation the signed allocation as that pod's {@code huawei.com/vnpu-ids-new} carried it
 * @param container the last container handed out
 * @param deviceIds the device IDs the kubelet sent for that container, sorted
 * @param at when it was handed out
 * @param heldBy the pod the kubelet gave those device IDs; null until known
 */
public record HandoutRecord(
    String nonce,
    String shape,
    PodRef signedFor,
    String allocation,
    String container,
    List<String> deviceIds,
    Instant at,
    PodRef heldBy) {

  public HandoutRecord {
    Checks.text(nonce, "nonce");
    Checks.text(shape, "shape");
    Checks.present(signedFor, "signedFor");
    Checks.text(allocation, "allocation");
    Checks.text(container, "container");
    deviceIds = Checks.list(deviceIds, "deviceIds");
    Checks.present(at, "at");
  }

  /** This record with its holder known. */
  public HandoutRecord heldBy(PodRef holder) {
    return new HandoutRecord(nonce, shape, signedFor, allocation, container, deviceIds, at, holder);
  }
}
