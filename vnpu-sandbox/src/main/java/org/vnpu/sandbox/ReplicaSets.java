package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kube.DaemonThreads;
import org.vnpu.kube.PodPhases;

/**
 * The part of kube-controller-manager the rebalancer relies on: a ReplicaSet whose pod was evicted
 * gets a new one. Each round follows {@code pkg/controller/replicaset/replica_set.go}: {@code
 * syncReplicaSet} skips a ReplicaSet being deleted, lists the pods of its namespace and keeps the
 * active ones ({@code controller.FilterActivePods}: not Succeeded, not Failed, no deletion
 * timestamp) that name it as their controller; {@code manageReplicas} creates as many pods as are
 * missing from {@code spec.replicas}, each from the template ({@code
 * controller.GetPodFromTemplate}: its labels, annotations and spec, the name the ReplicaSet's name
 * and a random suffix as the API server makes it from {@code generateName}, and the ReplicaSet as
 * its controlling owner). Not emulated, as nothing in the sandbox needs it: adopting orphans that
 * match the selector, deleting pods beyond the replica count, and the ReplicaSet's status.
 */
final class ReplicaSets implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(ReplicaSets.class);
  private static final Duration ROUND = Duration.ofMillis(250);

  /** The letters of generated names ({@code k8s.io/apimachinery/pkg/util/rand}: no vowels). */
  private static final String ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

  private static final int SUFFIX = 5;

  private final KubernetesClient client;
  private final ScheduledExecutorService thread;
  private final Random random = new SecureRandom();

  ReplicaSets(KubernetesClient client) {
    this.client = client;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("vnpu-sandbox-replicasets"));
  }

  ReplicaSets start() {
    thread.scheduleWithFixedDelay(this::round, 0, ROUND.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  private void round() {
    try {
      for (ReplicaSet set : client.apps().replicaSets().inAnyNamespace().list().getItems()) {
        if (set.getMetadata().getDeletionTimestamp() == null) {
          sync(set);
        }
      }
    } catch (KubernetesClientException e) {
      LOG.warn("replica set round ended early: {}", e.getMessage());
    } catch (RuntimeException e) {
      LOG.error("replica set round failed", e);
    }
  }

  private void sync(ReplicaSet set) {
    String namespace = set.getMetadata().getNamespace();
    List<Pod> pods = client.pods().inNamespace(namespace).list().getItems();
    long active =
        pods.stream().filter(ReplicaSets::active).filter(pod -> ownedBy(pod, set)).count();
    int replicas = set.getSpec().getReplicas() == null ? 1 : set.getSpec().getReplicas();
    for (long missing = replicas - active; missing > 0; missing--) {
      Pod pod = fromTemplate(set);
      client.pods().inNamespace(namespace).resource(pod).create();
      LOG.info(
          "replica set {}/{} created pod {}",
          namespace,
          set.getMetadata().getName(),
          pod.getMetadata().getName());
    }
  }

  /** {@code controller.IsPodActive}. */
  private static boolean active(Pod pod) {
    return !PodPhases.finished(pod) && pod.getMetadata().getDeletionTimestamp() == null;
  }

  private static boolean ownedBy(Pod pod, ReplicaSet set) {
    return pod.getMetadata().getOwnerReferences().stream()
        .anyMatch(
            owner ->
                Boolean.TRUE.equals(owner.getController())
                    && set.getMetadata().getUid().equals(owner.getUid()));
  }

  private Pod fromTemplate(ReplicaSet set) {
    ObjectMeta template = set.getSpec().getTemplate().getMetadata();
    return new PodBuilder()
        .withNewMetadata()
        .withName(set.getMetadata().getName() + "-" + suffix())
        .withNamespace(set.getMetadata().getNamespace())
        .withLabels(template == null ? null : template.getLabels())
        .withAnnotations(template == null ? null : template.getAnnotations())
        .withOwnerReferences(
            new OwnerReferenceBuilder()
                .withApiVersion("apps/v1")
                .withKind("ReplicaSet")
                .withName(set.getMetadata().getName())
                .withUid(set.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build())
        .endMetadata()
        .withSpec(set.getSpec().getTemplate().getSpec())
        .build();
  }

  private String suffix() {
    StringBuilder suffix = new StringBuilder(SUFFIX);
    for (int i = 0; i < SUFFIX; i++) {
      suffix.append(ALPHANUMS.charAt(random.nextInt(ALPHANUMS.length())));
    }
    return suffix.toString();
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}
