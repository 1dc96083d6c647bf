package org.vnpu.kubelet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Server;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A socket path too long for the kernel is refused with the path and the limit named. */
class UnixSocketsTest {

  @TempDir Path directory;

  @Test
  void aSocketPathOfMoreThan107BytesIsRefusedBeforeTheKernelSaysFileNameTooLong() {
    Path deep = directory.resolve("d".repeat(120)).resolve("plugin-reg.sock");
    assertThatThrownBy(() -> UnixSockets.serve(deep))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the socket path " + deep)
        .hasMessageContaining("bytes long; a Unix socket's path holds at most 107");
    assertThatThrownBy(() -> UnixSockets.dial(deep)).hasMessageContaining("at most 107");
  }

  @Test
  void aPathOfExactly107BytesIsServed() throws Exception {
    String base = directory.toString() + "/";
    Path longest = Path.of(base + "s".repeat(UnixSockets.MAX_PATH_BYTES - base.length()));
    assertThat(longest.toString()).hasSize(107);
    Server server = UnixSockets.serve(longest);
    try {
      assertThat(longest).exists();
    } finally {
      server.shutdownNow();
    }
  }
}
