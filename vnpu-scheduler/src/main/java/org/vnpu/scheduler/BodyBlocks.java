package org.vnpu.scheduler;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A request body as it arrives, kept in blocks of {@link #BLOCK} bytes. Volcano's bodies run to
 * megabytes: one array that size would be a humongous object for G1 (each starts a concurrent
 * collection) and a growing one is copied at every doubling; and a block per network read would let
 * a client that sends a byte at a time make the body take twenty times its size. Blocks are filled
 * before a new one starts, so the body takes its size plus at most one block.
 */
final class BodyBlocks {

  /** Well below half of G1's smallest region (1 MiB), past which an array is humongous. */
  static final int BLOCK = 64 << 10;

  private final List<byte[]> full = new ArrayList<>();
  private byte[] filling = new byte[0];
  private int filled;

  /** Appends what {@code bytes} has left. */
  void add(ByteBuffer bytes) {
    while (bytes.hasRemaining()) {
      if (filled == filling.length) {
        if (filled > 0) {
          full.add(filling);
        }
        filling = new byte[BLOCK];
        filled = 0;
      }
      int taken = Math.min(bytes.remaining(), filling.length - filled);
      bytes.get(filling, filled, taken);
      filled += taken;
    }
  }

  /** The body, read from its blocks in order. */
  InputStream stream() {
    List<InputStream> parts = new ArrayList<>();
    full.forEach(block -> parts.add(new ByteArrayInputStream(block)));
    parts.add(new ByteArrayInputStream(filling, 0, filled));
    return new SequenceInputStream(Collections.enumeration(parts));
  }

  /** How many blocks hold the body. */
  int blocks() {
    return full.size() + (filled > 0 ? 1 : 0);
  }
}
