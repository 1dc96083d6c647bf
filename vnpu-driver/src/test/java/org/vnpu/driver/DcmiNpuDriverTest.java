package org.vnpu.driver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.jna.Structure;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;

/** Drives the real JNA binding against the fake libdcmi.so built by libvnpu's Makefile. */
class DcmiNpuDriverTest {

  private static final String DIE_0 = "0A1B2C3D-00000000-00000000-00000000-00000001";
  private static final String DIE_1 = "0A1B2C3D-00000000-00000000-00000000-00000002";

  private static final String[] TWO_910B3_CARDS = {
    "# two cards, each one NPU and one MCU",
    "device card=0 device=0 logic=0 type=npu name=910B3 die=0A1B2C3D-0-0-0-1 aicore=20"
        + " memory_mb=65536 memory_used_mb=3445 health=0 aicore_util=37",
    "device card=0 device=1 type=mcu",
    "device card=1 device=0 logic=1 type=npu name=910B3 die=0A1B2C3D-0-0-0-2 aicore=20"
        + " memory_mb=65536 health=1",
    "device card=1 device=1 type=mcu",
    "process logic=0 pid=4242 bytes=1073741824",
    "process logic=0 pid=4243 bytes=2048",
  };

  private final ChipCatalog catalog = ChipCatalog.builtIn();

  @Test
  void structLayoutsMatchTheDocumentedSizes() {
    assertThat(size(new DcmiLibrary.ChipInfo())).isEqualTo(100);
    assertThat(size(new DcmiLibrary.HbmInfo())).isEqualTo(32);
    assertThat(size(new DcmiLibrary.MemoryInfo())).isEqualTo(112);
    assertThat(size(new DcmiLibrary.DieId())).isEqualTo(20);
    assertThat(size(new DcmiLibrary.ProcessMemoryInfo())).isEqualTo(16);
  }

  @Test
  void discoversNpuChipsSkippingMcusWithDieIdsHealthAndMemory() throws IOException {
    FakeDcmi.configure(TWO_910B3_CARDS);

    List<RegisteredChip> chips = DcmiNpuDriver.load(FakeDcmi.LIBRARY, catalog).chips();

    assertThat(chips)
        .containsExactly(
            new RegisteredChip(0, DIE_0, "910B3", 65536, 20, 0, true, -1, ""),
            // health 1 is a minor alarm: still healthy
            new RegisteredChip(1, DIE_1, "910B3", 65536, 20, 0, true, -1, ""));
  }

  @Test
  void deviceShareModeIsReadPerChip() throws IOException {
    FakeDcmi.configure(TWO_910B3_CARDS[1] + " share=1", TWO_910B3_CARDS[3]);
    DcmiNpuDriver driver = DcmiNpuDriver.load(FakeDcmi.LIBRARY, catalog);

    List<RegisteredChip> chips = driver.chips();

    assertThat(chips)
        .extracting(driver::deviceShare)
        .containsExactly(Optional.of(true), Optional.of(false));
  }

  @Test
  void majorAlarmMakesAChipUnhealthy() throws IOException {
    FakeDcmi.configure(TWO_910B3_CARDS[1].replace("health=0", "health=2"));

    assertThat(DcmiNpuDriver.load(FakeDcmi.LIBRARY, catalog).chips())
        .extracting(RegisteredChip::healthy)
        .containsExactly(false);
  }

  @Test
  void chipsWithoutHbmReportTheirMemoryThroughTheGeneralQuery() throws IOException {
    FakeDcmi.configure(
        "device card=3 device=0 logic=4 type=npu name=310P3 die=1-2-3-4-5 aicore=8"
            + " memory_mb=44280 memory_used_mb=1681 hbm=0 aicore_util=5 temperature=51 power=725");

    DcmiNpuDriver driver = DcmiNpuDriver.load(FakeDcmi.LIBRARY, catalog);
    RegisteredChip chip = driver.chips().get(0);

    assertThat(chip)
        .isEqualTo(
            new RegisteredChip(
                4,
                "00000001-00000002-00000003-00000004-00000005",
                "310P3",
                44280,
                8,
                0,
                true,
                -1,
                ""));
    assertThat(driver.usage(chip)).isEqualTo(new ChipUsage(5, 1681, List.of(), 51.0, 72.5));
  }

  @Test
  void usageReadsAiCoreUtilisationMemoryAndProcesses() throws IOException {
    FakeDcmi.configure(TWO_910B3_CARDS);
    DcmiNpuDriver driver = DcmiNpuDriver.load(FakeDcmi.LIBRARY, catalog);

    ChipUsage usage = driver.usage(driver.chips().get(0));

    assertThat(usage)
        .isEqualTo(
            new ChipUsage(
                37,
                3445,
                List.of(
                    new ChipUsage.ProcessMemory(4242, 1L << 30),
                    new ChipUsage.ProcessMemory(4243, 2048)),
                40.0,
                80.0));
  }

  @Test
  void aFailingCallIsNamedWithTheDeviceAndTheReturnCodesName() throws IOException {
    FakeDcmi.configure(TWO_910B3_CARDS[1], "fail call=dcmi_get_device_health code=-8005");

    assertThatThrownBy(() -> DcmiNpuDriver.load(FakeDcmi.LIBRARY, catalog).chips())
        .isInstanceOf(DriverException.class)
        .hasMessage(
            "dcmi_get_device_health(card 0, device 0) failed:"
                + " DCMI_ERR_CODE_INNER_ERR (-8005, internal error)");
  }

  @Test
  void unnamedAndUnknownReturnCodesStillSayWhatHappened() throws IOException {
    FakeDcmi.configure(TWO_910B3_CARDS[1], "fail call=dcmi_get_card_list code=-8014");
    assertThatThrownBy(() -> DcmiNpuDriver.load(FakeDcmi.LIBRARY, catalog).chips())
        .hasMessage("dcmi_get_card_list() failed: DCMI error -8014 (file operation failed)");

    FakeDcmi.configure(TWO_910B3_CARDS[1], "fail call=dcmi_get_card_list code=-1234");
    assertThatThrownBy(() -> DcmiNpuDriver.load(FakeDcmi.LIBRARY, catalog).chips())
        .hasMessage("dcmi_get_card_list() failed: unknown DCMI return code -1234");
  }

  @Test
  void initFailureAndMissingLibraryAreClearErrors() throws IOException {
    Files.deleteIfExists(FakeDcmi.CONFIG);
    assertThatThrownBy(() -> DcmiNpuDriver.load(FakeDcmi.LIBRARY, catalog))
        .hasMessage("dcmi_init() failed: DCMI_ERR_CODE_INNER_ERR (-8005, internal error)");

    assertThatThrownBy(() -> DcmiNpuDriver.load(Path.of("/nonexistent/libdcmi.so"), catalog))
        .isInstanceOf(DriverException.class)
        .hasMessageStartingWith("cannot load DCMI library /nonexistent/libdcmi.so");
  }

  @Test
  void aChipNameOutsideTheCatalogIsRefusedWithAHint() throws IOException {
    FakeDcmi.configure(TWO_910B3_CARDS[1].replace("910B3", "920X"));

    assertThatThrownBy(() -> DcmiNpuDriver.load(FakeDcmi.LIBRARY, catalog).chips())
        .hasMessageContaining("reports chip name '920X', which is not in the chip catalog")
        .hasMessageContaining("--chip-catalog");
  }

  private static int size(Structure structure) {
    return structure.size();
  }

  @Test
  void theLibraryIsAlsoLookedForInTheLoadersPathWhereTheChartPutsTheDriverDirectory() {
    assertThat(
            DcmiNpuDriver.candidates(
                "/opt/Ascend/driver/lib64:relative/lib:/opt/Ascend/driver/lib64/../lib64:"))
        .as("the known locations first, then each absolute directory once, as the loader would")
        .containsExactly(
            Path.of("/usr/local/Ascend/driver/lib64/driver/libdcmi.so"),
            Path.of("/usr/local/dcmi/libdcmi.so"),
            Path.of("/usr/local/Ascend/driver/lib64/common/libdcmi.so"),
            Path.of("/opt/Ascend/driver/lib64/libdcmi.so"));
    assertThat(DcmiNpuDriver.candidates(null)).isEqualTo(DcmiNpuDriver.KNOWN_LOCATIONS);
  }
}
