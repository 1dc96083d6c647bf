package org.vnpu.api;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** An enumerated value with a fixed spelling on the wire (annotations, labels, payloads). */
public interface WireValue {

  /** The spelling on the wire. */
  String wireName();

  /** The constant of {@code type} spelled {@code text} on the wire, if any. */
  static <E extends Enum<E> & WireValue> Optional<E> parse(Class<E> type, String text) {
    return Arrays.stream(type.getEnumConstants())
        .filter(value -> value.wireName().equals(text))
        .findFirst();
  }

  /** The accepted spellings of {@code type}, for error messages: {@code soft, hard}. */
  static <E extends Enum<E> & WireValue> String choices(Class<E> type) {
    return Arrays.stream(type.getEnumConstants())
        .map(WireValue::wireName)
        .collect(Collectors.joining(", "));
  }
}
