package org.vnpu.core.request;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AiCpuLevel;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.api.Priority;
import org.vnpu.api.SplitMode;
import org.vnpu.api.WireValue;
import org.vnpu.api.payload.OfflineWork;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipModel;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.validation.Problem;

/** Reads the pod-wide vNPU annotations, applying defaults and collecting problems. */
final class PodOptionsReader {

  /**
   * What the annotations say.
   *
   * @param options pod-wide options
   * @param policy the AI Core policy the pod names; null when it names none
   * @param chipTypes the chip types the pod accepts
   */
  record PodAnnotations(PodOptions options, AiCorePolicy policy, ChipTypes chipTypes) {}

  private final ChipCatalog catalog;
  private final PodOptions defaults;
  private final int onlineThreshold;

  PodOptionsReader(ChipCatalog catalog, PodOptions defaults, int onlineThreshold) {
    this.catalog = catalog;
    this.defaults = defaults;
    this.onlineThreshold = onlineThreshold;
  }

  /**
   * @param priority the pod's {@code spec.priority}; null when it has none
   */
  PodAnnotations read(Map<String, String> annotations, Integer priority, List<Problem> problems) {
    SplitMode mode =
        wire(annotations, AnnotationKeys.MODE, SplitMode.class, defaults.mode(), problems);
    AiCorePolicy policy =
        wire(annotations, AnnotationKeys.AICORE_POLICY, AiCorePolicy.class, null, problems);
    if (mode == SplitMode.HARD && policy != null) {
      problems.add(
          Problem.field(
              AnnotationKeys.AICORE_POLICY,
              policy.wireName(),
              "AI Core policies apply to soft mode only, and this pod asks for "
                  + AnnotationKeys.MODE
                  + "=hard"));
    }
    PodOptions options =
        new PodOptions(
            mode,
            wire(
                annotations,
                AnnotationKeys.HARD_AICPU_LEVEL,
                AiCpuLevel.class,
                defaults.aiCpuLevel(),
                problems),
            wire(
                annotations,
                AnnotationKeys.NODE_SCHEDULER_POLICY,
                PlacementPolicy.class,
                defaults.nodePolicy(),
                problems),
            wire(
                annotations,
                AnnotationKeys.DEVICE_SCHEDULER_POLICY,
                PlacementPolicy.class,
                defaults.devicePolicy(),
                problems),
            text(annotations, AnnotationKeys.USE_NPU_DIE_ID),
            offline(annotations, priority, problems));
    return new PodAnnotations(options, policy, chipTypes(annotations, problems));
  }

  /**
   * How the pod runs as offline work, or null when it is online: as its annotation says, else by
   * its {@code spec.priority} against the threshold.
   */
  private OfflineWork offline(
      Map<String, String> annotations, Integer priority, List<Problem> problems) {
    Priority fallback =
        priority != null && priority < onlineThreshold ? Priority.OFFLINE : Priority.ONLINE;
    Priority chosen =
        wire(annotations, AnnotationKeys.PRIORITY, Priority.class, fallback, problems);
    String key = AnnotationKeys.OFFLINE_MAX_KERNELS_IN_FLIGHT;
    String cap = text(annotations, key);
    if (cap == null) {
      return chosen == Priority.OFFLINE ? PodOptions.DEFAULT_OFFLINE : null;
    }
    if (chosen == Priority.ONLINE) {
      problems.add(
          Problem.field(
              key,
              cap,
              "applies to offline pods only, and this pod is online ("
                  + (annotations.containsKey(AnnotationKeys.PRIORITY)
                      ? AnnotationKeys.PRIORITY + "=online"
                      : "spec.priority " + priority + " >= threshold " + onlineThreshold)
                  + ")"));
      return null;
    }
    try {
      return new OfflineWork(Integer.parseInt(cap));
    } catch (IllegalArgumentException e) {
      problems.add(
          Problem.field(
              key,
              cap,
              "must be a whole number from 0 (no cap) to " + OfflineWork.MAX_KERNELS_IN_FLIGHT));
      return PodOptions.DEFAULT_OFFLINE;
    }
  }

  /** The comma-separated chip types of {@code vnpu-use-npu-type}, each one of the catalog. */
  private ChipTypes chipTypes(Map<String, String> annotations, List<Problem> problems) {
    String pinned = text(annotations, AnnotationKeys.USE_NPU_TYPE);
    if (pinned == null) {
      return ChipTypes.ANY;
    }
    List<String> names = new ArrayList<>();
    for (String name : pinned.split(",", -1)) {
      Optional<ChipModel> model = catalog.find(name.strip());
      if (model.isPresent()) {
        names.add(model.get().name());
      } else {
        problems.add(
            Problem.field(
                AnnotationKeys.USE_NPU_TYPE,
                pinned,
                (name.isBlank()
                        ? "has an empty chip type"
                        : "names " + name.strip() + ", which is not a chip type")
                    + " of the catalog ("
                    + catalog.names()
                    + "); list types separated by commas, e.g. 910B3,910B4"));
        return ChipTypes.ANY;
      }
    }
    return ChipTypes.of(names);
  }

  private static String text(Map<String, String> annotations, String key) {
    String value = annotations.get(key);
    return value == null || value.isBlank() ? null : value.strip();
  }

  private static <E extends Enum<E> & WireValue> E wire(
      Map<String, String> annotations,
      String key,
      Class<E> type,
      E fallback,
      List<Problem> problems) {
    String value = annotations.get(key);
    if (value == null) {
      return fallback;
    }
    return WireValue.parse(type, value.strip())
        .orElseGet(
            () -> {
              problems.add(Problem.field(key, value, "must be one of " + WireValue.choices(type)));
              return fallback;
            });
  }
}
