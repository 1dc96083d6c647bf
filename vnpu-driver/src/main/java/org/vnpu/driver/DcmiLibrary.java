package org.vnpu.driver;

import com.sun.jna.Library;
import com.sun.jna.NativeLong;
import com.sun.jna.Structure;
import com.sun.jna.Structure.FieldOrder;
import com.sun.jna.ptr.IntByReference;

/**
 * The DCMI calls of {@code libdcmi.so} the device plugin needs, with the documented signatures and
 * struct layouts (LP64; sizes checked by DcmiLayoutTest). Method names are the C symbols.
 */
@SuppressWarnings("MethodName")
interface DcmiLibrary extends Library {

  /** {@code enum dcmi_unit_type}: the only device type that computes. */
  int NPU_TYPE = 0;

  /** {@code enum dcmi_die_type}: the virtual die ID, usable as the chip's UUID. */
  int VDIE = 1;

  /** {@code dcmi_get_device_utilization_rate} input types. */
  int UTILIZATION_AI_CORE = 2;

  /** Process slots of {@code dcmi_get_device_resource_info}. */
  int MAX_PROCESSES = 32;

  /** Card slots of {@code dcmi_get_card_list}. */
  int MAX_CARDS = 64;

  int dcmi_init();

  int dcmi_get_card_list(IntByReference cardNum, int[] cardList, int listLen);

  int dcmi_get_device_num_in_card(int cardId, IntByReference deviceNum);

  int dcmi_get_device_type(int cardId, int deviceId, IntByReference deviceType);

  int dcmi_get_device_logic_id(IntByReference deviceLogicId, int cardId, int deviceId);

  int dcmi_get_device_chip_info(int cardId, int deviceId, ChipInfo chipInfo);

  int dcmi_get_device_health(int cardId, int deviceId, IntByReference health);

  /** 1 when containers may share the chip, 0 (the default after a reboot) when not. */
  int dcmi_get_device_share_enable(int cardId, int deviceId, IntByReference enableFlag);

  int dcmi_get_device_hbm_info(int cardId, int deviceId, HbmInfo hbmInfo);

  int dcmi_get_device_memory_info_v3(int cardId, int deviceId, MemoryInfo memoryInfo);

  int dcmi_get_device_utilization_rate(
      int cardId, int deviceId, int inputType, IntByReference utilizationRate);

  int dcmi_get_device_temperature(int cardId, int deviceId, IntByReference temperature);

  /** Power in tenths of a watt. */
  int dcmi_get_device_power_info(int cardId, int deviceId, IntByReference power);

  int dcmi_get_device_die_v2(int cardId, int deviceId, int inputType, DieId dieId);

  int dcmi_get_device_resource_info(
      int cardId, int deviceId, ProcessMemoryInfo procInfo, IntByReference procNum);

  /** {@code struct dcmi_chip_info}, 100 bytes. */
  @FieldOrder({"chip_type", "chip_name", "chip_ver", "aicore_cnt"})
  class ChipInfo extends Structure {
    public byte[] chip_type = new byte[32];
    public byte[] chip_name = new byte[32];
    public byte[] chip_ver = new byte[32];
    public int aicore_cnt;
  }

  /** {@code struct dcmi_hbm_info}, 32 bytes; sizes in MB. */
  @FieldOrder({"memory_size", "freq", "memory_usage", "temp", "bandwith_util_rate"})
  class HbmInfo extends Structure {
    public long memory_size;
    public int freq;
    public long memory_usage;
    public int temp;
    public int bandwith_util_rate;
  }

  /** {@code struct dcmi_get_memory_info_stru}, 112 bytes on LP64; sizes in MB. */
  @FieldOrder({
    "memory_size",
    "memory_available",
    "freq",
    "hugepagesize",
    "hugepages_total",
    "hugepages_free",
    "utiliza",
    "reserve"
  })
  class MemoryInfo extends Structure {
    public long memory_size;
    public long memory_available;
    public int freq;
    public NativeLong hugepagesize;
    public NativeLong hugepages_total;
    public NativeLong hugepages_free;
    public int utiliza;
    public byte[] reserve = new byte[60];
  }

  /** {@code struct dcmi_die_id}, 20 bytes. */
  @FieldOrder({"soc_die"})
  class DieId extends Structure {
    public int[] soc_die = new int[5];
  }

  /** {@code struct dcmi_proc_mem_info}, 16 bytes; usage in bytes. */
  @FieldOrder({"proc_id", "proc_mem_usage"})
  class ProcessMemoryInfo extends Structure {
    public int proc_id;
    public NativeLong proc_mem_usage;
  }
}
