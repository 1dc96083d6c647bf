/**
 * Fragmentation after the FGD paper (Weng et al., USENIX ATC '23): the expected share of a node's
 * free compute that the typical workload cannot use. Measured against a {@link
 * org.vnpu.core.fragmentation.WorkloadMix}; the fragmentation-aware policy and the simulator's
 * metrics both use {@link org.vnpu.core.fragmentation.FragmentationMeter}.
 */
package org.vnpu.core.fragmentation;
