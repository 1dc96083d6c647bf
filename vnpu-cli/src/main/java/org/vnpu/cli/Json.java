package org.vnpu.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.json.JsonMapper;

/** Pretty JSON for {@code --output json}. */
final class Json {

  private static final ObjectWriter WRITER =
      JsonMapper.builder().build().writerWithDefaultPrettyPrinter();

  private Json() {}

  static String pretty(Object value) {
    try {
      return WRITER.writeValueAsString(value) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write " + value.getClass().getSimpleName(), e);
    }
  }
}
