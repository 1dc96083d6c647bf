package org.vnpu.core.chip;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.vnpu.api.codec.JsonProblems;

/**
 * The chip types vNPU knows, by name. Immutable; {@link #builtIn()} reads the catalog shipped in
 * the jar and {@link #withOverrides(Path)} adds or replaces chips from a user file of the same
 * format.
 */
public final class ChipCatalog {

  private static final String BUILT_IN = "chips.yaml";
  private static final ObjectMapper YAML =
      YAMLMapper.builder().enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES).build();

  /** Prefixes other components put before a catalog name: openFuyao's and DCMI's spellings. */
  private static final List<String> NAME_PREFIXES = List.of("npu-ascend-", "ascend");

  private final Map<String, ChipModel> byKey;
  private final List<ChipModel> ordered;

  private ChipCatalog(Collection<ChipModel> chips) {
    Map<String, ChipModel> map = new LinkedHashMap<>();
    chips.forEach(chip -> map.put(key(chip.name()), chip));
    this.byKey = Map.copyOf(map);
    this.ordered = List.copyOf(map.values());
  }

  /** The catalog shipped with vNPU. */
  public static ChipCatalog builtIn() {
    try (InputStream in = ChipCatalog.class.getResourceAsStream(BUILT_IN)) {
      if (in == null) {
        throw new IllegalStateException(
            "built-in chip catalog " + BUILT_IN + " is missing from the jar");
      }
      return new ChipCatalog(read("(built in)", in));
    } catch (IOException e) {
      throw new InvalidCatalogException("(built in)", "cannot be read: " + e.getMessage(), e);
    }
  }

  /** This catalog with the chips of {@code file} added, replacing chips of the same name. */
  public ChipCatalog withOverrides(Path file) {
    List<ChipModel> overrides;
    try (InputStream in = Files.newInputStream(file)) {
      overrides = read(file.toString(), in);
    } catch (IOException e) {
      throw new InvalidCatalogException(file.toString(), "cannot be read: " + e, e);
    }
    Map<String, ChipModel> merged = new LinkedHashMap<>();
    ordered.forEach(chip -> merged.put(key(chip.name()), chip));
    overrides.forEach(chip -> merged.put(key(chip.name()), chip));
    return new ChipCatalog(merged.values());
  }

  /**
   * The chip called {@code name}, compared without case and without the prefixes other components
   * write: {@code 310P3}, {@code Ascend310P3} and {@code NPU-ASCEND-310P3} are one chip.
   */
  public Optional<ChipModel> find(String name) {
    return Optional.ofNullable(byKey.get(key(name)));
  }

  /** Every chip, built-in ones first in catalog order. */
  public List<ChipModel> chips() {
    return ordered;
  }

  /** The chip names joined for error messages: {@code 310P3, 910A, ...}. */
  public String names() {
    return ordered.stream().map(ChipModel::name).collect(Collectors.joining(", "));
  }

  private static String key(String name) {
    String key = name.strip().toLowerCase(Locale.ROOT);
    for (String prefix : NAME_PREFIXES) {
      if (key.startsWith(prefix)) {
        return key.substring(prefix.length());
      }
    }
    return key;
  }

  private static List<ChipModel> read(String source, InputStream in) throws IOException {
    CatalogFile file;
    try {
      file = YAML.readValue(in, CatalogFile.class);
    } catch (JsonProcessingException e) {
      throw new InvalidCatalogException(source, JsonProblems.describe(e), e);
    }
    if (file == null || file.chips() == null || file.chips().isEmpty()) {
      throw new InvalidCatalogException(
          source, "lists no chips (expected a top-level `chips:` list)", null);
    }
    Map<String, ChipModel> seen = new LinkedHashMap<>();
    for (ChipModel chip : file.chips()) {
      if (seen.put(key(chip.name()), chip) != null) {
        throw new InvalidCatalogException(source, "chip " + chip.name() + " appears twice", null);
      }
    }
    return file.chips();
  }

  /** The file format: a top-level list of chips. */
  private record CatalogFile(List<ChipModel> chips) {}
}
