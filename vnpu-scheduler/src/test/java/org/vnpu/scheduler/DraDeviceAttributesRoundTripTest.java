package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.inventory.Chip;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.dra.DeviceOrder;
import org.vnpu.dra.NodeDevices;
import org.vnpu.dra.ResourceSlices;
import org.vnpu.dra.Sharing;

/**
 * The DRA device attributes are one contract ({@code DraDeviceAttributes}): what the DRA driver
 * writes of each chip into its ResourceSlices, the scheduler reads back as the same chip, in every
 * way of sharing.
 */
class DraDeviceAttributesRoundTripTest {

  private static final String DRIVER = "vnpu.huawei.com";

  private static final List<RegisteredChip> CHIPS =
      List.of(
          new RegisteredChip(0, "die-a", "910B3", 65_536, 20, 7, true, 0, "hccs-0"),
          new RegisteredChip(1, "die-b", "910B4", 32_768, 20, 7, true, 1, "hccs-1"));

  @ParameterizedTest
  @CsvSource({"PROFILES, 1", "PROFILES, 4", "PARTITIONABLE, 4", "CONSUMABLE, 1"})
  void theSchedulerReadsTheChipsTheDriverPublishes(Sharing sharing, int slices) {
    DraLedger ledger = new DraLedger(DRIVER, ChipCatalog.builtIn());
    NodeDevices devices = NodeDevices.of(CHIPS, sharing, slices, DeviceOrder.BINPACK);

    ResourceSlices.of(DRIVER, "n1", 1, devices).forEach(ledger::sliceChanged);

    NodeState node = ledger.node("n1").orElseThrow();
    assertThat(node.inventory().chips())
        .extracting(
            Chip::index,
            Chip::dieId,
            c -> c.model().name(),
            Chip::memoryMiB,
            Chip::aiCores,
            Chip::numaNode,
            Chip::interconnectGroup)
        .containsExactly(
            tuple(0, "die-a", "910B3", 65_536L, 20, 0, "hccs-0"),
            tuple(1, "die-b", "910B4", 32_768L, 20, 1, "hccs-1"));
  }
}
