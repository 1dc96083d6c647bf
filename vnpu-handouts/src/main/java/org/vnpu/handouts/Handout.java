package org.vnpu.handouts;

import java.util.List;
import java.util.Map;

/**
 * What one container receives: the answer to one {@code ContainerAllocateRequest}.
 *
 * @param environment environment variables
 * @param mounts host paths mounted into the container
 * @param devices device nodes made available in the container
 */
public record Handout(
    Map<String, String> environment, List<MountPoint> mounts, List<DeviceNode> devices) {

  public Handout {
    environment = Map.copyOf(environment);
    mounts = List.copyOf(mounts);
    devices = List.copyOf(devices);
  }

  /** A host path mounted at {@code containerPath}. */
  public record MountPoint(String containerPath, String hostPath, boolean readOnly) {}

  /** A device node; permissions any of {@code r}, {@code w}, {@code m}. */
  public record DeviceNode(String containerPath, String hostPath, String permissions) {}
}
