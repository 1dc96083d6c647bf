package org.vnpu.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.vnpu.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.vnpu.kubelet.deviceplugin.v1beta1.DeviceSpec;
import org.vnpu.kubelet.deviceplugin.v1beta1.Mount;

/**
 * The container runtime's side of CDI, as containerd's CDI support applies a spec ({@code
 * tags.cncf.io/container-device-interface}, {@code pkg/cdi/container-edits.go}): a fully qualified
 * device name {@code vendor/class=name} is looked up in the spec files of the CDI directory whose
 * {@code kind} is {@code vendor/class}; the spec's own {@code containerEdits} and the device's are
 * applied. Environment entries ({@code KEY=VALUE}), device nodes and mounts become the sandbox's
 * hand-out, which {@link ContainerRuntime} resolves as it resolves a device plugin's: a process
 * without a mount namespace (ADR 0007) cannot open the nodes, but they say which chips it sees.
 */
final class CdiDevices {

  private static final ObjectMapper JSON = new ObjectMapper();

  private CdiDevices() {}

  /** The edits of the devices {@code ids}, read from the specs in {@code directory}. */
  static ContainerAllocateResponse edits(Path directory, List<String> ids) throws IOException {
    ContainerAllocateResponse.Builder handout = ContainerAllocateResponse.newBuilder();
    for (String id : ids) {
      int equals = id.indexOf('=');
      if (equals < 0) {
        throw new IOException("CDI device " + id + " is not vendor/class=name");
      }
      String kind = id.substring(0, equals);
      String name = id.substring(equals + 1);
      JsonNode device = null;
      JsonNode spec = null;
      try (Stream<Path> files = Files.list(directory)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
          JsonNode candidate = JSON.readTree(file.toFile());
          if (!kind.equals(candidate.path("kind").asText())) {
            continue;
          }
          for (JsonNode each : candidate.path("devices")) {
            if (name.equals(each.path("name").asText())) {
              device = each;
              spec = candidate;
            }
          }
        }
      }
      if (device == null) {
        throw new IOException(
            "unresolvable CDI devices " + id + ": no spec of kind " + kind + " in " + directory);
      }
      apply(spec.path("containerEdits"), handout);
      apply(device.path("containerEdits"), handout);
    }
    return handout.build();
  }

  private static void apply(JsonNode edits, ContainerAllocateResponse.Builder handout) {
    for (JsonNode variable : edits.path("env")) {
      String entry = variable.asText();
      int equals = entry.indexOf('=');
      if (equals > 0) {
        handout.putEnvs(entry.substring(0, equals), entry.substring(equals + 1));
      }
    }
    for (JsonNode node : edits.path("deviceNodes")) {
      String path = node.path("path").asText();
      handout.addDevices(
          DeviceSpec.newBuilder()
              .setContainerPath(path)
              .setHostPath(node.path("hostPath").asText(path))
              .setPermissions(node.path("permissions").asText("rwm")));
    }
    for (JsonNode mount : edits.path("mounts")) {
      boolean readOnly = false;
      for (JsonNode option : mount.path("options")) {
        readOnly |= option.asText().equals("ro");
      }
      handout.addMounts(
          Mount.newBuilder()
              .setContainerPath(mount.path("containerPath").asText())
              .setHostPath(mount.path("hostPath").asText())
              .setReadOnly(readOnly));
    }
  }
}
