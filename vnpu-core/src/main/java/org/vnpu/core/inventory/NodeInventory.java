package org.vnpu.core.inventory;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipModel;
import org.vnpu.core.validation.Problem;
import org.vnpu.core.validation.Validated;

/**
 * The chips of one node.
 *
 * @param node node name
 * @param splitMode how the node's chips are shared
 * @param maxSharesPerChip the most vNPUs one chip may hold
 * @param chips the chips, in index order
 */
public record NodeInventory(
    String node, SplitMode splitMode, int maxSharesPerChip, List<Chip> chips) {

  public NodeInventory {
    chips = List.copyOf(chips);
  }

  /**
   * The inventory of {@code node} from its published registration. Figures the registration leaves
   * unknown (openFuyao's legacy format has no AI Cores, AI CPUs or interconnect group) come from
   * the catalog. Every chip of an unknown type is reported.
   */
  public static Validated<NodeInventory> from(
      String node, NodeRegistration registration, ChipCatalog catalog) {
    List<Chip> chips = new ArrayList<>();
    List<Problem> problems = new ArrayList<>();
    for (RegisteredChip registered : registration.chips()) {
      Optional<ChipModel> model = catalog.find(registered.chipType());
      if (model.isEmpty()) {
        problems.add(
            Problem.of(
                "chip "
                    + registered.index()
                    + " type "
                    + registered.chipType()
                    + " of node "
                    + node,
                "is not in the chip catalog ("
                    + catalog.names()
                    + "); add it with a catalog file"));
        continue;
      }
      chips.add(complete(registered, model.get()));
    }
    if (!problems.isEmpty()) {
      return Validated.invalid(problems);
    }
    chips.sort((a, b) -> Integer.compare(a.index(), b.index()));
    return Validated.valid(
        new NodeInventory(node, registration.splitMode(), registration.maxSharesPerChip(), chips));
  }

  private static Chip complete(RegisteredChip registered, ChipModel model) {
    return new Chip(
        registered.index(),
        registered.dieId(),
        model,
        registered.memoryMiB(),
        registered.aiCores() > 0 ? registered.aiCores() : model.aiCores(),
        registered.aiCpus() > 0 ? registered.aiCpus() : model.aiCpus(),
        registered.healthy(),
        registered.numaNode(),
        registered.interconnectGroup().isEmpty()
            ? model.interconnect().groupOf(registered.index())
            : registered.interconnectGroup());
  }
}
