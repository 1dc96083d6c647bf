package org.vnpu.core.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.validation.Problem;
import org.vnpu.core.validation.Validated;

class NodeInventoryTest {

  private final ChipCatalog catalog = ChipCatalog.builtIn();

  @Test
  void completesLegacyRegistrationFromTheCatalog() {
    NodeRegistration legacy =
        new PayloadCodec()
            .decodeRegistration(
                "1,D1,4,21527,NPU-ASCEND-310P3,true,0:0,D0,4,21527,NPU-ASCEND-310P3,false,0:");

    NodeInventory inventory = NodeInventory.from("duo-1", legacy, catalog).orElseThrow();

    assertThat(inventory.splitMode()).isEqualTo(SplitMode.SOFT);
    assertThat(inventory.maxSharesPerChip()).isEqualTo(4);
    assertThat(inventory.chips()).extracting(Chip::index).containsExactly(0, 1);
    Chip first = inventory.chips().get(0);
    assertThat(first.aiCores()).isEqualTo(8);
    assertThat(first.aiCpus()).isEqualTo(7);
    assertThat(first.memoryMiB()).isEqualTo(21527);
    assertThat(first.healthy()).isFalse();
    assertThat(first.interconnectGroup()).isEqualTo("card-0");
  }

  @Test
  void keepsFiguresTheDevicePluginPublished() {
    NodeRegistration registration =
        new NodeRegistration(
            SplitMode.HARD,
            7,
            List.of(new RegisteredChip(2, "D2", "910B3", 61440, 18, 6, true, 1, "mesh-a")));

    Chip chip = NodeInventory.from("a2", registration, catalog).orElseThrow().chips().get(0);

    assertThat(chip.aiCores()).isEqualTo(18);
    assertThat(chip.aiCpus()).isEqualTo(6);
    assertThat(chip.interconnectGroup()).isEqualTo("mesh-a");
    assertThat(chip.model().name()).isEqualTo("910B3");
  }

  @Test
  void reportsEveryChipOfUnknownType() {
    NodeRegistration registration =
        new NodeRegistration(
            SplitMode.SOFT,
            4,
            List.of(
                new RegisteredChip(0, "D0", "910Z", 1024, 0, 0, true, 0, ""),
                new RegisteredChip(1, "D1", "910B3", 1024, 0, 0, true, 0, ""),
                new RegisteredChip(2, "D2", "X1", 1024, 0, 0, true, 0, "")));

    Validated<NodeInventory> result = NodeInventory.from("n", registration, catalog);

    assertThat(result).isInstanceOf(Validated.Invalid.class);
    assertThat(((Validated.Invalid<NodeInventory>) result).problems())
        .extracting(Problem::message)
        .containsExactly(
            "chip 0 type 910Z of node n: is not in the chip catalog ("
                + catalog.names()
                + "); add it with a catalog file",
            "chip 2 type X1 of node n: is not in the chip catalog ("
                + catalog.names()
                + "); add it with a catalog file");
  }
}
