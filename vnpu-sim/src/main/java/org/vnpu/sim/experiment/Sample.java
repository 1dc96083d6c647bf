package org.vnpu.sim.experiment;

/**
 * The cluster after one arrival.
 *
 * @param arrivals pods arrived so far
 * @param arrivedPercent their total request, in % of cluster compute capacity
 * @param allocatedPercent compute allocated, in % of capacity
 * @param fragmentationPercent fragmented free compute (FGD measure), in % of capacity
 * @param failed pods that could not be placed so far
 * @param migrations pods moved so far by rebalancing
 * @param hottestNodePercent allocated AI Core of the fullest node, in % of its chips
 * @param coolestNodePercent allocated AI Core of the emptiest node, in % of its chips
 */
public record Sample(
    int arrivals,
    double arrivedPercent,
    double allocatedPercent,
    double fragmentationPercent,
    int failed,
    int migrations,
    double hottestNodePercent,
    double coolestNodePercent) {}
