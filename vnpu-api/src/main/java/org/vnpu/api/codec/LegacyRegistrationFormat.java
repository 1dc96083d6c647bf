package org.vnpu.api.codec;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;

/**
 * openFuyao's legacy {@code huawei.com/node-vnpu-register} value: one {@code
 * index,dieID,count,memMB,type,health,numa:} entry per chip, where {@code type} reads {@code
 * NPU-ASCEND-<chip>} and {@code count} is the device plugin's split count. It carries no split mode
 * (soft is assumed), no AI Core or AI CPU counts and no interconnect group (left for the catalog).
 */
final class LegacyRegistrationFormat {

  private static final String TYPE_PREFIX = "NPU-ASCEND-";
  private static final int FIELDS = 7;
  private static final Set<String> TRUE = Set.of("1", "t", "true");
  private static final Set<String> FALSE = Set.of("0", "f", "false");

  private LegacyRegistrationFormat() {}

  static NodeRegistration parse(String key, String value) {
    List<RegisteredChip> chips = new ArrayList<>();
    int shares = 0;
    for (String entry : value.strip().split(":")) {
      if (entry.isBlank()) {
        continue;
      }
      int number = chips.size() + 1;
      String[] fields = entry.strip().split(",", -1);
      if (fields.length != FIELDS) {
        throw problem(
            key,
            number,
            entry,
            "has "
                + fields.length
                + " fields, expected "
                + FIELDS
                + " (index,dieID,count,memMB,type,health,numa)");
      }
      int count = (int) number(key, number, entry, "count", fields[2]);
      if (shares != 0 && count != shares) {
        throw problem(
            key,
            number,
            entry,
            "count "
                + count
                + " differs from the first chip's "
                + shares
                + "; vNPU takes one share count per node");
      }
      shares = count;
      try {
        chips.add(
            new RegisteredChip(
                (int) number(key, number, entry, "index", fields[0]),
                fields[1],
                chipType(fields[4]),
                number(key, number, entry, "memMB", fields[3]),
                0,
                0,
                health(key, number, entry, fields[5]),
                (int) number(key, number, entry, "numa", fields[6]),
                ""));
      } catch (IllegalArgumentException e) {
        throw problem(key, number, entry, e.getMessage());
      }
    }
    if (chips.isEmpty()) {
      throw new MalformedPayloadException(key, "legacy format lists no chips: \"" + value + "\"");
    }
    try {
      return new NodeRegistration(SplitMode.SOFT, shares, chips);
    } catch (IllegalArgumentException e) {
      throw new MalformedPayloadException(key, "legacy format: " + e.getMessage());
    }
  }

  private static String chipType(String type) {
    return type.startsWith(TYPE_PREFIX) ? type.substring(TYPE_PREFIX.length()) : type;
  }

  private static long number(String key, int chip, String entry, String field, String text) {
    try {
      return Long.parseLong(text.strip());
    } catch (NumberFormatException e) {
      throw problem(key, chip, entry, field + " \"" + text + "\" is not a whole number");
    }
  }

  private static boolean health(String key, int chip, String entry, String text) {
    String normalized = text.strip().toLowerCase(Locale.ROOT);
    if (TRUE.contains(normalized)) {
      return true;
    }
    if (FALSE.contains(normalized)) {
      return false;
    }
    throw problem(key, chip, entry, "health \"" + text + "\" is not true or false");
  }

  private static MalformedPayloadException problem(String key, int chip, String entry, String why) {
    return new MalformedPayloadException(
        key, "legacy format, chip " + chip + " (\"" + entry + "\"): " + why);
  }
}
