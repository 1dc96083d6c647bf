package org.vnpu.dra;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The claims prepared on this node, on disk, so that a restarted plugin answers a repeated prepare
 * with the same devices and can still unprepare what it prepared before. Written atomically after
 * every change.
 */
final class Checkpoint {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TypeReference<TreeMap<String, List<PreparedDevice>>> TYPE =
      new TypeReference<>() {};

  private final Path file;
  private final Map<String, List<PreparedDevice>> claims;

  private Checkpoint(Path file, Map<String, List<PreparedDevice>> claims) {
    this.file = file;
    this.claims = claims;
  }

  /** Reads {@code file}; a missing file is an empty checkpoint. */
  static Checkpoint load(Path file) throws IOException {
    if (!Files.exists(file)) {
      return new Checkpoint(file, new TreeMap<>());
    }
    try {
      return new Checkpoint(file, JSON.readValue(file.toFile(), TYPE));
    } catch (IOException e) {
      throw new IOException("checkpoint " + file + " is unreadable: " + e.getMessage(), e);
    }
  }

  Optional<List<PreparedDevice>> get(String claimUid) {
    return Optional.ofNullable(claims.get(claimUid));
  }

  void put(String claimUid, List<PreparedDevice> devices) throws IOException {
    claims.put(claimUid, List.copyOf(devices));
    save();
  }

  void remove(String claimUid) throws IOException {
    if (claims.remove(claimUid) != null) {
      save();
    }
  }

  private void save() throws IOException {
    Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
    JSON.writerWithDefaultPrettyPrinter().writeValue(temporary.toFile(), claims);
    Files.move(
        temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
