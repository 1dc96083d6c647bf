/**
 * Simulator inputs: our YAML cluster and workload files, and the Alibaba openb trace (CSV), each
 * read into {@link org.vnpu.sim.SimCluster} and {@link org.vnpu.sim.SimPod}s with errors that name
 * the file, the line or entry, and the problem.
 */
package org.vnpu.sim.input;
