package org.vnpu.driver;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipModel;
import org.vnpu.core.input.InvalidInputException;
import org.vnpu.core.input.YamlFiles;

/**
 * Chips described by a YAML file, for development, tests and the sandbox. The file is read again on
 * every call, so editing it changes the node; {@code healthChanges} script changes over time,
 * counted from when the driver started. Example:
 *
 * <pre>
 * chips:
 *   - {type: 910B3, count: 8}            # indexes 0..7, die IDs SIM-&lt;node&gt;-&lt;index&gt;
 *   - {type: 310P3, index: 8, healthy: false, aiCoreUtilization: 35, memoryUsedMiB: 2048,
 *      temperatureCelsius: 51, deviceShare: false}     # device-share mode: on unless false
 * healthChanges:
 *   - {afterSeconds: 30, chip: 2, healthy: false}
 * </pre>
 */
public final class SimulatedNpuDriver implements NpuDriver {

  private final Path file;
  private final String node;
  private final ChipCatalog catalog;
  private final Clock clock;
  private final Instant started;
  private Map<Integer, Usage> usages = Map.of();

  /**
   * @param file the inventory file
   * @param node this node's name; simulated die IDs include it, so they are unique in a cluster
   */
  public SimulatedNpuDriver(Path file, String node, ChipCatalog catalog, Clock clock) {
    this.file = file;
    this.node = node;
    this.catalog = catalog;
    this.clock = clock;
    this.started = clock.instant();
    chips();
  }

  @Override
  public String name() {
    return "simulated";
  }

  @Override
  public List<RegisteredChip> chips() {
    InventoryFile inventory;
    try {
      inventory = YamlFiles.read(file, InventoryFile.class);
    } catch (InvalidInputException e) {
      throw new DriverException("simulated inventory " + e.getMessage(), e);
    }
    if (inventory.chips() == null || inventory.chips().isEmpty()) {
      throw new DriverException(file + ": lists no chips (expected a top-level `chips:` list)");
    }
    Map<Integer, Boolean> changed = healthChanges(inventory);
    List<RegisteredChip> chips = new ArrayList<>();
    Map<Integer, Usage> nextUsages = new HashMap<>();
    for (int entry = 0; entry < inventory.chips().size(); entry++) {
      SimulatedChip spec = inventory.chips().get(entry);
      String where = file + ": chips[" + entry + "]";
      ChipModel model = model(spec, where);
      int count = spec.count() == null ? 1 : spec.count();
      if (count < 1 || (count > 1 && spec.dieId() != null)) {
        throw new DriverException(
            where + ".count=" + count + ": must be at least 1, and 1 when dieId is given");
      }
      int first =
          spec.index() != null
              ? spec.index()
              : nextUsages.keySet().stream().mapToInt(Integer::intValue).max().orElse(-1) + 1;
      for (int index = first; index < first + count; index++) {
        if (nextUsages.containsKey(index)) {
          throw new DriverException(where + ": chip index " + index + " appears twice");
        }
        boolean healthy = changed.getOrDefault(index, spec.healthy() == null || spec.healthy());
        chips.add(chip(spec, model, index, healthy));
        nextUsages.put(index, reportedUsage(spec));
      }
    }
    for (Integer chip : changed.keySet()) {
      if (!nextUsages.containsKey(chip)) {
        throw new DriverException(
            file + ": healthChanges name chip " + chip + ", which is not listed");
      }
    }
    usages = nextUsages;
    chips.sort(Comparator.comparingInt(RegisteredChip::index));
    return chips;
  }

  /** The catalog's model of the entry's chip type. */
  private ChipModel model(SimulatedChip spec, String where) {
    return catalog
        .find(String.valueOf(spec.type()))
        .orElseThrow(
            () ->
                new DriverException(
                    where
                        + ".type="
                        + spec.type()
                        + " is not in the chip catalog (known: "
                        + catalog.names()
                        + ")"));
  }

  /** The entry's chip at {@code index}. */
  private RegisteredChip chip(SimulatedChip spec, ChipModel model, int index, boolean healthy) {
    return new RegisteredChip(
        index,
        spec.dieId() != null ? spec.dieId() : "SIM-" + node + "-" + index,
        model.name(),
        spec.memoryMiB() != null ? spec.memoryMiB() : model.memoryMiB(),
        0,
        0,
        healthy,
        spec.numaNode() == null ? -1 : spec.numaNode(),
        "");
  }

  /** What the driver reports of the entry's chips' use. */
  private static Usage reportedUsage(SimulatedChip spec) {
    return new Usage(
        spec.aiCoreUtilization() == null ? 0 : spec.aiCoreUtilization(),
        spec.memoryUsedMiB() == null ? 0 : spec.memoryUsedMiB(),
        spec.temperatureCelsius(),
        spec.deviceShare() == null || spec.deviceShare());
  }

  @Override
  public Optional<Boolean> deviceShare(RegisteredChip chip) {
    return Optional.of(usage(chip.index()).deviceShare());
  }

  @Override
  public ChipUsage usage(RegisteredChip chip) {
    Usage usage = usage(chip.index());
    return new ChipUsage(
        usage.aiCorePercent(), usage.memoryUsedMiB(), List.of(), usage.temperatureCelsius(), null);
  }

  private Usage usage(int chip) {
    Usage usage = usages.get(chip);
    if (usage == null) {
      throw new DriverException("chip " + chip + " is not in " + file);
    }
    return usage;
  }

  /** The health each scripted change has set by now, per chip index. */
  private Map<Integer, Boolean> healthChanges(InventoryFile inventory) {
    Duration elapsed = Duration.between(started, clock.instant());
    Map<Integer, Boolean> changed = new HashMap<>();
    List<HealthChange> changes =
        inventory.healthChanges() == null ? List.of() : inventory.healthChanges();
    for (int i = 0; i < changes.size(); i++) {
      HealthChange change = changes.get(i);
      if (change.afterSeconds() == null || change.chip() == null || change.healthy() == null) {
        throw new DriverException(
            file + ": healthChanges[" + i + "] needs afterSeconds, chip and healthy");
      }
      if (elapsed.toMillis() >= (long) (change.afterSeconds() * 1000)) {
        changed.put(change.chip(), change.healthy());
      }
    }
    return changed;
  }

  private record Usage(
      int aiCorePercent, long memoryUsedMiB, Double temperatureCelsius, boolean deviceShare) {}

  /** The file's top level; fields as in the class comment, absent ones null. */
  record InventoryFile(List<SimulatedChip> chips, List<HealthChange> healthChanges) {}

  /** One chip, or {@code count} identical chips with consecutive indexes. */
  record SimulatedChip(
      String type,
      Integer index,
      Integer count,
      String dieId,
      Long memoryMiB,
      Boolean healthy,
      Integer numaNode,
      Integer aiCoreUtilization,
      Long memoryUsedMiB,
      Double temperatureCelsius,
      Boolean deviceShare) {}

  /** From {@code afterSeconds} on, chip {@code chip} reports {@code healthy}. */
  record HealthChange(Double afterSeconds, Integer chip, Boolean healthy) {}
}
