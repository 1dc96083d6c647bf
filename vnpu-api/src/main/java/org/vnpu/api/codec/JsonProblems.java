package org.vnpu.api.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import java.util.stream.Collectors;

/** Turns Jackson's exceptions into one readable line that names the offending field. */
public final class JsonProblems {

  private JsonProblems() {}

  /**
   * The problem without Jackson's source excerpt, followed by the path of the field, e.g. {@code
   * memoryMiB=0 is out of range 1..9223372036854775807 (at chips[1])}. A record constructor's own
   * message is used as is.
   */
  public static String describe(JsonProcessingException e) {
    return problem(e) + where(e);
  }

  private static String problem(JsonProcessingException e) {
    if (e instanceof ValueInstantiationException && e.getCause() != null) {
      return e.getCause().getMessage();
    }
    if (e instanceof UnrecognizedPropertyException unknown) {
      return "unknown field "
          + unknown.getPropertyName()
          + " (known: "
          + unknown.getKnownPropertyIds().stream()
              .map(String::valueOf)
              .sorted()
              .collect(Collectors.joining(", "))
          + ")";
    }
    if (e.getOriginalMessage().startsWith("Cannot map `null` into type")) {
      return "missing value";
    }
    return e.getOriginalMessage();
  }

  private static String where(JsonProcessingException e) {
    if (!(e instanceof JsonMappingException mapping) || mapping.getPath().isEmpty()) {
      return "";
    }
    StringBuilder path = new StringBuilder();
    for (JsonMappingException.Reference step : mapping.getPath()) {
      if (step.getFieldName() != null) {
        path.append(path.length() == 0 ? "" : ".").append(step.getFieldName());
      } else if (step.getIndex() >= 0) {
        path.append('[').append(step.getIndex()).append(']');
      }
    }
    return " (at " + path + ")";
  }
}
