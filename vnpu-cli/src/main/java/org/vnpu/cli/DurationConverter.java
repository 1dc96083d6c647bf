package org.vnpu.cli;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;

/** Reads durations as people write them: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}. */
final class DurationConverter implements CommandLine.ITypeConverter<Duration> {

  private static final Pattern FORMAT = Pattern.compile("(\\d+)(ms|s|m|h)");

  @Override
  public Duration convert(String text) {
    Matcher matcher = FORMAT.matcher(text.strip());
    if (!matcher.matches()) {
      throw new CommandLine.TypeConversionException(
          "'" + text + "' is not a duration; write it like 500ms, 5s, 2m or 1h");
    }
    long amount = Long.parseLong(matcher.group(1));
    switch (matcher.group(2)) {
      case "ms":
        return Duration.ofMillis(amount);
      case "s":
        return Duration.ofSeconds(amount);
      case "m":
        return Duration.ofMinutes(amount);
      default:
        return Duration.ofHours(amount);
    }
  }
}
