/**
 * {@code vnpu device-plugin}: the node agent. {@link org.vnpu.deviceplugin.DevicePlugin} wires the
 * driver, the kubelet service, the allocator and the node publisher together.
 */
package org.vnpu.deviceplugin;
