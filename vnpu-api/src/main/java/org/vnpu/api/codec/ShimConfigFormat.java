package org.vnpu.api.codec;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.LogLevel;
import org.vnpu.api.Priority;
import org.vnpu.api.WireValue;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.api.payload.ShimConfig;
import org.vnpu.api.payload.ShimDevice;

/**
 * The runtime shim's config file: {@code key=value} lines, versioned, read by C code without a
 * parser library. Lines starting with {@code #} and blank lines are ignored; every key is required
 * (offline.max_kernels_in_flight only with priority=offline), none may repeat, unknown keys are
 * errors (the shim fails closed on anything it does not understand). docs/protocol.md shows an
 * example; the C reader is {@code libvnpu/src/config.c}.
 */
public final class ShimConfigFormat {

  /** The version this build writes and reads (3: priorities). */
  public static final int VERSION = 3;

  /** The name errors carry, as in {@code vnpu.conf: missing key container}. */
  public static final String FILE_NAME = "vnpu.conf";

  /** Present only when {@code priority=offline}. */
  private static final String OFFLINE_CAP = "offline.max_kernels_in_flight";

  private static final String HEADER =
      "# vNPU runtime shim configuration, written by the device plugin; do not edit.\n";

  /** The file's text. */
  public String write(ShimConfig config) {
    Map<String, String> entries = new LinkedHashMap<>();
    entries.put("version", Integer.toString(VERSION));
    entries.put("pod.uid", config.podUid());
    entries.put("pod.namespace", config.podNamespace());
    entries.put("pod.name", config.podName());
    entries.put("container", config.container());
    entries.put("books_dir", config.booksDirectory());
    entries.put("log.level", config.logLevel().wireName());
    entries.put("priority", priorityOf(config).wireName());
    if (config.offline() != null) {
      entries.put(OFFLINE_CAP, Integer.toString(config.offline().maxKernelsInFlight()));
    }
    entries.put("devices", Integer.toString(config.devices().size()));
    for (int i = 0; i < config.devices().size(); i++) {
      ShimDevice device = config.devices().get(i);
      String prefix = "device." + i + ".";
      entries.put(prefix + "die_id", device.dieId());
      entries.put(prefix + "memory_bytes", Long.toString(device.memoryBytes()));
      entries.put(prefix + "cores", Integer.toString(device.cores()));
      entries.put(prefix + "policy", device.policy().wireName());
      entries.put(prefix + "region", device.region());
    }
    StringBuilder text = new StringBuilder(HEADER);
    entries.forEach(
        (key, value) -> {
          if (value.indexOf('\n') >= 0) {
            throw new IllegalArgumentException(key + " must not contain a line break");
          }
          text.append(key).append('=').append(value).append('\n');
        });
    return text.toString();
  }

  /**
   * The config in {@code text}.
   *
   * @throws MalformedPayloadException naming the line or key at fault
   */
  public ShimConfig read(String text) {
    Entries entries = Entries.parse(text);
    int version = entries.integer("version");
    if (version != VERSION) {
      throw problem("unsupported version " + version + " (this build reads " + VERSION + ")");
    }
    int count = entries.integer("devices");
    if (count < 1 || count > 64) {
      throw problem("devices=" + count + " is out of range 1..64");
    }
    List<ShimDevice> devices = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      String prefix = "device." + i + ".";
      devices.add(
          entries.build(
              () ->
                  new ShimDevice(
                      entries.text(prefix + "die_id"),
                      entries.longValue(prefix + "memory_bytes"),
                      entries.integer(prefix + "cores"),
                      entries.wire(prefix + "policy", AiCorePolicy.class),
                      entries.text(prefix + "region"))));
    }
    ShimConfig config =
        entries.build(
            () ->
                new ShimConfig(
                    entries.text("pod.uid"),
                    entries.text("pod.namespace"),
                    entries.text("pod.name"),
                    entries.text("container"),
                    entries.text("books_dir"),
                    entries.wire("log.level", LogLevel.class),
                    entries.wire("priority", Priority.class) == Priority.OFFLINE
                        ? new OfflineWork(entries.integer(OFFLINE_CAP))
                        : null,
                    devices));
    entries.requireAllUsed();
    return config;
  }

  private static Priority priorityOf(ShimConfig config) {
    return config.offline() == null ? Priority.ONLINE : Priority.OFFLINE;
  }

  private static MalformedPayloadException problem(String message) {
    return new MalformedPayloadException(FILE_NAME, message);
  }

  /** The key/value pairs of one file, consumed key by key so that leftovers are reported. */
  private static final class Entries {
    private final Map<String, String> values;

    private Entries(Map<String, String> values) {
      this.values = values;
    }

    static Entries parse(String text) {
      Map<String, String> values = new LinkedHashMap<>();
      String[] lines = text.split("\n", -1);
      for (int number = 1; number <= lines.length; number++) {
        String line = lines[number - 1].strip();
        if (line.isEmpty() || line.startsWith("#")) {
          continue;
        }
        int equals = line.indexOf('=');
        if (equals <= 0) {
          throw problem("line " + number + " is not key=value: " + line);
        }
        String key = line.substring(0, equals);
        if (values.put(key, line.substring(equals + 1)) != null) {
          throw problem("line " + number + " repeats key " + key);
        }
      }
      return new Entries(values);
    }

    String text(String key) {
      String value = values.remove(key);
      if (value == null) {
        throw problem("missing key " + key);
      }
      return value;
    }

    long longValue(String key) {
      String value = text(key);
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw problem(key + "=" + value + " is not a whole number");
      }
    }

    int integer(String key) {
      long value = longValue(key);
      if (value != (int) value) {
        throw problem(key + "=" + value + " is out of range");
      }
      return (int) value;
    }

    <E extends Enum<E> & WireValue> E wire(String key, Class<E> type) {
      String value = text(key);
      Optional<E> parsed = WireValue.parse(type, value);
      return parsed.orElseThrow(
          () -> problem(key + "=" + value + " is not one of " + WireValue.choices(type)));
    }

    <T> T build(java.util.function.Supplier<T> constructor) {
      try {
        return constructor.get();
      } catch (IllegalArgumentException | NullPointerException e) {
        throw problem(e.getMessage());
      }
    }

    void requireAllUsed() {
      if (!values.isEmpty()) {
        throw problem("unknown key " + values.keySet().iterator().next());
      }
    }
  }
}
