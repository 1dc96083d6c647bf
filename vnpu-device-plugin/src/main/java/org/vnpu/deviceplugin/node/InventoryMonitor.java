package org.vnpu.deviceplugin.node;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.driver.DriverException;
import org.vnpu.driver.NpuDriver;

/**
 * Follows the driver's view of the chips. Each {@link #poll()} asks the driver; a change goes to
 * the kubelet at once and to the API server with the next publication, which also happens every
 * heartbeat interval. A driver that fails {@value #FAILURES_BEFORE_UNHEALTHY} polls in a row has
 * its last known chips reported unhealthy until it answers again.
 */
public final class InventoryMonitor {

  static final int FAILURES_BEFORE_UNHEALTHY = 3;

  private static final Logger LOG = LoggerFactory.getLogger(InventoryMonitor.class);

  private final NpuDriver driver;
  private final NodePublisher publisher;
  private final Consumer<List<RegisteredChip>> kubelet;
  private final Duration heartbeat;
  private final Clock clock;
  private List<RegisteredChip> chips;
  private Instant published;
  private int failures;

  /**
   * @param kubelet receives every changed chip list (the ListAndWatch stream)
   * @param heartbeat how often the inventory and heartbeat are published without a change
   */
  public InventoryMonitor(
      NpuDriver driver,
      NodePublisher publisher,
      Consumer<List<RegisteredChip>> kubelet,
      Duration heartbeat,
      Clock clock) {
    this.driver = driver;
    this.publisher = publisher;
    this.kubelet = kubelet;
    this.heartbeat = heartbeat;
    this.clock = clock;
  }

  /** Asks the driver once, and publishes what changed or is due. Never throws. */
  public synchronized void poll() {
    List<RegisteredChip> current = discover();
    if (current == null) {
      return;
    }
    boolean changed = !current.equals(chips);
    if (changed) {
      if (chips != null) {
        LOG.info("chips changed: {}", describe(current));
      } else {
        LOG.info("{} driver found {}", driver.name(), describe(current));
      }
      chips = current;
      kubelet.accept(current);
    }
    Instant now = clock.instant();
    if (changed || published == null || !now.isBefore(published.plus(heartbeat))) {
      try {
        publisher.publish(current);
        published = now;
      } catch (RuntimeException e) {
        LOG.warn("cannot publish the node inventory, will retry: {}", e.toString());
        published = null;
      }
    }
  }

  private List<RegisteredChip> discover() {
    try {
      List<RegisteredChip> found = driver.chips();
      if (failures > 0) {
        LOG.info("{} driver answers again after {} failed poll(s)", driver.name(), failures);
      }
      failures = 0;
      return found;
    } catch (DriverException e) {
      failures++;
      LOG.error("{} driver failed ({} in a row): {}", driver.name(), failures, e.getMessage());
      if (failures < FAILURES_BEFORE_UNHEALTHY || chips == null) {
        return null;
      }
      return chips.stream().map(InventoryMonitor::unhealthy).toList();
    }
  }

  private static RegisteredChip unhealthy(RegisteredChip chip) {
    return new RegisteredChip(
        chip.index(),
        chip.dieId(),
        chip.chipType(),
        chip.memoryMiB(),
        chip.aiCores(),
        chip.aiCpus(),
        false,
        chip.numaNode(),
        chip.interconnectGroup());
  }

  private static String describe(List<RegisteredChip> chips) {
    long healthy = chips.stream().filter(RegisteredChip::healthy).count();
    return chips.size()
        + " chip(s), "
        + healthy
        + " healthy: "
        + chips.stream()
            .map(c -> c.index() + ":" + c.chipType() + (c.healthy() ? "" : "(unhealthy)"))
            .toList();
  }
}
