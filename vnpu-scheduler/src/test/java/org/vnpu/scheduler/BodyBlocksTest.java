package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

class BodyBlocksTest {

  @Test
  void aBodySentAByteAtATimeTakesItsSizeInBlocksNotAnArrayPerByte() throws IOException {
    byte[] sent = new byte[3 * BodyBlocks.BLOCK + 17];
    new Random(7).nextBytes(sent);
    BodyBlocks body = new BodyBlocks();

    for (byte b : sent) {
      body.add(ByteBuffer.wrap(new byte[] {b}));
    }

    assertThat(body.blocks()).isEqualTo(4);
    assertThat(body.stream().readAllBytes()).isEqualTo(sent);
  }

  @Test
  void chunksOfAnySizeComeBackInOrder() throws IOException {
    byte[] sent = new byte[2 * BodyBlocks.BLOCK];
    new Random(11).nextBytes(sent);
    BodyBlocks body = new BodyBlocks();

    int at = 0;
    for (int size : new int[] {1, 70_000, 5, BodyBlocks.BLOCK, 60_000}) {
      int taken = Math.min(size, sent.length - at);
      body.add(ByteBuffer.wrap(sent, at, taken));
      at += taken;
    }
    body.add(ByteBuffer.wrap(sent, at, sent.length - at));

    assertThat(body.stream().readAllBytes()).isEqualTo(sent);
    assertThat(body.blocks()).isEqualTo(2);
  }

  @Test
  void anEmptyBodyReadsAsNothing() throws IOException {
    BodyBlocks body = new BodyBlocks();

    assertThat(body.stream().readAllBytes()).isEmpty();
    assertThat(body.blocks()).isZero();
  }
}
