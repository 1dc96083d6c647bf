/**
 * From a pod to typed vNPU requests: reads container resources and pod annotations, validates them
 * against the contract and the chip catalog, and reports every problem at once.
 */
package org.vnpu.core.request;
