package org.vnpu.cluster.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The machine's kubelet directory: taken when free or the real node's, never another kubelet's. */
class KubeletRootTest {

  @TempDir Path machine;

  @Test
  void anotherKubeletsDirectoryIsRefusedAndKeptWhole() throws Exception {
    Path root = machine.resolve("kubelet");
    Files.createDirectories(root.resolve("pods/uid-1/volumes"));
    Files.writeString(root.resolve("cpu_manager_state"), "{}");
    KubeletRoot kubeletRoot = new KubeletRoot(root);

    assertThatThrownBy(kubeletRoot::claim)
        .hasMessageContaining(root + " holds another kubelet's files (cpu_manager_state, pods)")
        .hasMessageContaining("stop that kubelet and move the directory away");
    kubeletRoot.release();

    assertThat(root.resolve("pods/uid-1/volumes")).isDirectory();
    assertThat(root.resolve("cpu_manager_state")).exists();
  }

  @Test
  void whatAnEarlierRealNodeLeftIsClearedAndTheRootIsMarked() throws Exception {
    Path root = machine.resolve("kubelet");
    Files.createDirectories(root.resolve("pods/uid-1"));
    Files.writeString(root.resolve(KubeletRoot.MARK), "");
    KubeletRoot kubeletRoot = new KubeletRoot(root);

    assertThat(kubeletRoot.claim()).isEqualTo(root);

    assertThat(root.resolve("pods")).doesNotExist();
    assertThat(root.resolve(KubeletRoot.MARK)).exists();
  }

  @Test
  void aDirectoryHoldingOnlyDevicePluginSocketsIsTakenAndDeletedOnRelease() throws Exception {
    Path root = machine.resolve("kubelet");
    Files.createDirectories(root.resolve("device-plugins"));
    KubeletRoot kubeletRoot = new KubeletRoot(root);

    kubeletRoot.claim();
    Files.createDirectories(root.resolve("pods/uid-2/volumes"));
    kubeletRoot.release();

    assertThat(root).doesNotExist();
  }
}
