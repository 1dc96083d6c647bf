package org.vnpu.driver;

import java.util.Comparator;
import java.util.Optional;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipModel;

/**
 * Maps the chip name a driver reports ({@code 910B3}, {@code Ascend 910B3}, {@code 910_9391}) to
 * the catalog's name: an exact match first, then the longest catalog name the reported one starts
 * with.
 */
final class ChipNames {

  private final ChipCatalog catalog;

  ChipNames(ChipCatalog catalog) {
    this.catalog = catalog;
  }

  /**
   * The catalog model of {@code reported}.
   *
   * @param where the device, for the error message
   * @throws DriverException when the catalog has no such chip
   */
  ChipModel resolve(String reported, String where) {
    String name = reported.strip();
    if (name.startsWith("Ascend")) {
      name = name.substring("Ascend".length()).strip();
    }
    String wanted = name;
    Optional<ChipModel> exact = catalog.find(wanted);
    return exact
        .or(
            () ->
                catalog.chips().stream()
                    .filter(model -> wanted.startsWith(model.name()))
                    .max(Comparator.comparingInt(model -> model.name().length())))
        .orElseThrow(
            () ->
                new DriverException(
                    where
                        + " reports chip name '"
                        + reported
                        + "', which is not in the chip catalog (known: "
                        + catalog.names()
                        + "); describe it in a file given to --chip-catalog"));
  }
}
