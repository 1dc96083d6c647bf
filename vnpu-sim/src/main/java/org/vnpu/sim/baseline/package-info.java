/**
 * The FGD paper's scheduling policies (Random, DotProduct, GpuClustering, GpuPacking, BestFit and
 * FGD), re-implemented from the definitions of its artifact
 * (hkust-adsl/kubernetes-scheduler-simulator, {@code pkg/simulator/plugin/*_score.go}) to check
 * that this simulator reproduces the paper. As in kube-scheduler, node scores are whole numbers and
 * ties are broken at random; these are benchmarks, not product policies.
 */
package org.vnpu.sim.baseline;
