package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.NodeSelectorBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.resource.v1.AllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimConsumerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kube.DeviceSelectors;
import org.vnpu.kube.NodeBook;
import org.vnpu.kube.PodBindings;

/**
 * Places a pod with ResourceClaims as kube-scheduler does with the chart's DRA profile
 * (docs/dra.md, "Placement"), step by step: the claims a template makes are created first, as the
 * resource claim controller does ({@code pkg/controller/resourceclaim/controller.go}, {@code
 * handleClaim}: a claim named after the pod and the claim, owned by the pod, recorded in {@code
 * status.resourceClaimStatuses}); then the DynamicResources plugin ({@code
 * pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go}): {@code PreFilter} waits
 * for every claim to exist and keeps an allocated claim to its node, {@code Filter} runs the
 * allocator ({@link DraAllocator}) on each node for the claims not allocated yet; the extender's
 * {@code prioritize} scores, weighted as the profile says (its host-resource scores are off); the
 * first of the best in name order is taken ({@code selectHost} picks one at random); {@code
 * Reserve} and {@code PreBind} write each claim's allocation and the pod in {@code reservedFor};
 * the default binder binds.
 */
final class DraSchedulerCycle implements SchedulingProtocol {

  private static final Logger LOG = LoggerFactory.getLogger(DraSchedulerCycle.class);

  /** The annotation that names the pod's entry a claim was made for. */
  private static final String POD_CLAIM_NAME = "resource.kubernetes.io/pod-claim-name";

  private final ExtenderClient extender;
  private final KubernetesClient client;
  private final long extenderWeight;
  private final DeviceSelectors selectors = new DeviceSelectors();

  DraSchedulerCycle(ExtenderClient extender, KubernetesClient client, long extenderWeight) {
    this.extender = extender;
    this.client = client;
    this.extenderWeight = extenderWeight;
  }

  /** Whether the pod has claims, so that this cycle, not the vNPU profile's, places it. */
  static boolean usesClaims(Pod pod) {
    return !pod.getSpec().getResourceClaims().isEmpty();
  }

  @Override
  public Attempt schedule(Pod pod, Collection<NodeBook> nodes)
      throws IOException, InterruptedException {
    List<ResourceClaim> claims = new ArrayList<>();
    for (PodResourceClaim entry : pod.getSpec().getResourceClaims()) {
      Optional<ResourceClaim> claim = claim(pod, entry);
      if (claim.isEmpty()) {
        return Attempt.notBound(
            "waiting for resource claim " + entry.getName() + " of the pod to be created");
      }
      claims.add(claim.get());
    }
    List<ResourceSlice> slices = client.resources(ResourceSlice.class).list().getItems();
    List<ResourceClaim> allocated =
        client.resources(ResourceClaim.class).inAnyNamespace().list().getItems().stream()
            .filter(c -> c.getStatus() != null && c.getStatus().getAllocation() != null)
            .toList();
    Map<String, DeviceClass> classes = new LinkedHashMap<>();
    client
        .resources(DeviceClass.class)
        .list()
        .getItems()
        .forEach(c -> classes.put(c.getMetadata().getName(), c));
    DraAllocator allocator = new DraAllocator(selectors, classes);

    Map<String, List<AllocationResult>> fitting = new LinkedHashMap<>();
    Map<String, String> reasons = new LinkedHashMap<>();
    for (NodeBook node : nodes) {
      try {
        allocate(allocator, claims, node.name(), slices, allocated)
            .ifPresentOrElse(
                results -> fitting.put(node.name(), results),
                () -> reasons.put(node.name(), "cannot allocate all claims"));
      } catch (IllegalArgumentException e) {
        return Attempt.notBound(e.getMessage());
      }
    }
    if (fitting.isEmpty()) {
      return Attempt.notBound(SchedulingProtocol.summary(nodes.size(), reasons));
    }
    String node = best(pod, List.copyOf(fitting.keySet()));
    List<AllocationResult> results = fitting.get(node);
    for (int i = 0; i < claims.size(); i++) {
      if (results.get(i) != null) {
        reserve(claims.get(i), results.get(i), node, pod);
      }
    }
    PodBindings.bind(
        client,
        pod.getMetadata().getNamespace(),
        pod.getMetadata().getName(),
        pod.getMetadata().getUid(),
        node,
        Map.of()); // defaultbinder.go: kube-scheduler's binding carries no annotations
    return Attempt.bound(node);
  }

  /**
   * Per claim, its allocation on {@code node} (null for one allocated there already), or empty when
   * the node cannot take them all; each claim allocated here is in use for the next.
   */
  private static Optional<List<AllocationResult>> allocate(
      DraAllocator allocator,
      List<ResourceClaim> claims,
      String node,
      List<ResourceSlice> slices,
      List<ResourceClaim> allocated) {
    List<ResourceClaim> inUse = new ArrayList<>(allocated);
    List<AllocationResult> results = new ArrayList<>();
    for (ResourceClaim claim : claims) {
      if (claim.getStatus() != null && claim.getStatus().getAllocation() != null) {
        if (!node.equals(allocatedNode(claim))) {
          return Optional.empty(); // PreFilter: an allocated claim keeps the pod to its node
        }
        results.add(null);
        continue;
      }
      Optional<AllocationResult> result = allocator.allocate(claim, node, slices, inUse);
      if (result.isEmpty()) {
        return Optional.empty();
      }
      results.add(result.get());
      ResourceClaim taken = new ResourceClaimBuilder(claim).build();
      taken.setStatus(new ResourceClaimStatus());
      taken.getStatus().setAllocation(result.get());
      inUse.add(taken);
    }
    return Optional.of(results);
  }

  private static String allocatedNode(ResourceClaim claim) {
    return claim
        .getStatus()
        .getAllocation()
        .getNodeSelector()
        .getNodeSelectorTerms()
        .get(0)
        .getMatchFields()
        .get(0)
        .getValues()
        .get(0);
  }

  /** The extender's {@code prioritize}, weighted; the first of the best in name order. */
  private String best(Pod pod, List<String> fitting) throws IOException, InterruptedException {
    if (fitting.size() == 1) {
      return fitting.get(0); // schedulePod(): one feasible node is taken without scoring
    }
    Map<String, Long> scores = new LinkedHashMap<>();
    fitting.stream().sorted().forEach(name -> scores.put(name, 0L));
    String node = KubeSchedulerCycle.selectHost(extender, pod, scores, extenderWeight);
    LOG.info("pod {}: node scores {}, took {}", SchedulingProtocol.key(pod), scores, node);
    return node;
  }

  /** {@code Reserve} and {@code PreBind}: the allocation, for the node, reserved for the pod. */
  private void reserve(ResourceClaim claim, AllocationResult result, String node, Pod pod) {
    result.setNodeSelector(
        new NodeSelectorBuilder()
            .addNewNodeSelectorTerm()
            .addNewMatchField()
            .withKey("metadata.name")
            .withOperator("In")
            .withValues(node)
            .endMatchField()
            .endNodeSelectorTerm()
            .build());
    ResourceClaimStatus status = new ResourceClaimStatus();
    status.setAllocation(result);
    status.setReservedFor(
        List.of(
            new ResourceClaimConsumerReferenceBuilder()
                .withResource("pods")
                .withName(pod.getMetadata().getName())
                .withUid(pod.getMetadata().getUid())
                .build()));
    claim.setStatus(status);
    client.resource(claim).updateStatus();
  }

  /**
   * The pod's claim for {@code entry}: the named one, or the one its template made; when the
   * template's is not made yet, the resource claim controller makes it now and the pod waits.
   */
  private Optional<ResourceClaim> claim(Pod pod, PodResourceClaim entry) {
    String namespace = pod.getMetadata().getNamespace();
    if (entry.getResourceClaimName() != null) {
      return Optional.ofNullable(
          client
              .resources(ResourceClaim.class)
              .inNamespace(namespace)
              .withName(entry.getResourceClaimName())
              .get());
    }
    PodStatus status = pod.getStatus() == null ? new PodStatus() : pod.getStatus();
    for (PodResourceClaimStatus made : status.getResourceClaimStatuses()) {
      if (made.getName().equals(entry.getName()) && made.getResourceClaimName() != null) {
        return Optional.ofNullable(
            client
                .resources(ResourceClaim.class)
                .inNamespace(namespace)
                .withName(made.getResourceClaimName())
                .get());
      }
    }
    // lookupPodClaim(): a claim the controller made for this pod and entry before its status said
    // so (the scheduler's copy of the pod may be older than the claim).
    Optional<ResourceClaim> made = madeFor(pod, entry);
    if (made.isPresent()) {
      return made;
    }
    makeFromTemplate(pod, entry);
    // The scheduler does not make claims: it waits until the controller's claim is in its cache,
    // and places the pod in a later attempt.
    return Optional.empty();
  }

  /** The claim the controller made for the pod's {@code entry}, by owner and annotation. */
  private Optional<ResourceClaim> madeFor(Pod pod, PodResourceClaim entry) {
    String namespace = pod.getMetadata().getNamespace();
    return client.resources(ResourceClaim.class).inNamespace(namespace).list().getItems().stream()
        .filter(
            claim ->
                claim.getMetadata().getOwnerReferences().stream()
                    .anyMatch(owner -> owner.getUid().equals(pod.getMetadata().getUid())))
        .filter(
            claim ->
                entry.getName().equals(claim.getMetadata().getAnnotations().get(POD_CLAIM_NAME)))
        .findFirst();
  }

  /**
   * The resource claim controller's part: makes the pod's claim for {@code entry} from its
   * template, and records it in the pod's status.
   */
  private void makeFromTemplate(Pod pod, PodResourceClaim entry) {
    String namespace = pod.getMetadata().getNamespace();
    ResourceClaimTemplate template =
        client
            .resources(ResourceClaimTemplate.class)
            .inNamespace(namespace)
            .withName(entry.getResourceClaimTemplateName())
            .get();
    if (template == null) {
      return;
    }
    String name =
        pod.getMetadata().getName()
            + "-"
            + entry.getName()
            + "-"
            + UUID.randomUUID().toString().substring(0, 5);
    ResourceClaim claim =
        client
            .resource(
                new ResourceClaimBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace(namespace)
                    .addToAnnotations(POD_CLAIM_NAME, entry.getName())
                    .withOwnerReferences(
                        new OwnerReferenceBuilder()
                            .withApiVersion("v1")
                            .withKind("Pod")
                            .withName(pod.getMetadata().getName())
                            .withUid(pod.getMetadata().getUid())
                            .withController(true)
                            .withBlockOwnerDeletion(true)
                            .build())
                    .endMetadata()
                    .withSpec(template.getSpec().getSpec())
                    .build())
            .create();
    PodWrites.editStatus(
        client,
        pod,
        current -> {
          PodStatus edited = current.getStatus() == null ? new PodStatus() : current.getStatus();
          List<PodResourceClaimStatus> statuses =
              new ArrayList<>(edited.getResourceClaimStatuses());
          statuses.add(new PodResourceClaimStatus(entry.getName(), name));
          edited.setResourceClaimStatuses(statuses);
          current.setStatus(edited);
          return current;
        });
    LOG.info(
        "resource claim {}/{} made for pod {}",
        namespace,
        claim.getMetadata().getName(),
        SchedulingProtocol.key(pod));
  }
}
