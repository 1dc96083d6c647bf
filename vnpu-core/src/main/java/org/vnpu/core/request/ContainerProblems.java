package org.vnpu.core.request;

import java.util.List;
import org.vnpu.core.validation.Problem;

/** Collects the problems of one container, naming the container in each subject. */
final class ContainerProblems {

  private final String container;
  private final List<Problem> sink;
  private final int before;

  ContainerProblems(String container, List<Problem> sink) {
    this.container = container;
    this.sink = sink;
    this.before = sink.size();
  }

  void add(String subject, String rule) {
    sink.add(Problem.of(subject + " in container " + container, rule));
  }

  void field(String field, Object value, String rule) {
    add(field + "=" + value, rule);
  }

  /** Whether this container added any problem so far. */
  boolean any() {
    return sink.size() > before;
  }
}
