package org.vnpu.deviceplugin.allocate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeFilesTest {

  @TempDir Path state;

  @Test
  void chipDirectoriesAreWritableForEveryContainerUserAndStayInsideTheStateDirectory()
      throws IOException {
    NodeFiles files = new NodeFiles(state).prepare();

    Path chip = files.chipDirectory("0A1B2C3D-00000000-00000000-00000000-00000001");

    assertThat(chip.getParent()).isEqualTo(state.resolve("chips"));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(chip)))
        .isEqualTo("rwxrwxrwx");
    for (String bad : new String[] {"..", ".", "../etc", "a/b", ""}) {
      assertThatThrownBy(() -> files.chipDirectory(bad))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("cannot name a directory");
    }
  }

  @Test
  void podFilesAreListedAndRemoved() throws IOException {
    NodeFiles files = new NodeFiles(state).prepare();
    NodeFiles.PodRecord pod = new NodeFiles.PodRecord("uid-1", "serving", "bert");

    Path config = files.writeConfig(pod, "model", "version=1\n");
    files.writeConfig(pod, "model", "version=1\n# rewritten\n");

    assertThat(config).hasContent("version=1\n# rewritten");
    assertThat(files.pods()).containsExactly(pod);
    files.remove("uid-1");
    assertThat(files.pods()).isEmpty();
    assertThat(Files.readString(files.preloadFile())).isEqualTo("/usr/local/vnpu/lib/libvnpu.so\n");
  }
}
