package org.vnpu.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.vnpu.api.SplitMode;

/**
 * One simulated node of the sandbox.
 *
 * @param name the node's name
 * @param description what real machine it stands for
 * @param mode its split mode (the {@code huawei.com/vnpu-mode} label)
 * @param chips its chips, index {@code i} is {@code /dev/davinci<i>}
 */
public record NodeSpec(String name, String description, SplitMode mode, List<Chip> chips) {

  /**
   * One chip.
   *
   * @param type the catalog name
   * @param dieId its die ID; null for the simulated driver's {@code SIM-<node>-<index>}
   */
  public record Chip(String type, String dieId) {}

  public NodeSpec {
    chips = List.copyOf(chips);
  }

  /** A node of {@code count} chips of one type. */
  public static NodeSpec uniform(
      String name, String description, SplitMode mode, String type, int count) {
    return new NodeSpec(name, description, mode, Collections.nCopies(count, new Chip(type, null)));
  }

  /** The simulated driver's inventory file (docs/node-agent.md), chips in {@code unhealthy} not. */
  String inventory(Set<Integer> unhealthy) {
    List<String> lines = new ArrayList<>();
    lines.add("# " + description + " (" + name + "), written by the vNPU sandbox");
    lines.add("chips:");
    for (int index = 0; index < chips.size(); index++) {
      Chip chip = chips.get(index);
      lines.add(
          "  - {type: "
              + chip.type()
              + ", index: "
              + index
              + ", numaNode: "
              + (index < chips.size() / 2 ? 0 : 1)
              + ", healthy: "
              + !unhealthy.contains(index)
              + (chip.dieId() == null ? "" : ", dieId: \"" + chip.dieId() + "\"")
              + "}");
    }
    return String.join("\n", lines) + "\n";
  }

  /** Writes {@link #inventory} to {@code directory/inventory.yaml} at once (a rename). */
  void writeInventory(Path directory, Set<Integer> unhealthy) {
    try {
      Path temporary = directory.resolve("inventory.yaml.tmp");
      Files.writeString(temporary, inventory(unhealthy));
      Files.move(
          temporary,
          directory.resolve("inventory.yaml"),
          StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
