/**
 * The files the runtime shim shares (layout: {@code libvnpu/include/vnpu_contract.h}), without JNI:
 * a chip's region, which the device plugin creates, and a container's books, which the exporter
 * reads.
 */
package org.vnpu.api.region;
