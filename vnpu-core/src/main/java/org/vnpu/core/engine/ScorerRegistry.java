package org.vnpu.core.engine;

import org.vnpu.core.request.PodOptions;

/**
 * Which scorers a pod's node-level and chip-level policies name; the built-in registry is {@code
 * org.vnpu.core.policy.Policies}.
 */
public interface ScorerRegistry {

  NodeScorer nodeScorer(PodOptions options);

  ChipScorer chipScorer(PodOptions options);
}
