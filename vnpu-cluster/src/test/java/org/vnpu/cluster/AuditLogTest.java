package org.vnpu.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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

    Object file = AuditLog.Position.of(log).file();
    assertThat(AuditLog.requestsSince(log, new AuditLog.Position(file, 0), "u"))
        .isEqualTo(Map.of("patch nodes", 2));
    assertThat(AuditLog.requestsSince(log, new AuditLog.Position(file, PATCH.length()), "u"))
        .isEqualTo(Map.of("patch nodes", 1));
    assertThat(AuditLog.refusedRequests(log)).isEmpty();
  }

  @Test
  void requestsAreCountedAcrossARotation() throws IOException {
    Path log = directory.resolve("audit.log");
    Files.writeString(log, PATCH);
    AuditLog.Position started = AuditLog.Position.of(log);
    Files.writeString(log, PATCH, StandardOpenOption.APPEND);
    // The API server's rotation (lumberjack): the log renamed with its time, a new one begun.
    Files.move(log, directory.resolve("audit-2026-12-05T21-40-00.000.log"));
    Files.writeString(log, PATCH + PATCH);
    Files.writeString(directory.resolve("audit-2026-12-05T21-00-00.000.log"), PATCH + PATCH);

    assertThat(AuditLog.requestsSince(log, started, "u")).isEqualTo(Map.of("patch nodes", 3));
  }

  @Test
  void aCountWhoseFileWasRotatedAwayIsAnError() throws IOException {
    Path log = directory.resolve("audit.log");
    Files.writeString(log, PATCH);
    AuditLog.Position started = AuditLog.Position.of(log);
    // Rotated, then the backup removed (--audit-log-maxbackup): moved aside here, so that the new
    // log cannot take the old one's inode.
    Files.move(log, directory.resolve("removed"));
    Files.writeString(log, PATCH);

    assertThatThrownBy(() -> AuditLog.requestsSince(log, started, "u"))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("cannot be counted");
  }

  @Test
  void aBrokenLineBeforeTheLastIsAnError() throws IOException {
    Path log = directory.resolve("audit.log");
    Files.writeString(log, PATCH.substring(0, 40) + "\n" + PATCH);

    assertThatThrownBy(() -> AuditLog.refusedRequests(log))
        .isInstanceOf(JsonProcessingException.class);
  }
}
