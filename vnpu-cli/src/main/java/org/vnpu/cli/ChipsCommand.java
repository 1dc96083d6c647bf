package org.vnpu.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipModel;
import org.vnpu.core.chip.Interconnect;
import org.vnpu.core.chip.VnpuTemplate;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code vnpu chips}: prints the chip catalog. */
@Command(
    name = "chips",
    mixinStandardHelpOptions = true,
    description = {
      "Print the chip catalog.",
      "Per chip: AI Cores, AI CPUs, memory, server interconnect and hardware vNPU templates."
    })
final class ChipsCommand implements Callable<Integer> {

  @Mixin CatalogOption catalog;

  @Mixin OutputOption output;

  @Spec CommandSpec spec;

  @Override
  public Integer call() {
    ChipCatalog chips = catalog.load();
    PrintWriter out = spec.commandLine().getOut();
    out.print(output.render(chips.chips(), ChipsCommand::table));
    out.flush();
    return 0;
  }

  private static String table(List<ChipModel> chips) {
    TextTable table =
        new TextTable(
            "CHIP", "AI CORES", "AI CPUS", "MEMORY", "INTERCONNECT", "TEMPLATES", "VERIFIED");
    for (ChipModel chip : chips) {
      table.row(
          chip.name(),
          chip.aiCores(),
          chip.aiCpus() == 0 ? "-" : chip.aiCpus(),
          MemoryText.of(chip.memoryMiB()),
          interconnect(chip.interconnect()),
          chip.templates().isEmpty()
              ? "- (no hard mode)"
              : chip.templates().stream().map(VnpuTemplate::name).collect(Collectors.joining(" ")),
          chip.verified() ? "yes" : "no");
    }
    return table.render("")
        + "\nAI CPUS \"-\": not tracked for this chip. Sources and conflicts: docs/chips.md\n";
  }

  private static String interconnect(Interconnect interconnect) {
    return interconnect.groupSize() == 1
        ? interconnect.kind().wireName()
        : interconnect.kind().wireName() + " of " + interconnect.groupSize();
  }
}
