package org.vnpu.api.payload;

/**
 * What makes a pod's vNPUs offline work (docs/colocation.md): they run in the time online work
 * leaves idle and give the chip up at their next kernel launch when online work wants it.
 *
 * @param maxKernelsInFlight the most kernels each of its streams may have queued on the chip (0: no
 *     cap); an online container waits at most for these, so a cap bounds its worst wait
 */
public record OfflineWork(int maxKernelsInFlight) {

  /** The shim's limit (VNPU_MAX_KERNELS_IN_FLIGHT in libvnpu/src/config.h). */
  public static final int MAX_KERNELS_IN_FLIGHT = 16;

  /** Offline work without a cap: it waits for nothing but the online notice. */
  public static final OfflineWork UNCAPPED = new OfflineWork(0);

  public OfflineWork {
    Checks.range(maxKernelsInFlight, 0, MAX_KERNELS_IN_FLIGHT, "maxKernelsInFlight");
  }
}
