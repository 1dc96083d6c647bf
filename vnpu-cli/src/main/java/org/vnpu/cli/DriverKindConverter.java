package org.vnpu.cli;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.vnpu.driver.Drivers;
import picocli.CommandLine;

/** Reads {@code --driver}: {@code dcmi}, {@code npu-smi} or {@code simulated}. */
final class DriverKindConverter implements CommandLine.ITypeConverter<Drivers.Kind> {

  static String spelling(Drivers.Kind kind) {
    return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  @Override
  public Drivers.Kind convert(String text) {
    return Arrays.stream(Drivers.Kind.values())
        .filter(kind -> spelling(kind).equals(text))
        .findFirst()
        .orElseThrow(
            () ->
                new CommandLine.TypeConversionException(
                    "'"
                        + text
                        + "' is not one of "
                        + Arrays.stream(Drivers.Kind.values())
                            .map(DriverKindConverter::spelling)
                            .collect(Collectors.joining(", "))));
  }
}
