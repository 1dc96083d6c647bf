/**
 * The kubelet side of the device plugin: the device IDs it advertises, the {@code DevicePlugin}
 * gRPC service and the registration loop that survives kubelet restarts.
 */
package org.vnpu.deviceplugin.kubelet;
