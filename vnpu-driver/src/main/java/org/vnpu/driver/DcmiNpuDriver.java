package org.vnpu.driver;

import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipModel;

/**
 * Discovers chips through Huawei's DCMI library, loaded with JNA. Enumeration follows MindCluster:
 * cards, devices per card, NPU-type devices only, logic ID as the chip index, the VDIE ID as its
 * die ID. Power is reported in tenths of a watt. Health 0 (normal) and 1 (minor alarm) count as
 * healthy; major and critical alarms do not.
 */
public final class DcmiNpuDriver implements NpuDriver {

  /** Where Ascend drivers install libdcmi.so, searched in order when no path is given. */
  public static final List<Path> KNOWN_LOCATIONS =
      List.of(
          Path.of("/usr/local/Ascend/driver/lib64/driver/libdcmi.so"),
          Path.of("/usr/local/dcmi/libdcmi.so"),
          Path.of("/usr/local/Ascend/driver/lib64/common/libdcmi.so"));

  private static final int HEALTH_MINOR_ALARM = 1;

  private final DcmiLibrary dcmi;
  private final ChipNames names;
  private final Map<Integer, Device> devices = new HashMap<>();

  private DcmiNpuDriver(DcmiLibrary dcmi, ChipCatalog catalog) {
    this.dcmi = dcmi;
    this.names = new ChipNames(catalog);
  }

  /**
   * Loads {@code library} and initialises DCMI.
   *
   * @throws DriverException when the library cannot be loaded or {@code dcmi_init} fails
   */
  public static DcmiNpuDriver load(Path library, ChipCatalog catalog) {
    DcmiLibrary dcmi;
    try {
      dcmi = Native.load(library.toString(), DcmiLibrary.class);
    } catch (UnsatisfiedLinkError e) {
      throw new DriverException("cannot load DCMI library " + library + ": " + e.getMessage(), e);
    }
    DcmiNpuDriver driver = new DcmiNpuDriver(dcmi, catalog);
    driver.check(dcmi.dcmi_init(), "dcmi_init()");
    return driver;
  }

  /** The first of {@link #KNOWN_LOCATIONS} that exists. */
  public static Optional<Path> installedLibrary() {
    return candidates(System.getenv("LD_LIBRARY_PATH")).stream()
        .filter(Files::isRegularFile)
        .findFirst();
  }

  /**
   * Where libdcmi.so is looked for: {@link #KNOWN_LOCATIONS}, then each directory of {@code
   * ldLibraryPath} (may be null), as the dynamic loader would. The chart puts its {@code
   * devicePlugin.driverDir} there, which a node may have elsewhere than {@code
   * /usr/local/Ascend/driver}.
   */
  public static List<Path> candidates(String ldLibraryPath) {
    List<Path> candidates = new ArrayList<>(KNOWN_LOCATIONS);
    if (ldLibraryPath != null) {
      for (String directory : ldLibraryPath.split(":")) {
        if (directory.startsWith("/")) {
          Path library = Path.of(directory).resolve("libdcmi.so").normalize();
          if (!candidates.contains(library)) {
            candidates.add(library);
          }
        }
      }
    }
    return candidates;
  }

  @Override
  public String name() {
    return "dcmi";
  }

  @Override
  public List<RegisteredChip> chips() {
    devices.clear();
    List<RegisteredChip> chips = new ArrayList<>();
    for (int card : cards()) {
      IntByReference count = new IntByReference();
      check(
          dcmi.dcmi_get_device_num_in_card(card, count), call("dcmi_get_device_num_in_card", card));
      for (int device = 0; device < count.getValue(); device++) {
        IntByReference type = new IntByReference();
        check(
            dcmi.dcmi_get_device_type(card, device, type),
            new Device(card, device).call("dcmi_get_device_type"));
        if (type.getValue() == DcmiLibrary.NPU_TYPE) {
          chips.add(chip(new Device(card, device)));
        }
      }
    }
    chips.sort(Comparator.comparingInt(RegisteredChip::index));
    return chips;
  }

  @Override
  public Optional<Boolean> deviceShare(RegisteredChip chip) {
    Device device = device(chip);
    IntByReference enabled = new IntByReference();
    check(
        dcmi.dcmi_get_device_share_enable(device.card, device.device, enabled),
        device.call("dcmi_get_device_share_enable"));
    return Optional.of(enabled.getValue() == 1);
  }

  @Override
  public ChipUsage usage(RegisteredChip chip) {
    Device device = device(chip);
    IntByReference aiCore = new IntByReference();
    check(
        dcmi.dcmi_get_device_utilization_rate(
            device.card, device.device, DcmiLibrary.UTILIZATION_AI_CORE, aiCore),
        device.call("dcmi_get_device_utilization_rate"));
    IntByReference count = new IntByReference();
    DcmiLibrary.ProcessMemoryInfo first = new DcmiLibrary.ProcessMemoryInfo();
    DcmiLibrary.ProcessMemoryInfo[] slots =
        (DcmiLibrary.ProcessMemoryInfo[]) first.toArray(DcmiLibrary.MAX_PROCESSES);
    check(
        dcmi.dcmi_get_device_resource_info(device.card, device.device, slots[0], count),
        device.call("dcmi_get_device_resource_info"));
    List<ChipUsage.ProcessMemory> processes =
        IntStream.range(0, Math.min(count.getValue(), DcmiLibrary.MAX_PROCESSES))
            .mapToObj(
                i -> {
                  slots[i].read();
                  return new ChipUsage.ProcessMemory(
                      slots[i].proc_id, slots[i].proc_mem_usage.longValue());
                })
            .collect(Collectors.toList());
    IntByReference temperature = new IntByReference();
    check(
        dcmi.dcmi_get_device_temperature(device.card, device.device, temperature),
        device.call("dcmi_get_device_temperature"));
    IntByReference power = new IntByReference();
    check(
        dcmi.dcmi_get_device_power_info(device.card, device.device, power),
        device.call("dcmi_get_device_power_info"));
    return new ChipUsage(
        aiCore.getValue(),
        memory(device).usedMiB,
        processes,
        (double) temperature.getValue(),
        power.getValue() / 10.0);
  }

  private int[] cards() {
    IntByReference count = new IntByReference();
    int[] list = new int[DcmiLibrary.MAX_CARDS];
    check(dcmi.dcmi_get_card_list(count, list, list.length), "dcmi_get_card_list()");
    return Arrays.copyOf(list, count.getValue());
  }

  private RegisteredChip chip(Device device) {
    IntByReference logic = new IntByReference();
    check(
        dcmi.dcmi_get_device_logic_id(logic, device.card, device.device),
        device.call("dcmi_get_device_logic_id"));
    devices.put(logic.getValue(), device);

    DcmiLibrary.ChipInfo info = new DcmiLibrary.ChipInfo();
    check(
        dcmi.dcmi_get_device_chip_info(device.card, device.device, info),
        device.call("dcmi_get_device_chip_info"));
    String reported = text(info.chip_name);
    ChipModel model = names.resolve(reported, device.call("dcmi_get_device_chip_info"));

    DcmiLibrary.DieId die = new DcmiLibrary.DieId();
    check(
        dcmi.dcmi_get_device_die_v2(device.card, device.device, DcmiLibrary.VDIE, die),
        device.call("dcmi_get_device_die_v2"));

    IntByReference health = new IntByReference();
    check(
        dcmi.dcmi_get_device_health(device.card, device.device, health),
        device.call("dcmi_get_device_health"));

    return new RegisteredChip(
        logic.getValue(),
        dieId(die),
        model.name(),
        memory(device).totalMiB,
        info.aicore_cnt,
        0,
        Integer.compareUnsigned(health.getValue(), HEALTH_MINOR_ALARM) <= 0,
        -1,
        "");
  }

  /** HBM where the chip has it; the general memory query (e.g. on 310P) where it does not. */
  private Memory memory(Device device) {
    DcmiLibrary.HbmInfo hbm = new DcmiLibrary.HbmInfo();
    int rc = dcmi.dcmi_get_device_hbm_info(device.card, device.device, hbm);
    if (rc == 0 && hbm.memory_size > 0) {
      return new Memory(hbm.memory_size, hbm.memory_usage);
    }
    if (rc != 0 && !DcmiReturnCode.NOT_SUPPORT.is(rc)) {
      check(rc, device.call("dcmi_get_device_hbm_info"));
    }
    DcmiLibrary.MemoryInfo memory = new DcmiLibrary.MemoryInfo();
    check(
        dcmi.dcmi_get_device_memory_info_v3(device.card, device.device, memory),
        device.call("dcmi_get_device_memory_info_v3"));
    return new Memory(memory.memory_size, memory.memory_size - memory.memory_available);
  }

  private void check(int rc, String call) {
    if (rc != 0) {
      throw new DriverException(call + " failed: " + DcmiReturnCode.describe(rc));
    }
  }

  private static String call(String function, int card) {
    return function + "(card " + card + ")";
  }

  /** {@code 0A1B2C3D-00000000-...}: the five words in upper-case hex, as MindCluster formats it. */
  static String dieId(DcmiLibrary.DieId die) {
    return IntStream.of(die.soc_die)
        .mapToObj(word -> String.format(Locale.ROOT, "%08X", word))
        .collect(Collectors.joining("-"));
  }

  private static String text(byte[] bytes) {
    int end = 0;
    while (end < bytes.length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, 0, end, StandardCharsets.US_ASCII);
  }

  private Device device(RegisteredChip chip) {
    Device device = devices.get(chip.index());
    if (device == null) {
      throw new DriverException("chip " + chip.index() + " was not discovered by DCMI");
    }
    return device;
  }

  private record Device(int card, int device) {
    String call(String function) {
      return function + "(card " + card + ", device " + device + ")";
    }
  }

  private record Memory(long totalMiB, long usedMiB) {}
}
