package org.vnpu.api.payload;

import java.util.Objects;

/**
 * An allocation with its signature, as carried under {@code huawei.com/vnpu-ids-new}.
 *
 * @param allocation what was decided
 * @param nonce names the reservation it was decided for; the node lock of that reservation carries
 *     the same nonce, so an older allocation of the same pod and node is refused
 * @param keyId the key it was signed with
 * @param signature base64 Ed25519 signature over the allocation's canonical form and the nonce
 */
public record SignedAllocation(
    PodAllocation allocation, String nonce, String keyId, String signature) {

  public SignedAllocation {
    Objects.requireNonNull(allocation, "allocation");
    Objects.requireNonNull(nonce, "nonce");
    Objects.requireNonNull(keyId, "keyId");
    Objects.requireNonNull(signature, "signature");
  }
}
