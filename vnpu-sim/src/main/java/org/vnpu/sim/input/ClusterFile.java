package org.vnpu.sim.input;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.input.InvalidInputException;
import org.vnpu.core.input.YamlFiles;
import org.vnpu.core.inventory.NodeInventory;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.validation.Validated;
import org.vnpu.sim.SimCluster;

/**
 * A cluster as groups of identical nodes:
 *
 * <pre>
 * nodes:
 *   - name: a2            # nodes are named a2-0, a2-1, ...
 *     count: 4
 *     chipType: 910B3     # a catalog chip type
 *     chips: 8
 *     splitMode: soft     # soft (default) or hard
 *     maxSharesPerChip: 20
 *     cpuMilli: 192000
 *     memoryMiB: 1048576
 * </pre>
 */
public final class ClusterFile {

  /** One group of identical nodes; fields as in the class comment. */
  record NodeGroup(
      String name,
      int count,
      String chipType,
      int chips,
      SplitMode splitMode,
      Integer maxSharesPerChip,
      long cpuMilli,
      long memoryMiB) {}

  record Content(List<NodeGroup> nodes) {}

  private ClusterFile() {}

  public static SimCluster read(Path file, ChipCatalog catalog) {
    return build(file.toString(), YamlFiles.read(file, Content.class), catalog);
  }

  public static SimCluster read(String source, InputStream in, ChipCatalog catalog) {
    return build(source, YamlFiles.read(source, in, Content.class), catalog);
  }

  private static SimCluster build(String source, Content content, ChipCatalog catalog) {
    if (content.nodes() == null || content.nodes().isEmpty()) {
      throw new InvalidInputException(
          source + ": lists no nodes (expected a top-level `nodes:` list)");
    }
    List<SimCluster.Node> nodes = new ArrayList<>();
    for (NodeGroup group : content.nodes()) {
      String where = source + ": node group " + group.name();
      if (group.name() == null || group.count() < 1 || group.chips() < 1) {
        throw new InvalidInputException(where + ": needs a name, count ≥ 1 and chips ≥ 1");
      }
      long memory =
          catalog
              .find(String.valueOf(group.chipType()))
              .orElseThrow(
                  () ->
                      new InvalidInputException(
                          where
                              + ": chipType "
                              + group.chipType()
                              + " is not in the catalog ("
                              + catalog.names()
                              + ")"))
              .memoryMiB();
      for (int n = 0; n < group.count(); n++) {
        nodes.add(node(where, group, group.name() + "-" + n, memory, catalog));
      }
    }
    return new SimCluster(nodes);
  }

  private static SimCluster.Node node(
      String where, NodeGroup group, String name, long memory, ChipCatalog catalog) {
    List<RegisteredChip> chips = new ArrayList<>();
    for (int i = 0; i < group.chips(); i++) {
      chips.add(
          new RegisteredChip(i, name + "-" + i, group.chipType(), memory, 0, 0, true, -1, ""));
    }
    NodeRegistration registration;
    try {
      registration =
          new NodeRegistration(
              group.splitMode() == null ? SplitMode.SOFT : group.splitMode(),
              group.maxSharesPerChip() == null ? 20 : group.maxSharesPerChip(),
              chips);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(where + ": " + e.getMessage());
    }
    Validated<NodeInventory> inventory = NodeInventory.from(name, registration, catalog);
    return new SimCluster.Node(
        inventory.orElseThrow(), new HostResources(group.cpuMilli(), group.memoryMiB()));
  }
}
