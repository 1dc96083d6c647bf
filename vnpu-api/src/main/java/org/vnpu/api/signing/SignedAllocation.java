package org.vnpu.api.signing;

import java.util.Objects;
import org.vnpu.api.payload.PodAllocation;

/**
 * An allocation with its signature, as carried under {@code huawei.com/vnpu-ids-new}.
 *
 * @param allocation what was decided
 * @param signature base64 HMAC-SHA256 over the allocation's canonical form
 */
public record SignedAllocation(PodAllocation allocation, String signature) {

  public SignedAllocation {
    Objects.requireNonNull(allocation, "allocation");
    Objects.requireNonNull(signature, "signature");
  }
}
