/**
 * Ed25519 signatures over allocations, so that the device plugin hands out only what the scheduler
 * decided. The scheduler alone holds the private key ({@link SigningKey}); nodes verify with public
 * keys ({@link KeySet}), found by the key ID each signature names, so a compromised node can forge
 * nothing and keys can be rotated while old allocations still verify (ADR 0011).
 */
package org.vnpu.api.signing;
