package org.vnpu.handouts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.region.ChipRegion;

class NodeFilesTest {

  @TempDir Path state;

  @Test
  void chipRegionsAreWritableForEveryContainerUserAndStayInsideTheStateDirectory()
      throws IOException {
    NodeFiles files = new NodeFiles(state).prepare();

    Path region = files.chipRegion("0A1B2C3D-00000000-00000000-00000000-00000001");

    assertThat(region.getParent().getParent()).isEqualTo(state.resolve("chips"));
    assertThat(region).hasSize(ChipRegion.SIZE);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(region)))
        .isEqualTo("rw-rw-rw-");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(region.getParent())))
        .isEqualTo("rwxr-xr-x");
    for (String bad : new String[] {"..", ".", "../etc", "a/b", ""}) {
      assertThatThrownBy(() -> files.chipRegion(bad))
          .isInstanceOf(IOException.class)
          .hasMessageContaining("cannot name a file on the node");
    }
  }

  @Test
  void handoutFilesAreKeyedListedWithTheirPodAndRemoved() throws IOException {
    NodeFiles files = new NodeFiles(state).prepare();
    NodeFiles.PodRecord pod = new NodeFiles.PodRecord("uid-1", "serving", "bert");

    NodeFiles.ShimFiles shim = files.writeShimFiles("nonce-1", pod, "model", "version=2\n");
    files.writeShimFiles("nonce-1", pod, "model", "version=2\n# rewritten\n");

    assertThat(shim.config()).hasContent("version=2\n# rewritten");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(shim.books())))
        .isEqualTo("rwxrwxrwx");
    assertThat(shim.books()).isEqualTo(state.resolve("pods/nonce-1/model.books"));
    assertThat(files.pods()).containsExactly(new NodeFiles.KeyedFiles("nonce-1", pod));
    // Interchangeable pods swapped: another pod uses these files now.
    NodeFiles.PodRecord other = new NodeFiles.PodRecord("uid-2", "serving", "bert-2");
    files.user("nonce-1", other);
    files.user("no-such-files", other);
    assertThat(files.pods()).containsExactly(new NodeFiles.KeyedFiles("nonce-1", other));
    files.remove("nonce-1");
    assertThat(files.pods()).isEmpty();
    assertThat(Files.readString(files.preloadFile())).isEqualTo("/usr/local/vnpu/lib/libvnpu.so\n");
  }
}
