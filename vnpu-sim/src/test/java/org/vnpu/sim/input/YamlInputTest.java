package org.vnpu.sim.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.SplitMode;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.sim.SimCluster;
import org.vnpu.sim.SimPod;

class YamlInputTest {

  private static final ChipCatalog CATALOG = ChipCatalog.builtIn();

  @TempDir Path dir;

  @Test
  void expandsNodeGroups() throws IOException {
    SimCluster cluster =
        ClusterFile.read(
            write(
                "c.yaml",
                "nodes:\n  - {name: duo, count: 3, chipType: 310P3, chips: 8, splitMode: hard, cpuMilli: 96000, memoryMiB: 524288}\n"),
            CATALOG);

    assertThat(cluster.nodes())
        .extracting(n -> n.inventory().node())
        .containsExactly("duo-0", "duo-1", "duo-2");
    assertThat(cluster.nodes().get(0).inventory().splitMode()).isEqualTo(SplitMode.HARD);
    assertThat(cluster.nodes().get(0).inventory().maxSharesPerChip()).isEqualTo(20);
    assertThat(cluster.chips()).isEqualTo(24);
  }

  @Test
  void refusesUnknownChipType() throws IOException {
    Path file =
        write(
            "c.yaml",
            "nodes:\n  - {name: x, count: 1, chipType: H100, chips: 8, cpuMilli: 1, memoryMiB: 1}\n");
    assertThatThrownBy(() -> ClusterFile.read(file, CATALOG))
        .hasMessageStartingWith(file + ": node group x: chipType H100 is not in the catalog (");
  }

  @Test
  void expandsPodShapesValidatedAsTheSchedulerWould() throws IOException {
    List<SimPod> pods =
        WorkloadFile.read(
            write(
                "w.yaml",
                "pods:\n  - {name: small, count: 2, vnpus: 1, cores: 25, memoryGiB: 8, chipType: 910B3, cpuMilli: 1000, memoryMiB: 1024}\n"),
            CATALOG);

    assertThat(pods).extracting(SimPod::name).containsExactly("small-0", "small-1");
    assertThat(pods.get(0).request().containers().get(0).memoryMiB()).isEqualTo(8192L);
    assertThat(pods.get(0).computePercent()).isEqualTo(25);
  }

  @Test
  void refusesInvalidPodShapeWithTheValidatorsMessage() throws IOException {
    Path file =
        write(
            "w.yaml",
            "pods:\n  - {name: bad, count: 1, vnpus: 2, cores: 30, cpuMilli: 1, memoryMiB: 1}\n");
    assertThatThrownBy(() -> WorkloadFile.read(file, CATALOG))
        .hasMessage(
            file
                + ": pod bad: huawei.com/vnpu-number=2 with huawei.com/vnpu-cores=30 in container main:"
                + " several vNPUs are only allowed for whole cards");
  }

  @Test
  void refusesAnUnknownPriorityNamingTheShape() throws IOException {
    Path file =
        write(
            "w.yaml",
            "pods:\n  - {name: urgent, count: 1, vnpus: 1, cores: 30, memoryGiB: 4, priority:"
                + " urgent, cpuMilli: 1, memoryMiB: 1}\n");
    assertThatThrownBy(() -> WorkloadFile.read(file, CATALOG))
        .hasMessageStartingWith(file + ": pod urgent: ")
        .hasMessageContaining("huawei.com/vnpu-priority")
        .hasMessageContaining("urgent");
  }

  @Test
  void refusesMissingValueNamingTheField() throws IOException {
    Path file = write("w.yaml", "pods:\n  - {name: p, count: 1}\n");
    assertThatThrownBy(() -> WorkloadFile.read(file, CATALOG))
        .hasMessage(file + ": missing value (at pods[0].vnpus)");
  }

  @Test
  void refusesUnknownFieldNamingIt() throws IOException {
    Path file =
        write(
            "w.yaml",
            "pods:\n  - {name: p, count: 1, vnpus: 1, cpuMilli: 1, memoryMiB: 1, gpu: 1}\n");
    assertThatThrownBy(() -> WorkloadFile.read(file, CATALOG))
        .hasMessageContaining(
            file + ": unknown field gpu (known: arrival, chipType, cores, count, ")
        .hasMessageEndingWith("(at pods[0].gpu)");
  }

  @Test
  void refusesFileWithoutPods() throws IOException {
    Path file = write("w.yaml", "pods: []\n");
    assertThatThrownBy(() -> WorkloadFile.read(file, CATALOG))
        .hasMessage(file + ": lists no pods (expected a top-level `pods:` list)");
  }

  private Path write(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }
}
