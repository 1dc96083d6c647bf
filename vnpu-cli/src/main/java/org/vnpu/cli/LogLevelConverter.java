package org.vnpu.cli;

import org.vnpu.api.LogLevel;

/** Reads {@code --shim-log-level} in the spelling the shim's config uses. */
final class LogLevelConverter extends WireValueConverter<LogLevel> {

  LogLevelConverter() {
    super(LogLevel.class);
  }
}
