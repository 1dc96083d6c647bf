package org.vnpu.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.util.function.Function;
import picocli.CommandLine.Option;

/** The {@code --output} option, shared by every command that prints a result. */
final class OutputOption {

  private static final ObjectWriter JSON =
      JsonMapper.builder().build().writerWithDefaultPrettyPrinter();
  private static final ObjectWriter YAML =
      YAMLMapper.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER).build().writer();

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      defaultValue = "text",
      description =
          "text, wide (text with more columns where the command has them), json or yaml"
              + " (default: ${DEFAULT-VALUE}).")
  OutputFormat format;

  /** {@code value} as JSON or YAML when asked for, else the text {@code text} renders. */
  <T> String render(T value, Function<T, String> text) {
    return render(value, text, text);
  }

  /** As {@link #render(Object, Function)}, with {@code wide} for {@code -o wide}. */
  <T> String render(T value, Function<T, String> text, Function<T, String> wide) {
    try {
      return switch (format) {
        case TEXT -> text.apply(value);
        case WIDE -> wide.apply(value);
        case JSON -> JSON.writeValueAsString(value) + "\n";
        case YAML -> YAML.writeValueAsString(value);
      };
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + value.getClass().getSimpleName(), e);
    }
  }
}
