package org.vnpu.core.engine;

import java.time.Duration;
import java.time.Instant;
import org.vnpu.core.fragmentation.FragmentationMeter;

/**
 * Everything a decision depends on besides the snapshot and the request.
 *
 * @param now the instant of the decision (the engine reads no clock)
 * @param heartbeatTolerance a node whose device plugin last reported earlier than {@code now} minus
 *     this is not schedulable
 * @param scorers the policies pods may name
 * @param fragmentation the fragmentation meter for the recent mix of request shapes
 */
public record PlacementContext(
    Instant now,
    Duration heartbeatTolerance,
    ScorerRegistry scorers,
    FragmentationMeter fragmentation) {

  /** This context with other policies. */
  public PlacementContext withScorers(ScorerRegistry registry) {
    return new PlacementContext(now, heartbeatTolerance, registry, fragmentation);
  }
}
