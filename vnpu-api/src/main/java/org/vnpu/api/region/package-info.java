/**
 * Reading a chip's shared region, the file the runtime shims of all containers on the chip keep
 * their books in (layout: {@code libvnpu/include/vnpu_contract.h}), without JNI.
 */
package org.vnpu.api.region;
