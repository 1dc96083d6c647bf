package org.vnpu.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditLogTest {

  private static final String PATCH =
      "{\"stage\":\"ResponseComplete\",\"verb\":\"patch\",\"user\":{\"username\":\"u\"},"
          + "\"objectRef\":{\"resource\":\"nodes\"},\"responseStatus\":{\"code\":200}}\n";

  @TempDir Path directory;

  @Test
  void aLastLineTheApiServerIsStillWritingIsLeftForTheNextRead() throws IOException {
    Path log = directory.resolve("audit.log");
    Files.writeString(log, PATCH + PATCH + PATCH.substring(0, 40));

    assertThat(AuditLog.requestsSince(log, 0, "u")).isEqualTo(Map.of("patch nodes", 2));
    assertThat(AuditLog.requestsSince(log, PATCH.length(), "u"))
        .isEqualTo(Map.of("patch nodes", 1));
    assertThat(AuditLog.refusedRequests(log)).isEmpty();
  }

  @Test
  void aBrokenLineBeforeTheLastIsAnError() throws IOException {
    Path log = directory.resolve("audit.log");
    Files.writeString(log, PATCH.substring(0, 40) + "\n" + PATCH);

    assertThatThrownBy(() -> AuditLog.refusedRequests(log))
        .isInstanceOf(JsonProcessingException.class);
  }
}
