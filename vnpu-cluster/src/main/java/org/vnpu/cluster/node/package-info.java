/**
 * A real Kubernetes node on this machine ({@link org.vnpu.cluster.node.RealNode}): the kubelet,
 * containerd with runc and kube-proxy from the upstream build, in a network namespace of its own
 * ({@link org.vnpu.cluster.node.NodeNetwork}), with fake Ascend hardware ({@link
 * org.vnpu.cluster.node.NodeHardware}) and images built here without a registry ({@link
 * org.vnpu.cluster.node.NodeImages}, {@link org.vnpu.cluster.node.ImageArchive}); and the scenario
 * that runs the chart and vNPU pods on it ({@link org.vnpu.cluster.node.RealNodeScenario}).
 */
package org.vnpu.cluster.node;
