package org.vnpu.api.payload;

import java.util.List;
import org.vnpu.api.LogLevel;

/**
 * What the runtime shim of one container enforces, written by the device plugin into a read-only
 * file (see {@link org.vnpu.api.codec.ShimConfigFormat}).
 *
 * @param podUid UID of the pod, for logs
 * @param podNamespace namespace of the pod, for logs
 * @param podName name of the pod, for logs
 * @param container container name
 * @param booksDirectory the container's own books directory inside the container
 * @param logLevel how much the shim logs
 * @param offline how the container runs as offline work; null for an online container
 * @param devices the container's visible devices in order; device {@code i} is the runtime's device
 *     {@code i}
 */
public record ShimConfig(
    String podUid,
    String podNamespace,
    String podName,
    String container,
    String booksDirectory,
    LogLevel logLevel,
    OfflineWork offline,
    List<ShimDevice> devices) {

  public ShimConfig {
    Checks.text(podUid, "podUid");
    Checks.text(podNamespace, "podNamespace");
    Checks.text(podName, "podName");
    Checks.text(container, "container");
    Checks.text(booksDirectory, "booksDirectory");
    Checks.present(logLevel, "logLevel");
    devices = Checks.list(devices, "devices");
    if (devices.isEmpty()) {
      throw new IllegalArgumentException("devices must not be empty");
    }
  }
}
