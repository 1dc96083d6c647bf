package org.vnpu.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;

/** The npu-smi fallback over output captured from real hosts (reference/ascend-apis.md §4). */
class NpuSmiNpuDriverTest {

  private final Map<String, String> outputs = new HashMap<>();
  private final CommandRunner runner =
      command -> {
        String key = String.join(" ", command.subList(1, command.size()));
        String output = outputs.get(key);
        if (output == null) {
          throw new DriverException("npu-smi " + key + " exited with 1: unexpected call");
        }
        return output;
      };

  NpuSmiNpuDriverTest() {
    outputs.put("info", fixture("info.txt"));
    outputs.put("info -m", fixture("info-m.txt"));
    outputs.put("info -l", fixture("info-l.txt"));
    outputs.put("info -t usages -i 1 -c 0", fixture("usages-1-0.txt"));
  }

  private NpuSmiNpuDriver driver() {
    return new NpuSmiNpuDriver("npu-smi", runner, ChipCatalog.builtIn());
  }

  @Test
  void discoversChipsFromTheMappingTableAndSerials() {
    assertThat(driver().chips())
        .containsExactly(
            new RegisteredChip(0, "033VNY10N7000148-0", "910B3", 65536, 0, 0, true, -1, ""),
            new RegisteredChip(1, "033VNY10N7000231-0", "910B3", 65536, 0, 0, false, -1, ""));
  }

  @Test
  void usageCombinesTheUsagesQueryAndTheProcessTable() {
    NpuSmiNpuDriver driver = driver();
    RegisteredChip busy = driver.chips().get(1);

    assertThat(driver.usage(busy))
        .isEqualTo(
            new ChipUsage(
                42,
                65536 * 91 / 100,
                List.of(new ChipUsage.ProcessMemory(2290156, 56630L << 20)),
                44.0,
                98.1));
  }

  @Test
  void newerMappingWithoutLogicIdsUsesTheNpuId() {
    assertThat(NpuSmiOutput.mapping(fixture("info-m-950.txt")))
        .containsExactly(
            new NpuSmiOutput.MappedChip(0, 0, 0, "Ascend 950PR"),
            new NpuSmiOutput.MappedChip(1, 0, 1, "Ascend 950PR"));
  }

  @Test
  void unexpectedOutputIsAClearError() {
    outputs.put("info -m", "command not supported\n");
    assertThatThrownBy(() -> driver().chips())
        .isInstanceOf(DriverException.class)
        .hasMessageContaining("printed no header with 'NPU ID' and 'Chip Name'");

    outputs.put("info -m", fixture("info-m.txt"));
    outputs.put("info -l", "\tTotal Count : 2\n");
    assertThatThrownBy(() -> driver().chips())
        .hasMessageContaining("NPU 0, chip 0")
        .hasMessageContaining("has no serial number");
  }

  @Test
  void aFailingCommandIsReported() {
    assertThatThrownBy(() -> driver().usage(driver().chips().get(0)))
        .hasMessageContaining("was not discovered")
        .isInstanceOf(DriverException.class);
    NpuSmiNpuDriver driver = driver();
    RegisteredChip first = driver.chips().get(0);
    assertThatThrownBy(() -> driver.usage(first))
        .hasMessage("npu-smi info -t usages -i 0 -c 0 exited with 1: unexpected call");
  }

  @Test
  void realProcessesAreRunWithTheirExitStatus() {
    CommandRunner processes = CommandRunner.processes(5);
    assertThat(processes.run(List.of("echo", "NPU ID : 0"))).isEqualTo("NPU ID : 0\n");
    assertThatThrownBy(() -> processes.run(List.of("sh", "-c", "echo broken; exit 3")))
        .hasMessage("sh -c echo broken; exit 3 exited with 3: broken");
    assertThatThrownBy(() -> processes.run(List.of("/nonexistent/npu-smi", "info")))
        .hasMessageStartingWith("cannot run /nonexistent/npu-smi info");
  }

  private static String fixture(String name) {
    try (InputStream in = NpuSmiNpuDriverTest.class.getResourceAsStream("/npu-smi/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
