package org.vnpu.api.payload;

import java.util.List;
import java.util.Objects;

/** Constructor checks shared by the payload records; failures name the field. */
final class Checks {

  private Checks() {}

  static String text(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(field + " must not be empty");
    }
    return value;
  }

  static <T> T present(T value, String field) {
    return Objects.requireNonNull(value, () -> field + " must be present");
  }

  static <T> List<T> list(List<T> value, String field) {
    return List.copyOf(present(value, field));
  }

  static long range(long value, long min, long max, String field) {
    if (value < min || value > max) {
      throw new IllegalArgumentException(
          field + "=" + value + " is out of range " + min + ".." + max);
    }
    return value;
  }
}
