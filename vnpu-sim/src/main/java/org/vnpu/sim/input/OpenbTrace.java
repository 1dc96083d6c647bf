package org.vnpu.sim.input;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.SplitMode;
import org.vnpu.core.chip.ChipModel;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.chip.Interconnect;
import org.vnpu.core.chip.InterconnectKind;
import org.vnpu.core.input.InvalidInputException;
import org.vnpu.core.inventory.Chip;
import org.vnpu.core.inventory.NodeInventory;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.PodOptions;
import org.vnpu.sim.SimCluster;
import org.vnpu.sim.SimPod;

/**
 * The Alibaba GPU-sharing trace (cluster-trace-gpu-v2023, "openb") as vNPU sees it: each GPU is one
 * chip; {@code gpu_milli} of one GPU becomes the same share of the chip's AI Core and memory (chip
 * memory is 64,000 MiB so that one milli is 64 MiB exactly); the GPU model is the chip type, and a
 * {@code gpu_spec} pins it (to any of several types separated by {@code |}). Host CPU and memory
 * are checked as kube-scheduler would.
 */
public final class OpenbTrace {

  /** Chip memory of a simulated GPU: 64 MiB per thousandth. */
  public static final long CHIP_MEMORY_MIB = 64_000;

  private static final int MAX_SHARES = 63;

  private OpenbTrace() {}

  /** The cluster of a node list ({@code sn,cpu_milli,memory_mib,gpu,model}). */
  public static SimCluster nodes(Path csv) {
    Map<String, ChipModel> models = new HashMap<>();
    List<SimCluster.Node> nodes = new ArrayList<>();
    for (Row row : rows(csv, "sn", "cpu_milli", "memory_mib", "gpu", "model")) {
      String name = row.text("sn");
      int gpus = (int) row.number("gpu");
      String model = row.text("model");
      if (gpus > 0 && model.isEmpty()) {
        throw row.problem("model is empty but gpu is " + gpus);
      }
      List<Chip> chips = new ArrayList<>();
      for (int i = 0; i < gpus; i++) {
        ChipModel chipModel = models.computeIfAbsent(model, OpenbTrace::chipModel);
        chips.add(
            new Chip(i, name + "-" + i, chipModel, CHIP_MEMORY_MIB, 100, 0, true, -1, "gpu-" + i));
      }
      nodes.add(
          new SimCluster.Node(
              new NodeInventory(name, SplitMode.SOFT, MAX_SHARES, chips),
              new HostResources(row.number("cpu_milli"), row.number("memory_mib"))));
    }
    return new SimCluster(nodes);
  }

  /**
   * The pods of a pod list ({@code name,cpu_milli,memory_mib,num_gpu,gpu_milli[,gpu_spec,...]}).
   */
  public static List<SimPod> pods(Path csv) {
    List<SimPod> pods = new ArrayList<>();
    for (Row row : rows(csv, "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")) {
      pods.add(pod(row));
    }
    return pods;
  }

  private static SimPod pod(Row row) {
    int count = (int) row.number("num_gpu");
    long milli = row.number("gpu_milli");
    if (count < 0 || count > 64 || milli < 0 || milli > 1000 || (count > 0 && milli == 0)) {
      throw row.problem("num_gpu " + count + " with gpu_milli " + milli + " is not a GPU request");
    }
    if (count > 1 && milli < 1000) {
      throw row.problem("num_gpu " + count + " with gpu_milli " + milli + ": shares span one GPU");
    }
    String spec = row.optional("gpu_spec");
    List<String> types = spec.isEmpty() ? List.of() : List.of(spec.split("\\|", -1));
    if (types.stream().anyMatch(String::isBlank)) {
      throw row.problem("gpu_spec " + spec + " has an empty GPU type; separate types with |");
    }
    boolean whole = milli == 1000;
    int cores = (int) ((milli + 9) / 10);
    ContainerRequest container =
        new ContainerRequest(
            "main",
            false,
            count,
            whole ? 100 : cores,
            whole ? null : milli * CHIP_MEMORY_MIB / 1000,
            ChipTypes.of(types.stream().map(String::strip).toList()),
            whole ? null : AiCorePolicy.ELASTIC);
    return SimPod.of(
        row.text("name"),
        container,
        PodOptions.defaults(),
        new HostResources(row.number("cpu_milli"), row.number("memory_mib")));
  }

  private static ChipModel chipModel(String name) {
    return new ChipModel(
        name,
        100,
        0,
        CHIP_MEMORY_MIB,
        false,
        new Interconnect(InterconnectKind.NONE, 1),
        List.of());
  }

  /** One line of a CSV file, with its header. */
  private record Row(Path file, int line, Map<String, Integer> header, String[] cells) {

    String text(String column) {
      int index = header.get(column);
      if (index >= cells.length) {
        throw problem("has no value for column " + column);
      }
      return cells[index].strip();
    }

    String optional(String column) {
      Integer index = header.get(column);
      String value = index == null || index >= cells.length ? "" : cells[index].strip();
      return value.equals("nan") ? "" : value;
    }

    long number(String column) {
      String value = text(column);
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw problem(column + " \"" + value + "\" is not a whole number");
      }
    }

    InvalidInputException problem(String why) {
      return new InvalidInputException(file + " line " + line + ": " + why);
    }
  }

  private static List<Row> rows(Path csv, String... required) {
    List<String> lines;
    try {
      lines = Files.readAllLines(csv);
    } catch (NoSuchFileException e) {
      throw new InvalidInputException(csv + ": no such file");
    } catch (IOException e) {
      throw new UncheckedIOException(csv + ": cannot be read", e);
    }
    if (lines.isEmpty()) {
      throw new InvalidInputException(csv + ": empty, expected a header line");
    }
    Map<String, Integer> header = new HashMap<>();
    String[] names = lines.get(0).split(",", -1);
    for (int i = 0; i < names.length; i++) {
      header.put(names[i].strip(), i);
    }
    for (String column : required) {
      if (!header.containsKey(column)) {
        throw new InvalidInputException(
            csv
                + ": header lacks column "
                + column
                + " (expected "
                + Arrays.toString(required)
                + ")");
      }
    }
    List<Row> rows = new ArrayList<>();
    for (int i = 1; i < lines.size(); i++) {
      if (lines.get(i).isBlank()) {
        continue;
      }
      String[] cells = lines.get(i).split(",", -1);
      if (cells.length < required.length) {
        throw new InvalidInputException(
            csv
                + " line "
                + (i + 1)
                + ": "
                + cells.length
                + " cells, the header has "
                + names.length);
      }
      rows.add(new Row(csv, i + 1, header, cells));
    }
    return rows;
  }
}
