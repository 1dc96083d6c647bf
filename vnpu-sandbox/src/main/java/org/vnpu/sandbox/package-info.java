/**
 * {@code vnpu demo}: the whole system on one machine. An embedded API server ({@link
 * org.vnpu.sandbox.ApiServer}), simulated nodes each with the real device plugin, a kubelet
 * emulator and the real exporter ({@link org.vnpu.sandbox.SandboxNode}), the real scheduler over
 * HTTP driven like Volcano or kube-scheduler, and containers as processes under the real shim on
 * the fake runtime.
 */
package org.vnpu.sandbox;
