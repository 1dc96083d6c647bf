package org.vnpu.exporter;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.driver.DriverException;
import org.vnpu.driver.DriverReadings;
import org.vnpu.driver.NpuDriver;

/**
 * Asks the driver for the chips and their usage, and the API server for the node's registration, on
 * its own schedule, so that a scrape never waits for a slow driver (npu-smi takes seconds).
 */
public final class ChipPoller {

  private static final Logger LOG = LoggerFactory.getLogger(ChipPoller.class);

  private final NpuDriver driver;
  private final KubernetesClient client;
  private final String node;
  private final PayloadCodec codec = new PayloadCodec();
  private volatile List<DriverReadings.Reading> readings = List.of();
  private volatile Optional<NodeRegistration> registration = Optional.empty();
  private volatile long driverErrors;

  public ChipPoller(NpuDriver driver, KubernetesClient client, String node) {
    this.driver = driver;
    this.client = client;
    this.node = node;
  }

  /** One poll. Never throws. */
  public synchronized void poll() {
    try {
      readings =
          DriverReadings.take(
                  driver,
                  Instant.now(),
                  (chip, e) -> {
                    driverErrors++;
                    LOG.warn(
                        "{} driver cannot read chip {}: {}",
                        driver.name(),
                        chip.index(),
                        e.getMessage());
                  })
              .chips();
    } catch (DriverException e) {
      driverErrors++;
      LOG.warn("{} driver failed: {}", driver.name(), e.getMessage());
    }
    registration = readRegistration();
  }

  private Optional<NodeRegistration> readRegistration() {
    try {
      Node self = client.nodes().withName(node).get();
      Map<String, String> annotations = self == null ? null : self.getMetadata().getAnnotations();
      String value = annotations == null ? null : annotations.get(AnnotationKeys.NODE_REGISTER);
      return value == null ? Optional.empty() : Optional.of(codec.decodeRegistration(value));
    } catch (RuntimeException e) { // malformed annotation or API server unavailable
      LOG.warn("cannot read the registration of node {}: {}", node, e.getMessage());
      return registration;
    }
  }

  /** The chips at the last successful poll. */
  public List<DriverReadings.Reading> readings() {
    return readings;
  }

  /** The node's registration as the device plugin published it, if any. */
  public Optional<NodeRegistration> registration() {
    return registration;
  }

  /** Driver calls that failed since start. */
  public long driverErrors() {
    return driverErrors;
  }
}
