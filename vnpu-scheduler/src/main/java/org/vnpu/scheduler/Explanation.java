package org.vnpu.scheduler;

import java.util.Map;
import org.vnpu.core.engine.Remedy;

/**
 * How the filter judges a pod on each node, and for each node that refuses it what would make it
 * fit ({@link Remedy}); unlike a filter it records nothing: no event, no metric.
 *
 * @param verdicts per node, as the filter answers
 * @param unschedulable the sentence of the pod's {@code VnpuUnschedulable} event; null when some
 *     node fits
 * @param remedies per refusing node with a vNPU inventory
 */
public record Explanation(
    Map<String, Verdict> verdicts, String unschedulable, Map<String, Remedy> remedies) {}
