/**
 * The wire contract of vNPU: every resource name, label and annotation key, and the enumerated
 * values that travel in them. Each constant says what it means, who writes it, who reads it and the
 * schema of its value; docs/protocol.md lists the same, and a test keeps the two in step.
 */
package org.vnpu.api;
