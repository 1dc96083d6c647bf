package org.vnpu.dra;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.TreeMap;
import org.vnpu.handouts.Handout;

/**
 * The Container Device Interface spec files of prepared claims, one per claim in the CDI directory
 * ({@code /var/run/cdi}), which containerd and CRI-O read: kind {@code <driver>/npu}, one device
 * per allocated device with the container edits of the device plugin's hand-out (environment,
 * device nodes, mounts).
 */
final class CdiSpecs {

  static final String CDI_VERSION = "0.6.0";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Path directory;
  private final String kind;

  CdiSpecs(Path directory, String driver) {
    this.directory = directory;
    this.kind = driver + "/npu";
  }

  /** The CDI device ID of {@code name}. */
  String id(String name) {
    return kind + "=" + name;
  }

  /** The spec file of claim {@code uid}. */
  Path file(String claimUid) {
    return directory.resolve(kind.replace('/', '_') + "-" + claimUid + ".json");
  }

  /** Writes claim {@code uid}'s spec with its devices, by CDI device name. */
  void write(String claimUid, Map<String, Handout> devices) throws IOException {
    ObjectNode spec = JSON.createObjectNode();
    spec.put("cdiVersion", CDI_VERSION);
    spec.put("kind", kind);
    ArrayNode list = spec.putArray("devices");
    devices.forEach((name, handout) -> list.add(device(name, handout)));
    Files.createDirectories(directory);
    Path file = file(claimUid);
    Path temporary = file.resolveSibling("." + file.getFileName() + ".tmp");
    JSON.writerWithDefaultPrettyPrinter().writeValue(temporary.toFile(), spec);
    Files.move(
        temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  void remove(String claimUid) throws IOException {
    Files.deleteIfExists(file(claimUid));
  }

  private static ObjectNode device(String name, Handout handout) {
    ObjectNode device = JSON.createObjectNode();
    device.put("name", name);
    ObjectNode edits = device.putObject("containerEdits");
    ArrayNode env = edits.putArray("env");
    new TreeMap<>(handout.environment()).forEach((key, value) -> env.add(key + "=" + value));
    ArrayNode nodes = edits.putArray("deviceNodes");
    for (Handout.DeviceNode node : handout.devices()) {
      nodes
          .addObject()
          .put("path", node.containerPath())
          .put("hostPath", node.hostPath())
          .put("permissions", node.permissions());
    }
    ArrayNode mounts = edits.putArray("mounts");
    for (Handout.MountPoint mount : handout.mounts()) {
      ObjectNode entry =
          mounts
              .addObject()
              .put("hostPath", mount.hostPath())
              .put("containerPath", mount.containerPath());
      entry.putArray("options").add(mount.readOnly() ? "ro" : "rw").add("bind");
    }
    return device;
  }
}
