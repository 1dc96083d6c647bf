/**
 * Transport helpers for the kubelet APIs; the generated stubs live in {@code
 * org.vnpu.kubelet.deviceplugin.v1beta1}.
 */
package org.vnpu.kubelet;
