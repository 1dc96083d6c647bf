package org.vnpu.cluster;

import java.time.Duration;

/**
 * How well the benchmark's stand-ins for the nodes' kubelets and device plugins kept up: when they
 * fall behind, a row measures them rather than the schedulers.
 *
 * @param writeFailures their writes (Lease renewals, inventories, released lock entries) that
 *     failed
 * @param longestLeaseGap the longest a node's Lease went unrenewed: past the node lifecycle
 *     controller's grace period, nodes were marked unreachable
 * @param longestRelease the longest a bound pod's node lock entry waited for its release, which a
 *     node's device plugin makes at admission: while it stands, pods of other shapes are kept off
 *     the node
 */
public record StandInFigures(
    long writeFailures, Duration longestLeaseGap, Duration longestRelease) {}
