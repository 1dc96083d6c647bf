package org.vnpu.driver;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipModel;

/**
 * Discovers chips by parsing {@code npu-smi} output, for nodes where DCMI cannot be loaded. npu-smi
 * prints no die ID, so a chip's ID is its card's serial number and the chip ID ({@code
 * <serial>-<chip>}), stable across reboots and unique in the cluster.
 */
public final class NpuSmiNpuDriver implements NpuDriver {

  private static final Set<String> HEALTHY = Set.of("OK", "WARNING");

  private final String npuSmi;
  private final CommandRunner runner;
  private final ChipNames names;
  private final Map<Integer, NpuSmiOutput.MappedChip> mapped = new HashMap<>();

  /**
   * @param npuSmi the npu-smi executable
   * @param runner runs it
   */
  public NpuSmiNpuDriver(String npuSmi, CommandRunner runner, ChipCatalog catalog) {
    this.npuSmi = npuSmi;
    this.runner = runner;
    this.names = new ChipNames(catalog);
  }

  @Override
  public String name() {
    return "npu-smi";
  }

  @Override
  public List<RegisteredChip> chips() {
    Map<Integer, String> serials = new HashMap<>();
    for (Map<String, String> block : NpuSmiOutput.npuBlocks(run("info", "-l"))) {
      serials.put(Integer.parseInt(block.get("NPU ID")), block.getOrDefault("Serial Number", ""));
    }
    NpuSmiOutput.Table table = NpuSmiOutput.table(run("info"));
    mapped.clear();
    List<RegisteredChip> chips = new ArrayList<>();
    for (NpuSmiOutput.MappedChip chip : NpuSmiOutput.mapping(run("info", "-m"))) {
      mapped.put(chip.logicId(), chip);
      String where = "npu-smi (NPU " + chip.npuId() + ", chip " + chip.chipId() + ")";
      ChipModel model = names.resolve(chip.chipName(), where);
      NpuSmiOutput.TableChip row = table.chips().get(List.of(chip.npuId(), chip.chipId()));
      if (row == null) {
        throw new DriverException(where + " is missing from the npu-smi info table");
      }
      String serial = serials.getOrDefault(chip.npuId(), "");
      if (serial.isBlank() || serial.equals("NA")) {
        throw new DriverException(
            where + " has no serial number in npu-smi info -l; cannot give the chip a stable ID");
      }
      chips.add(
          new RegisteredChip(
              chip.logicId(),
              serial + "-" + chip.chipId(),
              model.name(),
              row.memoryTotalMiB() > 0 ? row.memoryTotalMiB() : model.memoryMiB(),
              0,
              0,
              HEALTHY.contains(row.health()),
              -1,
              ""));
    }
    chips.sort(Comparator.comparingInt(RegisteredChip::index));
    return chips;
  }

  @Override
  public ChipUsage usage(RegisteredChip chip) {
    NpuSmiOutput.MappedChip where = mapped.get(chip.index());
    if (where == null) {
      throw new DriverException("chip " + chip.index() + " was not discovered by npu-smi");
    }
    Map<String, String> usages =
        NpuSmiOutput.keyValues(
            run(
                "info",
                "-t",
                "usages",
                "-i",
                Integer.toString(where.npuId()),
                "-c",
                Integer.toString(where.chipId())));
    int aiCore =
        NpuSmiOutput.percent(
            usages, "AI Core usage", "Aicore Usage Rate(%)", "AI Core Usage Rate(%)");
    int memory =
        NpuSmiOutput.percent(
            usages,
            "memory usage",
            "HBM Usage Rate(%)",
            "Memory Usage Rate(%)",
            "DDR Usage Rate(%)");
    NpuSmiOutput.Table table = NpuSmiOutput.table(run("info"));
    List<ChipUsage.ProcessMemory> processes =
        table.processes().stream()
            .filter(p -> p.npuId() == where.npuId() && p.chipId() == where.chipId())
            .map(p -> new ChipUsage.ProcessMemory(p.pid(), p.memoryMiB() << 20))
            .collect(Collectors.toList());
    NpuSmiOutput.TableChip row = table.chips().get(List.of(where.npuId(), where.chipId()));
    return new ChipUsage(
        aiCore,
        chip.memoryMiB() * memory / 100,
        processes,
        row == null ? null : row.temperatureCelsius(),
        row == null ? null : row.powerWatts());
  }

  private String run(String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(npuSmi);
    command.addAll(List.of(arguments));
    return runner.run(command);
  }
}
