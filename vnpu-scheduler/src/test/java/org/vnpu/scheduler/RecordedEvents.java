package org.vnpu.scheduler;

import java.util.ArrayList;
import java.util.List;
import org.vnpu.core.request.PodManifest;

/** The scheduler's events as a list, for tests that run without an API server. */
final class RecordedEvents implements EventSink {

  /** An event written. */
  record Said(String reason, String pod, String message) {}

  final List<Said> said = new ArrayList<>();

  @Override
  public void allocated(PodManifest pod, String message) {
    said.add(new Said("allocated", pod.name(), message));
  }

  @Override
  public void unschedulable(PodManifest pod, String message) {
    said.add(new Said("unschedulable", pod.name(), message));
  }

  @Override
  public void preempting(PodManifest pod, String message) {
    said.add(new Said("preempting", pod.name(), message));
  }

  @Override
  public void rebalancing(PodManifest pod, String message) {
    said.add(new Said("rebalancing", pod.name(), message));
  }

  @Override
  public void rebalanced(PodManifest pod, String message) {
    said.add(new Said("rebalanced", pod.name(), message));
  }

  @Override
  public void rebalanceRefused(PodManifest pod, String message) {
    said.add(new Said("rebalanceRefused", pod.name(), message));
  }
}
