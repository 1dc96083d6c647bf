package org.vnpu.cli;

import java.nio.file.Path;
import org.vnpu.core.chip.ChipCatalog;
import picocli.CommandLine.Option;

/** The {@code --chip-catalog} option, shared by every command that needs the chip catalog. */
final class CatalogOption {

  @Option(
      names = "--chip-catalog",
      paramLabel = "FILE",
      description =
          "YAML file of chips to add to the built-in catalog, or to replace chips of the same"
              + " name (format: docs/chips.md).")
  Path file;

  /** The built-in catalog, with the user's file applied when given. */
  ChipCatalog load() {
    ChipCatalog builtIn = ChipCatalog.builtIn();
    return file == null ? builtIn : builtIn.withOverrides(file);
  }
}
