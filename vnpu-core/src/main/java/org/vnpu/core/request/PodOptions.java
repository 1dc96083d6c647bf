package org.vnpu.core.request;

import org.vnpu.api.AiCpuLevel;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.OfflineWork;

/**
 * The pod-wide choices its annotations make, defaults applied.
 *
 * @param mode split mode the pod needs (soft by default)
 * @param aiCpuLevel template family for hard mode (low by default)
 * @param nodePolicy how to choose among nodes (fragmentation-aware by default, ADR 0004)
 * @param devicePolicy how to choose among a node's chips (fragmentation-aware by default)
 * @param dieId the die ID every vNPU must use; null for any
 * @param offline how the pod runs as offline work; null for an online pod (docs/colocation.md)
 */
public record PodOptions(
    SplitMode mode,
    AiCpuLevel aiCpuLevel,
    PlacementPolicy nodePolicy,
    PlacementPolicy devicePolicy,
    String dieId,
    OfflineWork offline) {

  /**
   * An offline pod's cap on kernels in flight when it names none: one, so that an online container
   * waits for at most one offline kernel.
   */
  public static final OfflineWork DEFAULT_OFFLINE = new OfflineWork(1);

  /** The options of a pod without vNPU annotations. */
  public static PodOptions defaults() {
    return new PodOptions(
        SplitMode.SOFT,
        AiCpuLevel.LOW,
        PlacementPolicy.FRAGMENTATION_AWARE,
        PlacementPolicy.FRAGMENTATION_AWARE,
        null,
        null);
  }

  /** These options with other placement policies (a cluster's defaults). */
  public PodOptions withPolicies(PlacementPolicy node, PlacementPolicy device) {
    return new PodOptions(mode, aiCpuLevel, node, device, dieId, offline);
  }
}
