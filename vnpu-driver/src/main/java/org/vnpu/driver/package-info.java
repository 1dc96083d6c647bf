/**
 * What a node's NPUs are and do, for the device plugin and the exporter: the {@link
 * org.vnpu.driver.NpuDriver} port and its three adapters (DCMI through JNA, the {@code npu-smi}
 * tool, a simulated inventory file).
 */
package org.vnpu.driver;
