/**
 * Transport helpers for the kubelet APIs and the parts of a kubelet the tests, benchmarks and the
 * sandbox play: the device manager ({@link org.vnpu.kubelet.KubeletEmulator}), the DRA manager
 * ({@link org.vnpu.kubelet.DraKubeletEmulator}) and the pod-resources service ({@link
 * org.vnpu.kubelet.PodResourcesEmulator}); the generated stubs live in {@code
 * org.vnpu.kubelet.deviceplugin.v1beta1}, {@code .dra.v1}, {@code .podresources.v1} and {@code
 * .pluginregistration}.
 */
package org.vnpu.kubelet;
