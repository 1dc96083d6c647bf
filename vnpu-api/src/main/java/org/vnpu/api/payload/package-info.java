/**
 * The records carried as versioned JSON in vNPU's internal annotations. Each record validates
 * itself on construction, so a decoded payload is always well-formed; the codec adds and checks the
 * version.
 */
package org.vnpu.api.payload;
