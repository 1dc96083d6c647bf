package org.vnpu.api;

import com.fasterxml.jackson.annotation.JsonValue;

/** Who last wrote the node handshake. */
public enum HandshakeState implements WireValue {
  /** The device plugin's heartbeat. */
  REPORTED("reported"),
  /** The scheduler found the heartbeat stale and asks for a new report. */
  REQUESTED("requested");

  private final String wireName;

  HandshakeState(String wireName) {
    this.wireName = wireName;
  }

  @Override
  @JsonValue
  public String wireName() {
    return wireName;
  }
}
