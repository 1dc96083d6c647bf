/**
 * The Ascend chip catalog: per chip type its AI Cores, AI CPUs, memory, hardware vNPU templates and
 * server interconnect. The catalog is data ({@code chips.yaml} in the jar, cited in docs/chips.md),
 * extended or overridden by a user file.
 */
package org.vnpu.core.chip;
