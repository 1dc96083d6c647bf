package org.vnpu.api.codec;

/**
 * An annotation value that cannot be decoded. The message names the key and the problem, e.g.
 * {@code huawei.com/node-vnpu-handshake: unsupported version 2 (this build reads v1)}.
 */
public final class MalformedPayloadException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final String key;

  public MalformedPayloadException(String key, String problem) {
    super(key + ": " + problem);
    this.key = key;
  }

  /** The annotation key whose value was malformed. */
  public String key() {
    return key;
  }
}
