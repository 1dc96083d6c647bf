package org.vnpu.core.input;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.vnpu.api.codec.JsonProblems;

/**
 * Reads the YAML input files (simulator workloads, simulated inventories) into records, with errors
 * that name the file and field.
 */
public final class YamlFiles {

  private static final ObjectMapper YAML =
      YAMLMapper.builder().enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES).build();

  private YamlFiles() {}

  public static <T> T read(Path file, Class<T> type) {
    try (InputStream in = Files.newInputStream(file)) {
      return read(file.toString(), in, type);
    } catch (NoSuchFileException e) {
      throw new InvalidInputException(file + ": no such file");
    } catch (IOException e) {
      throw new InvalidInputException(file + ": cannot be read: " + e.getMessage(), e);
    }
  }

  public static <T> T read(String source, InputStream in, Class<T> type) {
    try {
      T value = YAML.readValue(in, type);
      if (value == null) {
        throw new InvalidInputException(source + ": empty");
      }
      return value;
    } catch (JsonProcessingException e) {
      throw new InvalidInputException(source + ": " + JsonProblems.describe(e), e);
    } catch (IOException e) {
      throw new InvalidInputException(source + ": cannot be read: " + e.getMessage(), e);
    }
  }
}
