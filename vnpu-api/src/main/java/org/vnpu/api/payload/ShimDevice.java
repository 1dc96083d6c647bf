package org.vnpu.api.payload;

import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.ShimContract;

/**
 * One shared chip as the runtime shim sees it: the container's {@code ordinal}-th visible device.
 *
 * @param dieId die ID of the chip, names its shared region
 * @param memoryBytes device-memory quota of the container on this chip, exact
 * @param cores AI Core percent guaranteed (0 for best-effort)
 * @param policy how the AI Core share is enforced
 * @param region the chip's region file inside the container
 */
public record ShimDevice(
    String dieId, long memoryBytes, int cores, AiCorePolicy policy, String region) {

  /** The shim's view of a soft share the scheduler assigned; its region is the chip's. */
  public static ShimDevice of(VnpuAssignment vnpu) {
    return new ShimDevice(
        vnpu.dieId(),
        vnpu.memoryMiB() << 20,
        vnpu.cores(),
        vnpu.policy(),
        ShimContract.chipRegion(vnpu.dieId()));
  }

  public ShimDevice {
    Checks.text(dieId, "dieId");
    Checks.range(memoryBytes, 1, Long.MAX_VALUE, "memoryBytes");
    Checks.range(cores, 0, 100, "cores");
    Checks.present(policy, "policy");
    Checks.text(region, "region");
  }
}
