/**
 * The placement engine: snapshot and request in, decision out. Filters every node to a fit or a
 * typed rejection, plans which chips a pod's vNPUs take, scores nodes with the pod's policies and
 * returns an {@link org.vnpu.core.ledger.AllocationPlan}. Pure: no I/O, no clock (the instant is a
 * parameter), no logging.
 */
package org.vnpu.core.engine;
