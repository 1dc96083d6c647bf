package org.vnpu.cli;

import org.vnpu.api.LogLevel;
import org.vnpu.api.WireValue;
import picocli.CommandLine;

/** Reads {@code --shim-log-level} in the spelling the shim's config uses. */
final class LogLevelConverter implements CommandLine.ITypeConverter<LogLevel> {

  @Override
  public LogLevel convert(String text) {
    return WireValue.parse(LogLevel.class, text)
        .orElseThrow(
            () ->
                new CommandLine.TypeConversionException(
                    "'" + text + "' is not one of " + WireValue.choices(LogLevel.class)));
  }
}
