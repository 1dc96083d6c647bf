package org.vnpu.cli;

import java.util.function.Function;
import picocli.CommandLine.Option;

/** The {@code --output} option, shared by every command that prints a result. */
final class OutputOption {

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      defaultValue = "text",
      description = "text or json (default: ${DEFAULT-VALUE}).")
  OutputFormat format;

  /** {@code value} as JSON when asked for, else the text {@code text} renders. */
  <T> String render(T value, Function<T, String> text) {
    return format == OutputFormat.JSON ? Json.pretty(value) : text.apply(value);
  }
}
