/**
 * HMAC-SHA256 signing of allocations, so that the device plugin hands out only what the scheduler
 * decided. The key is shared by the scheduler and the device plugin only (a Secret).
 */
package org.vnpu.api.signing;
