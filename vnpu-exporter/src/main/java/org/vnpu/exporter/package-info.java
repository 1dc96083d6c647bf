/**
 * {@code vnpu exporter}: vNPU usage per node, chip and container in Prometheus, from the driver,
 * the allocations of the node's pods and the shim's shared regions (docs/metrics.md).
 */
package org.vnpu.exporter;
