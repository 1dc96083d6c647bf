package org.vnpu.core.engine;

import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.NodeTable;
import org.vnpu.core.ledger.VnpuFit;

/**
 * What any plan of one pod on one node does at least and at most, worked out without planning: a
 * node scorer turns it into a score no plan on the node can beat ({@link NodeScorer#bound}), so
 * that the engine plans only nodes that could beat the best plan found so far.
 *
 * @param nodes the table the node is read from, in columns where a bound can
 * @param row the node's row in {@code nodes}
 * @param hostAfter the node's free host resources with the pod placed
 * @param utilizationBefore the node's mean chip utilization, 0..100
 * @param minUtilizationGain the least the plan raises the node's mean chip utilization
 * @param maxUtilizationGain the most the plan raises the node's mean chip utilization
 * @param maxComputeTaken the most free compute the plan takes, in percent of one chip, summed
 * @param onlyVnpuFits for a pod of one vNPU, whether a chip of a node could take it; null for
 *     several
 */
public record PlanLimits(
    NodeTable nodes,
    int row,
    HostResources hostAfter,
    double utilizationBefore,
    double minUtilizationGain,
    double maxUtilizationGain,
    double maxComputeTaken,
    VnpuFit onlyVnpuFits) {}
