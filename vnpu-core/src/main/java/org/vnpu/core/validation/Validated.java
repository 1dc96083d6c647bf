package org.vnpu.core.validation;

import java.util.List;

/**
 * Either a valid value or every problem found in the input.
 *
 * @param <T> the value's type
 */
public sealed interface Validated<T> {

  /** A valid value. */
  record Valid<T>(T value) implements Validated<T> {}

  /** The problems, at least one. */
  record Invalid<T>(List<Problem> problems) implements Validated<T> {
    public Invalid {
      problems = List.copyOf(problems);
      if (problems.isEmpty()) {
        throw new IllegalArgumentException("an invalid outcome needs at least one problem");
      }
    }

    /** Every problem's message, joined by "; ". */
    public String messages() {
      return String.join("; ", problems.stream().map(Problem::message).toList());
    }
  }

  static <T> Validated<T> valid(T value) {
    return new Valid<>(value);
  }

  static <T> Validated<T> invalid(List<Problem> problems) {
    return new Invalid<>(problems);
  }

  /** The value; for callers that validated earlier and treat a problem here as a bug. */
  default T orElseThrow() {
    if (this instanceof Valid<T> valid) {
      return valid.value();
    }
    throw new IllegalStateException("invalid: " + ((Invalid<T>) this).problems().get(0).message());
  }
}
