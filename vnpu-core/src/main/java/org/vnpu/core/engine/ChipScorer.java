package org.vnpu.core.engine;

/**
 * A device-level policy: how much a vNPU prefers a chip (higher first; the first chip wins ties).
 */
@FunctionalInterface
public interface ChipScorer {

  double score(ChipCandidate candidate, PlacementContext context);
}
