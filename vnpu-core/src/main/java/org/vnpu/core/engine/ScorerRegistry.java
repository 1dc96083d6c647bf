package org.vnpu.core.engine;

import org.vnpu.core.request.PodOptions;

/** Which scorers a pod's node-level and chip-level policies name. */
public interface ScorerRegistry {

  Scorer nodeScorer(PodOptions options);

  Scorer deviceScorer(PodOptions options);
}
