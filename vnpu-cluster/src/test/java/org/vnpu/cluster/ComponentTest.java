package org.vnpu.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A component is tracked by its PID file: another process stops it, the last started first, and a
 * PID reused by another program is never signalled. A component that dies or never gets ready names
 * itself with its log's last lines.
 */
class ComponentTest {

  @TempDir Path directory;

  @Test
  void stopAllStopsWhatStartedByItsPidFilesLastFirstAndNothingElse() throws Exception {
    Path pids = directory.resolve("pids");
    Component first =
        new Component("first", 0, List.of("sleep", "60"), Map.of(), directory, pids).start();
    Component second =
        new Component("second", 1, List.of("sleep", "61"), Map.of(), directory, pids).start();
    // A PID file whose process is another program now: it is left alone.
    Process stranger = new ProcessBuilder("cat").start();
    Files.writeString(pids.resolve("002-stranger.pid"), stranger.pid() + " sleep\n");

    assertThat(Component.stopAll(pids)).containsExactly("second", "first");

    assertThat(first.alive()).isFalse();
    assertThat(second.alive()).isFalse();
    assertThat(stranger.isAlive()).as("a reused PID is not signalled").isTrue();
    assertThat(Files.list(pids)).isEmpty();
    stranger.destroy();
  }

  @Test
  void aComponentThatExitsOrIsNeverReadyNamesItselfWithItsLog() throws Exception {
    Path pids = directory.resolve("pids");
    Component failing =
        new Component(
                "kube-apiserver",
                0,
                List.of("sh", "-c", "echo 'error: bad flag --etcd'; exit 3"),
                Map.of(),
                directory,
                pids)
            .start();
    assertThatThrownBy(() -> failing.awaitReady(() -> false, Duration.ofSeconds(10)))
        .hasMessageContaining("kube-apiserver exited with code 3 before it was ready")
        .hasMessageContaining("error: bad flag --etcd");

    Component slow =
        new Component(
                "etcd",
                1,
                List.of("sh", "-c", "echo starting; sleep 30"),
                Map.of(),
                directory,
                pids)
            .start();
    assertThatThrownBy(() -> slow.awaitReady(() -> false, Duration.ofMillis(500)))
        .hasMessageContaining("etcd was not ready within 0 s")
        .hasMessageContaining("starting");
    slow.stop();
    assertThat(slow.alive()).isFalse();
  }
}
