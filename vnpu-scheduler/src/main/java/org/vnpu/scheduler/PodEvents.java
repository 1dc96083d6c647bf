package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.core.request.PodManifest;
import org.vnpu.kube.DaemonThreads;

/**
 * Kubernetes Events on pods, so that {@code kubectl describe pod} says what vNPU decided: where the
 * vNPUs went, or why no node fits. The same message for the same pod is not repeated within a
 * minute ({@link RecentEvents}). Events are written by one background thread, as client-go's
 * recorder writes them ({@code tools/record/event.go}: a queue of {@value #QUEUED} events, dropped
 * when full), so that a decision never waits for the API server to store its event; a failure to
 * record one is logged and never fails the scheduling.
 */
final class PodEvents implements EventSink {

  private static final Logger LOG = LoggerFactory.getLogger(PodEvents.class);
  private static final AtomicLong SEQUENCE = new AtomicLong();
  private static final int QUEUED = 1000;

  private final KubernetesClient client;
  private final Clock clock;
  private final RecentEvents recent = new RecentEvents();
  private final ExecutorService writer =
      new ThreadPoolExecutor(
          1,
          1,
          0,
          TimeUnit.MILLISECONDS,
          new ArrayBlockingQueue<>(QUEUED),
          DaemonThreads.named("vnpu-scheduler-events"),
          (event, executor) ->
              LOG.warn("event queue full ({} events); an event was dropped", QUEUED));

  PodEvents(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  @Override
  public void allocated(PodManifest pod, String message) {
    record(pod, "Normal", "VnpuAllocated", message);
  }

  @Override
  public void unschedulable(PodManifest pod, String message) {
    record(pod, "Warning", "VnpuUnschedulable", message);
  }

  @Override
  public void preempting(PodManifest pod, String message) {
    record(pod, "Normal", "VnpuPreempting", message);
  }

  @Override
  public void rebalancing(PodManifest pod, String message) {
    record(pod, "Normal", "VnpuRebalancing", message);
  }

  @Override
  public void rebalanced(PodManifest pod, String message) {
    record(pod, "Normal", "VnpuRebalanced", message);
  }

  @Override
  public void rebalanceRefused(PodManifest pod, String message) {
    record(pod, "Warning", "VnpuRebalanceRefused", message);
  }

  private void record(PodManifest pod, String type, String reason, String message) {
    Instant now = clock.instant();
    if (!recent.record(pod.uid(), reason, message, now)) {
      return;
    }
    writer.execute(() -> write(pod, type, reason, message, now));
  }

  private void write(PodManifest pod, String type, String reason, String message, Instant now) {
    String time = now.toString();
    try {
      client
          .v1()
          .events()
          .inNamespace(pod.namespace())
          .resource(
              new EventBuilder()
                  .withNewMetadata()
                  .withName(
                      pod.name()
                          + ".vnpu."
                          + Long.toHexString(now.toEpochMilli())
                          + SEQUENCE.incrementAndGet())
                  .withNamespace(pod.namespace())
                  .endMetadata()
                  .withInvolvedObject(
                      new ObjectReferenceBuilder()
                          .withApiVersion("v1")
                          .withKind("Pod")
                          .withNamespace(pod.namespace())
                          .withName(pod.name())
                          .withUid(pod.uid())
                          .build())
                  .withType(type)
                  .withReason(reason)
                  .withMessage(message)
                  .withNewSource()
                  .withComponent("vnpu-scheduler")
                  .endSource()
                  .withFirstTimestamp(time)
                  .withLastTimestamp(time)
                  .withCount(1)
                  .build())
          .create();
    } catch (RuntimeException e) {
      String format = "cannot record event {} on pod {}/{}: {}";
      if (e instanceof KubernetesClientException refused && unremarkable(refused)) {
        LOG.debug(format, reason, pod.namespace(), pod.name(), e.getMessage());
      } else {
        LOG.warn(format, reason, pod.namespace(), pod.name(), e.toString());
      }
    }
  }

  /**
   * Whether the API server refused an event for a reason nobody need act on, which client-go's
   * recorder logs at debug level only ({@code tools/record/event.go}, v0.34.1): the event exists
   * already, or its namespace is being deleted (the event of a pod whose namespace went while the
   * event waited in the queue, as a burst's do when it is deleted at once).
   */
  static boolean unremarkable(KubernetesClientException refused) {
    Status status = refused.getStatus();
    if (status == null) {
      return false;
    }
    if (refused.getCode() == 409 && "AlreadyExists".equals(status.getReason())) {
      return true;
    }
    return status.getDetails() != null
        && status.getDetails().getCauses() != null
        && status.getDetails().getCauses().stream()
            .anyMatch(cause -> "NamespaceTerminating".equals(cause.getReason()));
  }
}
