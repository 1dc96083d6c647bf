/**
 * The built-in placement policies and their registry: binpack, spread and fragmentation-aware, each
 * scoring chips for one vNPU and nodes for a whole plan.
 */
package org.vnpu.core.policy;
