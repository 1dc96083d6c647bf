/**
 * How the device plugin learns about the node's NPUs: the {@link
 * org.vnpu.deviceplugin.driver.NpuDriver} port and its three adapters (DCMI through JNA, the {@code
 * npu-smi} tool, a simulated inventory file).
 */
package org.vnpu.deviceplugin.driver;
