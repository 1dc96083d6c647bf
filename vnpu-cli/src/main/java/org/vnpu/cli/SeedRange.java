package org.vnpu.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses {@code 42..51} or {@code 42,43,50} into seeds. */
final class SeedRange implements ITypeConverter<List<Long>> {

  @Override
  public List<Long> convert(String value) {
    List<Long> seeds = new ArrayList<>();
    try {
      for (String part : value.split(",")) {
        String[] range = part.strip().split("\\.\\.");
        long from = Long.parseLong(range[0].strip());
        long to = range.length > 1 ? Long.parseLong(range[1].strip()) : from;
        if (range.length > 2 || to < from || to - from > 10_000) {
          throw new NumberFormatException();
        }
        for (long seed = from; seed <= to; seed++) {
          seeds.add(seed);
        }
      }
    } catch (NumberFormatException e) {
      throw new TypeConversionException(
          "'" + value + "' is not a seed list; use a range like 42..51 or a list like 42,43");
    }
    return seeds;
  }
}
