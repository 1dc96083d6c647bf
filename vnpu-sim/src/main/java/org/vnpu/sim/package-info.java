/**
 * The simulator: replays a cluster and a workload through the placement engine (and, for
 * comparison, through the FGD paper's baseline policies) to compare policies and plan capacity.
 */
package org.vnpu.sim;
