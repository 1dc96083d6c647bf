/**
 * A real Kubernetes control plane on this machine, built from upstream Go modules ({@code
 * upstream/build.sh}, {@link org.vnpu.cluster.UpstreamBinaries}): etcd, kube-apiserver,
 * kube-controller-manager and kube-scheduler ({@link org.vnpu.cluster.ControlPlane}), Volcano
 * ({@link org.vnpu.cluster.VolcanoComponents}); the chart installed as a Helm release ({@link
 * org.vnpu.cluster.VnpuRelease}); vNPU's scheduler replicas and the chart's kube-scheduler as local
 * processes, and the sandbox's simulated nodes with their own identities ({@link
 * org.vnpu.cluster.RealCluster}). Processes are tracked by PID ({@link
 * org.vnpu.cluster.Component}).
 */
package org.vnpu.cluster;
