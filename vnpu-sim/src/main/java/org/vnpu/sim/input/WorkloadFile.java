package org.vnpu.sim.input;

import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.ResourceNames;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.input.InvalidInputException;
import org.vnpu.core.input.YamlFiles;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.request.ContainerSpec;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodRequest;
import org.vnpu.core.request.RequestParser;
import org.vnpu.core.validation.Problem;
import org.vnpu.core.validation.Validated;
import org.vnpu.sim.SimPod;

/**
 * A workload as pod shapes with counts; every shape is validated as the scheduler would:
 *
 * <pre>
 * pods:
 *   - name: llm-small
 *     count: 60          # how many such pods
 *     vnpus: 1
 *     cores: 25          # AI Core percent; absent = whole card
 *     memoryGiB: 16      # absent = the whole chip's memory
 *     chipType: 910B3    # optional; several as 910B3,910B4
 *     mode: soft         # optional: soft or hard
 *     policy: elastic    # optional: fixed-share, elastic, best-effort
 *     priority: offline  # optional: online (default) or offline
 *     cpuMilli: 8000
 *     memoryMiB: 32768
 *     arrival: 0         # optional, seconds: with times on every shape the workload is replayed
 *     departure: 3600    # optional, seconds: when the pods leave
 * </pre>
 *
 * Without times, pods arrive in the file's order, repeated {@code count} times, and the simulator
 * inflates and shuffles them (the FGD protocol). With times, the copies of a shape arrive together
 * at {@code arrival}, leave at {@code departure}, and nothing is inflated or shuffled.
 */
public final class WorkloadFile {

  /** One pod shape; fields as in the class comment. */
  record Shape(
      String name,
      int count,
      int vnpus,
      Integer cores,
      Integer memoryGiB,
      String chipType,
      String mode,
      String policy,
      String priority,
      long cpuMilli,
      long memoryMiB,
      Double arrival,
      Double departure) {}

  record Content(List<Shape> pods) {}

  private WorkloadFile() {}

  public static List<SimPod> read(Path file, ChipCatalog catalog) {
    return build(file.toString(), YamlFiles.read(file, Content.class), catalog);
  }

  public static List<SimPod> read(String source, InputStream in, ChipCatalog catalog) {
    return build(source, YamlFiles.read(source, in, Content.class), catalog);
  }

  private static List<SimPod> build(String source, Content content, ChipCatalog catalog) {
    if (content.pods() == null || content.pods().isEmpty()) {
      throw new InvalidInputException(
          source + ": lists no pods (expected a top-level `pods:` list)");
    }
    long timed = content.pods().stream().filter(shape -> shape.arrival() != null).count();
    if (timed != 0 && timed != content.pods().size()) {
      throw new InvalidInputException(
          source
              + ": "
              + timed
              + " of "
              + content.pods().size()
              + " pod shapes have an arrival time; give every shape one, or none");
    }
    RequestParser parser = new RequestParser(catalog);
    List<SimPod> pods = new ArrayList<>();
    for (Shape shape : content.pods()) {
      SimPod pod = pod(source, shape, parser);
      for (int i = 0; i < shape.count(); i++) {
        pods.add(pod.named(shape.name() + "-" + i));
      }
    }
    return pods;
  }

  private static SimPod pod(String source, Shape shape, RequestParser parser) {
    String where = source + ": pod " + shape.name();
    if (shape.name() == null || shape.count() < 1 || shape.vnpus() < 0) {
      throw new InvalidInputException(where + ": needs a name, count ≥ 1 and vnpus ≥ 0");
    }
    Map<String, String> limits = new LinkedHashMap<>();
    if (shape.vnpus() > 0) {
      limits.put(ResourceNames.VNPU_NUMBER, String.valueOf(shape.vnpus()));
      putIfSet(limits, ResourceNames.VNPU_CORES, shape.cores());
      putIfSet(limits, ResourceNames.VNPU_MEMORY_GIB, shape.memoryGiB());
    }
    Map<String, String> annotations = new LinkedHashMap<>();
    putIfSet(annotations, AnnotationKeys.USE_NPU_TYPE, shape.chipType());
    putIfSet(annotations, AnnotationKeys.MODE, shape.mode());
    putIfSet(annotations, AnnotationKeys.AICORE_POLICY, shape.policy());
    putIfSet(annotations, AnnotationKeys.PRIORITY, shape.priority());
    Validated<PodRequest> request =
        parser.parse(
            new PodManifest(
                "sim",
                shape.name(),
                shape.name(),
                annotations,
                List.of(),
                List.of(new ContainerSpec("main", limits, Map.of()))));
    if (request instanceof Validated.Invalid<PodRequest> invalid) {
      throw new InvalidInputException(
          where
              + ": "
              + String.join("; ", invalid.problems().stream().map(Problem::message).toList()));
    }
    return new SimPod(
        request.orElseThrow(),
        new HostResources(shape.cpuMilli(), shape.memoryMiB()),
        timing(where, shape));
  }

  private static SimPod.Timing timing(String where, Shape shape) {
    if (shape.arrival() == null) {
      if (shape.departure() != null) {
        throw new InvalidInputException(where + ": departure needs an arrival");
      }
      return null;
    }
    if (shape.arrival() < 0
        || (shape.departure() != null && shape.departure() <= shape.arrival())) {
      throw new InvalidInputException(
          where
              + ": arrival "
              + shape.arrival()
              + " and departure "
              + shape.departure()
              + " must satisfy 0 ≤ arrival < departure");
    }
    return new SimPod.Timing(shape.arrival(), shape.departure());
  }

  private static void putIfSet(Map<String, String> map, String key, Object value) {
    if (value != null) {
      map.put(key, String.valueOf(value));
    }
  }
}
