package org.vnpu.core.request;

import static org.vnpu.api.ResourceNames.VNPU_CORES;
import static org.vnpu.api.ResourceNames.VNPU_MEMORY_GIB;
import static org.vnpu.api.ResourceNames.VNPU_NUMBER;
import static org.vnpu.api.ResourceNames.VNPU_TYPE_PREFIX;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.KubernetesNames;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.SplitMode;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.chip.ChipModel;
import org.vnpu.core.chip.ChipTypes;
import org.vnpu.core.request.PodOptionsReader.PodAnnotations;
import org.vnpu.core.validation.Problem;

/** Reads one container's vNPU resources into a request, collecting every problem. */
final class ContainerRequestReader {

  private static final Pattern WHOLE_NUMBER = Pattern.compile("\\d{1,9}");
  private static final String KNOWN =
      String.join(", ", VNPU_NUMBER, VNPU_CORES, VNPU_MEMORY_GIB, VNPU_TYPE_PREFIX + "<chip>");

  private final ChipCatalog catalog;

  ContainerRequestReader(ChipCatalog catalog) {
    this.catalog = catalog;
  }

  /** The container's request; empty when it asks for no vNPU or has problems. */
  Optional<ContainerRequest> read(
      ContainerSpec spec, boolean init, PodAnnotations pod, List<Problem> sink) {
    ContainerProblems problems = new ContainerProblems(spec.name(), sink);
    checkNames(spec, problems);
    Map<String, String> limits = spec.limits();
    Integer count = whole(limits, VNPU_NUMBER, problems);
    Integer cores = whole(limits, VNPU_CORES, problems);
    Integer memoryGiB = whole(limits, VNPU_MEMORY_GIB, problems);
    ChipTypes chipTypes = chipTypes(limits, pod.chipTypes(), problems);
    if (!limits.containsKey(VNPU_NUMBER)) {
      if (limits.keySet().stream().anyMatch(ResourceNames::isVnpuResource)) {
        problems.add("vNPU resources without " + VNPU_NUMBER, "set " + VNPU_NUMBER + " to 1");
      }
      return Optional.empty();
    }
    if (!KubernetesNames.isLabel(spec.name())) {
      // The name becomes the container's shim config file on the node.
      sink.add(Problem.of("container name \"" + spec.name() + "\"", KubernetesNames.LABEL_RULE));
    }
    if (problems.any()) {
      return Optional.empty();
    }
    Shape shape = new Shape(count, cores == null ? 100 : cores, cores != null, memoryGiB);
    checkShape(shape, pod, problems);
    Long memoryMiB = memoryGiB == null ? null : memoryGiB * 1024L;
    checkMemoryFits(memoryMiB, chipTypes, problems);
    if (problems.any()) {
      return Optional.empty();
    }
    return Optional.of(
        new ContainerRequest(
            spec.name(), init, count, shape.cores(), memoryMiB, chipTypes, policy(shape, pod)));
  }

  /** The parsed quantities, with cores defaulted to a whole card. */
  private record Shape(int count, int cores, boolean coresSet, Integer memoryGiB) {

    String coresText() {
      return VNPU_CORES + "=" + (coresSet ? String.valueOf(cores) : "unset (100)");
    }
  }

  private static void checkShape(Shape shape, PodAnnotations pod, ContainerProblems problems) {
    if (shape.count() < 1) {
      problems.field(
          VNPU_NUMBER,
          shape.count(),
          "must be at least 1; remove it for a container without vNPUs");
    }
    if (shape.cores() > 100) {
      problems.field(
          VNPU_CORES,
          shape.cores(),
          "must be 0..100 (percent of one chip's AI Cores; 0 reserves none)");
    }
    if (shape.memoryGiB() != null && shape.memoryGiB() < 1) {
      problems.field(
          VNPU_MEMORY_GIB,
          shape.memoryGiB(),
          "must be at least 1; leave it unset for the whole chip's memory");
    }
    if (problems.any()) {
      return;
    }
    checkCombination(shape, pod, problems);
  }

  private static void checkCombination(
      Shape shape, PodAnnotations pod, ContainerProblems problems) {
    String memory = VNPU_MEMORY_GIB + "=" + shape.memoryGiB();
    boolean whole = shape.cores() == ContainerRequest.WHOLE_CARD_CORES;
    if (shape.count() > 1 && !whole) {
      problems.add(
          VNPU_NUMBER + "=" + shape.count() + " with " + shape.coresText(),
          "several vNPUs are only allowed for whole cards");
    } else if (shape.count() > 1 && shape.memoryGiB() != null) {
      problems.add(
          VNPU_NUMBER + "=" + shape.count() + " with " + memory,
          "several vNPUs are only allowed for whole cards, which take the chip's whole memory");
    } else if (whole && shape.memoryGiB() != null) {
      problems.add(
          memory + " with " + shape.coresText(),
          "a whole card takes the chip's whole memory; set "
              + VNPU_CORES
              + " to 1..99 for a share, or to 0 for memory only");
    }
    if (shape.cores() == 0 && shape.memoryGiB() == null) {
      problems.field(VNPU_CORES, 0, "a best-effort (memory-only) vNPU needs " + VNPU_MEMORY_GIB);
    }
    if (pod.options().mode() == SplitMode.HARD && shape.cores() == 0) {
      problems.field(
          VNPU_CORES,
          0,
          "hard mode picks a template by AI Cores; 0 (best-effort) is for soft mode only");
    }
    checkPolicy(shape, pod.policy(), problems);
  }

  private static void checkPolicy(Shape shape, AiCorePolicy policy, ContainerProblems problems) {
    if (policy == null || shape.cores() == ContainerRequest.WHOLE_CARD_CORES) {
      return;
    }
    String subject =
        AnnotationKeys.AICORE_POLICY + "=" + policy.wireName() + " with " + shape.coresText();
    if (policy == AiCorePolicy.BEST_EFFORT && shape.cores() > 0) {
      problems.add(subject, "best-effort reserves no AI Core; set " + VNPU_CORES + " to 0");
    } else if (policy != AiCorePolicy.BEST_EFFORT && shape.cores() == 0) {
      problems.add(subject, policy.wireName() + " needs an AI Core share of 1..99");
    }
  }

  private void checkMemoryFits(Long memoryMiB, ChipTypes chipTypes, ContainerProblems problems) {
    if (memoryMiB == null || problems.any()) {
      return;
    }
    ChipModel largest =
        catalog.chips().stream()
            .filter(chip -> chipTypes.accepts(chip.name()))
            .max((a, b) -> Long.compare(a.memoryMiB(), b.memoryMiB()))
            .orElseThrow();
    if (memoryMiB > largest.memoryMiB()) {
      problems.field(
          VNPU_MEMORY_GIB,
          memoryMiB / 1024,
          "exceeds the memory of "
              + (chipTypes.names().size() == 1
                  ? "chip type "
                  : chipTypes.any() ? "the largest chip, " : "the largest accepted chip, ")
              + largest.name()
              + " ("
              + largest.memoryMiB() / 1024
              + " GiB)");
    }
  }

  private static AiCorePolicy policy(Shape shape, PodAnnotations pod) {
    if (shape.cores() == ContainerRequest.WHOLE_CARD_CORES
        || pod.options().mode() == SplitMode.HARD) {
      return null;
    }
    if (shape.cores() == 0) {
      return AiCorePolicy.BEST_EFFORT;
    }
    return pod.policy() != null ? pod.policy() : AiCorePolicy.ELASTIC;
  }

  private ChipTypes chipTypes(
      Map<String, String> limits, ChipTypes podTypes, ContainerProblems problems) {
    TreeSet<String> selected = new TreeSet<>();
    for (Map.Entry<String, String> limit : limits.entrySet()) {
      if (!limit.getKey().startsWith(VNPU_TYPE_PREFIX)) {
        continue;
      }
      String name = limit.getKey().substring(VNPU_TYPE_PREFIX.length());
      if (!"1".equals(limit.getValue().strip())) {
        problems.field(limit.getKey(), limit.getValue(), "must be 1 (it selects a chip type)");
      }
      catalog
          .find(name)
          .ifPresentOrElse(
              chip -> selected.add(chip.name()),
              () ->
                  problems.add(
                      limit.getKey(),
                      "names no chip type of the catalog (" + catalog.names() + ")"));
    }
    if (selected.size() > 1) {
      problems.add(
          VNPU_TYPE_PREFIX + "<chip>",
          "selects several chip types " + selected + "; a container's vNPUs share one chip type");
      return ChipTypes.ANY;
    }
    if (selected.isEmpty()) {
      return podTypes;
    }
    String own = selected.first();
    if (!podTypes.accepts(own)) {
      problems.add(
          VNPU_TYPE_PREFIX + own,
          "conflicts with the pod's " + AnnotationKeys.USE_NPU_TYPE + "=" + podTypes);
    }
    return ChipTypes.of(own);
  }

  private static void checkNames(ContainerSpec spec, ContainerProblems problems) {
    Set<String> names = new TreeSet<>(spec.limits().keySet());
    names.addAll(spec.requests().keySet());
    for (String name : names) {
      if (!ResourceNames.isVnpuResource(name)) {
        continue;
      }
      if (!isKnown(name)) {
        problems.add(name, "is not a vNPU resource; known: " + KNOWN);
        continue;
      }
      String request = spec.requests().get(name);
      String limit = spec.limits().get(name);
      if (request != null && limit == null) {
        problems.add(
            name + "=" + request + " in requests",
            "extended resources are read from limits; set it in limits");
      } else if (request != null && !request.strip().equals(limit.strip())) {
        problems.add(
            name,
            "requests (" + request + ") must equal limits (" + limit + ") for extended resources");
      }
    }
  }

  private static boolean isKnown(String name) {
    return name.equals(VNPU_NUMBER)
        || name.equals(VNPU_CORES)
        || name.equals(VNPU_MEMORY_GIB)
        || (name.startsWith(VNPU_TYPE_PREFIX) && name.length() > VNPU_TYPE_PREFIX.length());
  }

  private static Integer whole(
      Map<String, String> limits, String name, ContainerProblems problems) {
    String text = limits.get(name);
    if (text == null) {
      return null;
    }
    if (!WHOLE_NUMBER.matcher(text.strip()).matches()) {
      String unit =
          name.equals(VNPU_MEMORY_GIB) ? " of GiB (the unit is in the resource name)" : "";
      problems.field(name, text, "must be a whole number" + unit + ", e.g. \"8\"");
      return null;
    }
    return Integer.parseInt(text.strip());
  }
}
