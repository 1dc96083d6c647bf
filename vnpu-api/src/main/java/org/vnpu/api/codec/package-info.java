/**
 * The one codec for vNPU's annotation payloads: versioned JSON ({@code {"v":1,...}}) with strict
 * decoding, plus a reader for openFuyao's legacy node-register format.
 */
package org.vnpu.api.codec;
