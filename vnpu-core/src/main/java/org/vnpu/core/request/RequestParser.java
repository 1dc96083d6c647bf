package org.vnpu.core.request;

import java.util.ArrayList;
import java.util.List;
import org.vnpu.api.Priority;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.request.PodOptionsReader.PodAnnotations;
import org.vnpu.core.validation.Problem;
import org.vnpu.core.validation.Validated;

/**
 * Turns a pod into a typed {@link PodRequest}, or every problem with it at once. Each problem names
 * the field, the value and the rule, e.g. {@code huawei.com/vnpu-number=2 with
 * huawei.com/vnpu-cores=30 in container main: several vNPUs are only allowed for whole cards}. Pure
 * and thread-safe.
 */
public final class RequestParser {

  private final PodOptionsReader options;
  private final ContainerRequestReader containers;

  public RequestParser(ChipCatalog catalog) {
    this(catalog, PodOptions.defaults(), Priority.DEFAULT_ONLINE_THRESHOLD);
  }

  /**
   * @param defaults what a pod gets for an option it does not set (the cluster's policies)
   * @param onlineThreshold pods whose {@code spec.priority} is below it are offline unless they say
   *     otherwise ({@code huawei.com/vnpu-priority})
   */
  public RequestParser(ChipCatalog catalog, PodOptions defaults, int onlineThreshold) {
    this.options = new PodOptionsReader(catalog, defaults, onlineThreshold);
    this.containers = new ContainerRequestReader(catalog);
  }

  public Validated<PodRequest> parse(PodManifest pod) {
    List<Problem> problems = new ArrayList<>();
    PodAnnotations annotations = options.read(pod.annotations(), pod.priority(), problems);
    List<ContainerRequest> requests = new ArrayList<>();
    readAll(pod.initContainers(), true, annotations, requests, problems);
    readAll(pod.containers(), false, annotations, requests, problems);
    if (!problems.isEmpty()) {
      return Validated.invalid(problems);
    }
    return Validated.valid(
        new PodRequest(pod.namespace(), pod.name(), pod.uid(), annotations.options(), requests));
  }

  private void readAll(
      List<ContainerSpec> specs,
      boolean init,
      PodAnnotations annotations,
      List<ContainerRequest> requests,
      List<Problem> problems) {
    for (ContainerSpec spec : specs) {
      containers.read(spec, init, annotations, problems).ifPresent(requests::add);
    }
  }
}
