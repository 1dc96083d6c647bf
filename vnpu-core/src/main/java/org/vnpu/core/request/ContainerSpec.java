package org.vnpu.core.request;

import java.util.Map;

/**
 * The part of a container the scheduler reads: its resource quantities as written in the pod.
 *
 * @param name container name
 * @param limits {@code resources.limits}, quantity strings by resource name
 * @param requests {@code resources.requests}, quantity strings by resource name
 */
public record ContainerSpec(String name, Map<String, String> limits, Map<String, String> requests) {

  public ContainerSpec {
    limits = Map.copyOf(limits);
    requests = Map.copyOf(requests);
  }
}
