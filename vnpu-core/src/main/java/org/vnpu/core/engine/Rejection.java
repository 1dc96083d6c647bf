package org.vnpu.core.engine;

/**
 * Why one node cannot take a pod.
 *
 * @param kind the reason
 * @param detail the reason's subject where it has one (a split mode, a chip type, a die ID)
 * @param need what the pod needs, in the reason's unit (MiB, percent, chips); 0 when none
 * @param have the best the node offers, in the same unit; 0 when none
 */
public record Rejection(RejectKind kind, String detail, long need, long have) {

  public static Rejection of(RejectKind kind) {
    return new Rejection(kind, "", 0, 0);
  }

  public static Rejection of(RejectKind kind, String detail) {
    return new Rejection(kind, detail, 0, 0);
  }

  public static Rejection of(RejectKind kind, long need, long have) {
    return new Rejection(kind, "", need, have);
  }

  /**
   * The reason as a phrase, e.g. {@code not enough device memory (need 8 GiB, largest free 6 GiB)}.
   */
  public String phrase() {
    return switch (kind) {
      case STALE_HEARTBEAT -> "device plugin heartbeat is stale";
      case LOCKED -> "node is locked by another pod's allocation";
      case MODE_MISMATCH -> "split mode is " + detail;
      case NOT_ENOUGH_HOST_CPU -> "not enough host CPU";
      case NOT_ENOUGH_HOST_MEMORY -> "not enough host memory";
      case CHIP_TYPE_NOT_FOUND -> "no chip of type " + detail;
      case DIE_ID_NOT_FOUND -> "no chip with die ID " + detail;
      case UNHEALTHY -> "the matching chips are unhealthy";
      case NO_TEMPLATE_FITS -> "no hard-mode template fits (" + detail + ")";
      case NO_IDLE_CHIP -> "no idle chip for a whole card";
      case SHARES_EXHAUSTED -> "share slots exhausted (" + have + " per chip)";
      case NOT_ENOUGH_MEMORY ->
          "not enough device memory (need " + gib(need) + ", largest free " + gib(have) + ")";
      case NOT_ENOUGH_CORES ->
          "not enough AI Core (need " + need + "%, largest free " + have + "%)";
      case NOT_ENOUGH_CHIPS -> "not enough chips (need " + need + ", found " + have + ")";
    };
  }

  /** {@code mebibytes} as GiB, e.g. {@code 8 GiB} or {@code 7.5 GiB}. */
  static String gib(long mebibytes) {
    return mebibytes % 1024 == 0
        ? mebibytes / 1024 + " GiB"
        : String.format(java.util.Locale.ROOT, "%.1f GiB", mebibytes / 1024.0);
  }
}
