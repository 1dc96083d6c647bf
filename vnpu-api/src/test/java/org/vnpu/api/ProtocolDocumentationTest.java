package org.vnpu.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProtocolDocumentationTest {

  private static final Path DOC = Path.of("../docs/protocol.md");

  @Test
  void everyNameAndKeyIsDocumented() throws IOException {
    String doc = Files.readString(DOC);
    List<String> missing =
        constants(ResourceNames.class, AnnotationKeys.class, LabelKeys.class).stream()
            .filter(value -> !doc.contains("`" + value + "`") && !doc.contains("`" + value + "<"))
            .toList();
    assertThat(missing).as("keys in vnpu-api but not in %s", DOC).isEmpty();
  }

  private static List<String> constants(Class<?>... holders) {
    return Arrays.stream(holders)
        .flatMap(holder -> Arrays.stream(holder.getDeclaredFields()))
        .filter(field -> Modifier.isStatic(field.getModifiers()) && field.getType() == String.class)
        .map(ProtocolDocumentationTest::value)
        .toList();
  }

  private static String value(Field field) {
    try {
      return (String) field.get(null);
    } catch (IllegalAccessException e) {
      throw new AssertionError("cannot read " + field, e);
    }
  }
}
