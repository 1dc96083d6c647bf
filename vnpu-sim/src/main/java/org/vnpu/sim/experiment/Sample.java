package org.vnpu.sim.experiment;

/**
 * The cluster after one arrival.
 *
 * @param arrivals pods arrived so far
 * @param arrivedPercent their total request, in % of cluster compute capacity
 * @param allocatedPercent compute allocated, in % of capacity
 * @param fragmentationPercent fragmented free compute (FGD measure), in % of capacity
 * @param failed pods that could not be placed so far
 */
public record Sample(
    int arrivals,
    double arrivedPercent,
    double allocatedPercent,
    double fragmentationPercent,
    int failed) {}
