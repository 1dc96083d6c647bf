/**
 * What is in use where: per chip the memory, AI Core, AI CPUs and share slots taken, per node the
 * host resources, and the {@link org.vnpu.core.ledger.Ledger} that applies and releases allocations
 * without ever over-committing a chip.
 */
package org.vnpu.core.ledger;
