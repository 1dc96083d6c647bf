package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.kubelet.UnixSockets;

/** The nodes' directories: below the cluster's, unless their sockets would not fit there. */
class NodesDirectoryTest {

  @TempDir Path root;

  @Test
  void aShallowClusterKeepsItsNodesInItsOwnDirectory() throws Exception {
    assertThat(NodesDirectory.of(root)).isEqualTo(root.resolve("nodes")).isDirectory();
  }

  @Test
  void belowADeepDirectoryTheNodesGoWhereTheirSocketsFitAndTheClusterLinksThere() throws Exception {
    Path deep = root.resolve("d".repeat(60)).resolve("target/real-kube-scheduler/cluster");

    Path nodes = NodesDirectory.of(deep);

    String socket =
        nodes
            .resolve("sixteen-letters-")
            .resolve("plugins_registry/vnpu.huawei.com-reg.sock")
            .toString();
    assertThat(socket.length()).isLessThanOrEqualTo(UnixSockets.MAX_PATH_BYTES);
    assertThat(deep.resolve("nodes")).isSymbolicLink();
    assertThat(deep.resolve("nodes").toRealPath()).isEqualTo(nodes);
    assertThat(NodesDirectory.of(deep)).as("the same answer every time").isEqualTo(nodes);

    NodesDirectory.deleteLinked(deep);
    assertThat(nodes).as("removed with the cluster directory, not left in /tmp").doesNotExist();
    Path again = NodesDirectory.of(deep);
    assertThat(again).as("a link whose directory went is made again").isDirectory();
    NodesDirectory.deleteLinked(deep);
  }

  @Test
  void onlyADirectoryOfOursIsDeletedThroughTheLink() throws Exception {
    Path cluster = root.resolve("cluster");
    Path elsewhere = Files.createDirectories(root.resolve("precious"));
    Files.createDirectories(cluster);
    Files.createSymbolicLink(cluster.resolve("nodes"), elsewhere);

    NodesDirectory.deleteLinked(cluster);

    assertThat(elsewhere).isDirectory();
  }

  @Test
  void anEarlierRunsNodesTooDeepForSocketsAreNamedNotReused() throws Exception {
    Path deep = root.resolve("d".repeat(60)).resolve("cluster");
    Files.createDirectories(deep.resolve("nodes"));

    assertThatThrownBy(() -> NodesDirectory.of(deep))
        .hasMessageContaining(deep.resolve("nodes") + " is an earlier run's, too deep");
  }
}
