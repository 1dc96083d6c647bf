package org.vnpu.scheduler;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.vnpu.core.request.PodManifest;
import org.vnpu.core.request.PodManifests;
import org.vnpu.scheduler.ExtenderVerb.BadRequest;

/**
 * What both protocols read from their requests, and the pods as the API server stores them: the
 * writing verbs act on those, never on the request's copy, whose resources and names anyone who
 * reaches the port can choose. The API server's objects are taken from the scheduler's informers
 * when they hold them (the pod with the UID asked for, the node), as kube-scheduler decides from
 * its own cache; a verb reads the API server only for what they have not delivered yet (ADR 0026).
 */
final class ExtenderRequests {

  private final KubernetesClient client;
  private final Function<String, Pod> cachedPods;
  private final Function<String, Node> cachedNodes;

  /** Reads every pod and node from the API server. */
  ExtenderRequests(KubernetesClient client) {
    this(client, key -> null, name -> null);
  }

  /**
   * @param cachedPods a pod by {@code namespace/name} as an informer holds it, or null
   * @param cachedNodes a node by name as an informer holds it, or null
   */
  ExtenderRequests(
      KubernetesClient client,
      Function<String, Pod> cachedPods,
      Function<String, Node> cachedNodes) {
    this.client = client;
    this.cachedPods = cachedPods;
    this.cachedNodes = cachedNodes;
  }

  /** The pod under {@code field}, which must have a UID. */
  static PodManifest pod(JsonNode pod, String field) throws BadRequest {
    if (!pod.isObject()) {
      throw new BadRequest("missing " + field);
    }
    PodManifest manifest = PodManifests.fromJson(pod);
    if (manifest.uid().isEmpty()) {
      throw new BadRequest(field + " has no metadata.uid");
    }
    return manifest;
  }

  /**
   * The names of the ResourceClaims the pod uses (in its namespace): {@code
   * spec.resourceClaims[].resourceClaimName}, or for a claim made from a template the name the
   * claim controller recorded in {@code status.resourceClaimStatuses}; a template's claim not made
   * yet is left out.
   */
  static List<String> claimNames(JsonNode pod) {
    Map<String, String> made = new HashMap<>();
    for (JsonNode status : pod.path("status").path("resourceClaimStatuses")) {
      if (status.path("resourceClaimName").isTextual()) {
        made.put(status.path("name").asText(), status.path("resourceClaimName").asText());
      }
    }
    List<String> names = new ArrayList<>();
    for (JsonNode claim : pod.path("spec").path("resourceClaims")) {
      if (claim.path("resourceClaimName").isTextual()) {
        names.add(claim.path("resourceClaimName").asText());
      } else if (made.containsKey(claim.path("name").asText())) {
        names.add(made.get(claim.path("name").asText()));
      }
    }
    return names;
  }

  /** The non-empty text under {@code field}. */
  static String text(JsonNode object, String field) throws BadRequest {
    JsonNode value = object.path(field);
    if (!value.isTextual() || value.asText().isEmpty()) {
      throw new BadRequest("missing " + field);
    }
    return value.asText();
  }

  /** The pod as the API server stores it, when it exists with {@code uid}. */
  Pod stored(String namespace, String name, String uid) throws SchedulingException {
    Pod pod = cachedPods.apply(namespace + "/" + name);
    if (pod == null || !pod.getMetadata().getUid().equals(uid)) {
      pod = client.pods().inNamespace(namespace).withName(name).get();
    }
    if (pod == null || !pod.getMetadata().getUid().equals(uid)) {
      throw new SchedulingException(
          "pod " + namespace + "/" + name + " with UID " + uid + " does not exist");
    }
    return pod;
  }

  /**
   * The pod a request names, as the API server stores it: what it asks for and its priority are
   * read from there, not from the request's copy.
   */
  PodManifest stored(PodManifest sent) throws SchedulingException {
    return Fabric8Views.manifest(stored(sent.namespace(), sent.name(), sent.uid()));
  }

  /**
   * The pod, when its node rules (cordon, selector, required affinity, taints) let it go to {@code
   * node} as the node is now: callers of the writing verbs may not have run the schedulers'
   * filters.
   */
  PodManifest placeable(Pod pod, String node) throws SchedulingException {
    Node target = cachedNodes.apply(node);
    if (target == null) {
      target = client.nodes().withName(node).get();
    }
    if (target == null) {
      throw new SchedulingException("node " + node + " does not exist");
    }
    Optional<String> refusal = NodeRules.refusal(pod, target);
    if (refusal.isPresent()) {
      throw new SchedulingException(
          "pod "
              + pod.getMetadata().getNamespace()
              + "/"
              + pod.getMetadata().getName()
              + " may not go to node "
              + node
              + ": "
              + refusal.get());
    }
    return Fabric8Views.manifest(pod);
  }

  /** The pod's current state in the API server, or null. */
  Pod current(PodManifest pod) {
    return client.pods().inNamespace(pod.namespace()).withName(pod.name()).get();
  }
}
