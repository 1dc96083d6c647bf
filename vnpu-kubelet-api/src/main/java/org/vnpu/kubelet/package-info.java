/**
 * Transport helpers for the kubelet APIs and the device-manager half of a kubelet ({@link
 * org.vnpu.kubelet.KubeletEmulator}, for tests, benchmarks and the sandbox); the generated stubs
 * live in {@code org.vnpu.kubelet.deviceplugin.v1beta1}.
 */
package org.vnpu.kubelet;
