package org.vnpu.sim.input;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.input.InvalidInputException;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.sim.SimCluster;
import org.vnpu.sim.SimPod;

class OpenbTraceTest {

  @TempDir Path dir;

  @Test
  void readsNodesAsChipsOfTheirGpuModel() throws IOException {
    SimCluster cluster =
        OpenbTrace.nodes(
            write(
                "nodes.csv",
                "sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144,2,P100\nn1,96000,393216,8,G2\n"));

    assertThat(cluster.nodes()).hasSize(2);
    assertThat(cluster.chips()).isEqualTo(10);
    assertThat(cluster.computePercent()).isEqualTo(1000);
    SimCluster.Node g2 = cluster.nodes().get(1);
    assertThat(g2.inventory().chips().get(7).model().name()).isEqualTo("G2");
    assertThat(g2.inventory().chips().get(7).memoryMiB()).isEqualTo(OpenbTrace.CHIP_MEMORY_MIB);
    assertThat(g2.capacity().cpuMilli()).isEqualTo(96000);
  }

  @Test
  void mapsGpuMilliToTheSameShareOfAiCoreAndMemory() throws IOException {
    List<SimPod> pods =
        OpenbTrace.pods(
            write(
                "pods.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"
                    + "share,6000,12288,1,470,\n"
                    + "whole,12000,16384,1,1000,nan\n"
                    + "eight,64000,65536,8,1000,\n"
                    + "cpu,4000,8192,0,0,\n"
                    + "pinned,1000,1024,1,250,T4\n"));

    assertThat(container(pods.get(0)))
        .isEqualTo(
            new ContainerRequest(
                "main", false, 1, 47, 470 * 64L, ChipTypes.ANY, AiCorePolicy.ELASTIC));
    assertThat(container(pods.get(1)).wholeCard()).isTrue();
    assertThat(pods.get(2).computePercent()).isEqualTo(800);
    assertThat(pods.get(3).request().containers()).isEmpty();
    assertThat(pods.get(3).host().cpuMilli()).isEqualTo(4000);
    assertThat(container(pods.get(4)).chipTypes()).isEqualTo(ChipTypes.of("T4"));
  }

  @Test
  void aSpecListingSeveralGpuTypesAcceptsEachOfThem() throws IOException {
    List<SimPod> pods =
        OpenbTrace.pods(
            write(
                "pods.csv",
                "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np,1,1,1,500,V100M16|V100M32\n"));

    assertThat(container(pods.get(0)).chipTypes())
        .isEqualTo(ChipTypes.of(List.of("V100M16", "V100M32")));
  }

  @Test
  void refusesAnEmptyGpuTypeInASpec() throws IOException {
    Path csv =
        write(
            "pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\np,1,1,1,500,T4|\n");
    assertThatThrownBy(() -> OpenbTrace.pods(csv))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(csv + " line 2: gpu_spec T4| has an empty GPU type; separate types with |");
  }

  @Test
  void refusesNonNumericCellNamingLineAndColumn() throws IOException {
    Path csv = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,lots,1,1,500\n");
    assertThatThrownBy(() -> OpenbTrace.pods(csv))
        .hasMessage(csv + " line 2: cpu_milli \"lots\" is not a whole number");
  }

  @Test
  void refusesHeaderWithoutRequiredColumn() throws IOException {
    Path csv = write("nodes.csv", "sn,cpu,memory_mib,gpu,model\n");
    assertThatThrownBy(() -> OpenbTrace.nodes(csv))
        .hasMessageStartingWith(csv + ": header lacks column cpu_milli");
  }

  @Test
  void refusesMissingFile() {
    assertThatThrownBy(() -> OpenbTrace.nodes(dir.resolve("none.csv")))
        .hasMessageEndingWith("none.csv: no such file");
  }

  private static ContainerRequest container(SimPod pod) {
    return pod.request().containers().get(0);
  }

  private Path write(String name, String content) throws IOException {
    return Files.writeString(dir.resolve(name), content);
  }
}
