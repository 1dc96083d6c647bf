package org.vnpu.api.payload;

import java.time.Instant;
import org.vnpu.api.HandshakeState;

/**
 * The last word on a node's device plugin liveness, under {@code huawei.com/node-vnpu-handshake}.
 *
 * @param state who wrote it: the device plugin's report or the scheduler's request
 * @param at when it was written
 */
public record NodeHandshake(HandshakeState state, Instant at) {

  public NodeHandshake {
    Checks.present(state, "state");
    Checks.present(at, "at");
  }
}
