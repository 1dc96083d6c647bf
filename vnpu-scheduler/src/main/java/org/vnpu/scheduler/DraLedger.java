package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.PodAllocation;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.engine.NodeFit;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.engine.PlacementEngine;
import org.vnpu.core.inventory.NodeInventory;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.ChargeKey;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.PodRequest;
import org.vnpu.core.validation.Validated;

/**
 * The chips of the nodes that offer vNPUs through DRA and what ResourceClaims hold of them, so that
 * a pod with vNPU claims gets the node choice a device-plugin pod gets (docs/dra.md, "Placement").
 * Each node's chips are read from the devices of its newest complete pool of this driver's
 * ResourceSlices (attributes {@code index}, {@code type}, {@code dieID}, {@code numaNode}, {@code
 * interconnectGroup}, {@code aiCores}; memory: the whole chip's device, else the sum of its
 * slices); each allocated claim's devices on a node are charged to their chips: a shared device
 * with the capacity the claim consumed, another device with its capacity, a whole chip whole. The
 * engine then scores a claim pod as a pod asking, per claim request, for what the first device of
 * the node that the request's selectors match stands for (or for the capacity it asks of a shared
 * device). kube-scheduler's DRA plugin still allocates, within the node it picks; this only ranks
 * nodes, and sees a claim's charge once the scheduler wrote its allocation.
 *
 * <p>Thread-safe: every method holds the instance's lock.
 */
final class DraLedger {

  private static final Logger LOG = LoggerFactory.getLogger(DraLedger.class);

  /** Shares a chip may hold, as far as scoring is concerned: the shim's limit. */
  private static final int MAX_SHARES = NodeRegistration.MAX_SHARES_PER_CHIP;

  private final String driver;
  private final ChipCatalog catalog;
  private final DraClaimReader reader;

  /** This driver's slices by node, then by name (a slice's node never changes). */
  private final Map<String, Map<String, ResourceSlice>> slices = new HashMap<>();

  private final Map<String, ResourceClaim> claims = new HashMap<>();

  /** The claims (by key) allocated devices of each pool, so that a node's rebuild reads its own. */
  private final Map<String, Set<String>> claimsByPool = new HashMap<>();

  private final Map<String, NodeDevices> nodes = new HashMap<>();
  private final Ledger ledger = new Ledger();

  /** A node's devices by name, in slice order, and its chips' registration. */
  private record NodeDevices(Map<String, Device> devices, List<RegisteredChip> chips) {}

  /**
   * @param driver the DRA driver name; its DeviceClass has the same name (the chart's)
   */
  DraLedger(String driver, ChipCatalog catalog) {
    this.driver = driver;
    this.catalog = catalog;
    this.reader = new DraClaimReader(driver);
  }

  synchronized void sliceChanged(ResourceSlice slice) {
    if (!driver.equals(slice.getSpec().getDriver()) || slice.getSpec().getNodeName() == null) {
      return;
    }
    String node = slice.getSpec().getNodeName();
    slices.computeIfAbsent(node, n -> new HashMap<>()).put(slice.getMetadata().getName(), slice);
    rebuild(node);
  }

  synchronized void sliceRemoved(ResourceSlice slice) {
    String node = slice.getSpec().getNodeName();
    Map<String, ResourceSlice> ofNode = slices.get(node);
    if (ofNode != null && ofNode.remove(slice.getMetadata().getName()) != null) {
      if (ofNode.isEmpty()) {
        slices.remove(node);
      }
      rebuild(node);
    }
  }

  synchronized void claimChanged(ResourceClaim claim) {
    ResourceClaim before = claims.put(key(claim), claim);
    index(before, claim);
    charge(before, claim);
  }

  synchronized void claimRemoved(ResourceClaim claim) {
    ResourceClaim before = claims.remove(key(claim));
    index(before, null);
    charge(before, null);
  }

  /**
   * Moves the claim in {@link #claimsByPool} from the pools of {@code before} to those of {@code
   * after}.
   */
  private void index(ResourceClaim before, ResourceClaim after) {
    if (before != null) {
      for (DeviceRequestAllocationResult result : reader.allocation(before)) {
        Set<String> keys = claimsByPool.get(result.getPool());
        if (keys != null && keys.remove(key(before)) && keys.isEmpty()) {
          claimsByPool.remove(result.getPool());
        }
      }
    }
    if (after != null) {
      for (DeviceRequestAllocationResult result : reader.allocation(after)) {
        claimsByPool.computeIfAbsent(result.getPool(), pool -> new HashSet<>()).add(key(after));
      }
    }
  }

  /** The node's chips as the claims left them, if it offers this driver's devices. */
  synchronized Optional<NodeState> node(String name) {
    return ledger.node(name);
  }

  /**
   * The names among {@code names} of claims in {@code namespace} that the informer has not given.
   */
  synchronized List<String> unseen(String namespace, List<String> names) {
    return names.stream()
        .distinct()
        .filter(name -> !claims.containsKey(namespace + "/" + name))
        .toList();
  }

  /**
   * Scores 0..100 of the nodes that could take the pod's unallocated vNPU claims (others are left
   * out), by the policy of {@code options} (its annotations' policy). A claim the informer has not
   * given yet is taken from {@code read} (the API server's copy), without keeping it: the informer
   * alone says when a claim is gone.
   */
  synchronized Map<String, Double> scores(
      PodRequest options,
      List<String> claimNames,
      Map<String, ResourceClaim> read,
      Collection<String> names,
      PlacementContext context) {
    List<ResourceClaim> pending = new ArrayList<>();
    for (String name : claimNames) {
      ResourceClaim claim = claims.getOrDefault(options.namespace() + "/" + name, read.get(name));
      if (claim != null && reader.allocation(claim).isEmpty() && !reader.ours(claim).isEmpty()) {
        pending.add(claim);
      }
    }
    Map<String, Double> scores = new LinkedHashMap<>();
    if (pending.isEmpty()) {
      return scores;
    }
    for (String name : names) {
      Optional<NodeState> node = ledger.node(name);
      NodeDevices devices = nodes.get(name);
      if (node.isEmpty() || devices == null) {
        continue;
      }
      Optional<List<ContainerRequest>> asked = reader.requests(pending, devices.devices().values());
      if (asked.isEmpty()) {
        continue;
      }
      PodRequest request =
          new PodRequest(
              options.namespace(), options.name(), options.uid(), options.options(), asked.get());
      NodeState fresh = node.get().withHeartbeat(context.now());
      if (PlacementEngine.fit(request, HostResources.NONE, fresh, context)
          instanceof NodeFit.Fits fits) {
        scores.put(name, fits.score());
      }
    }
    return scores;
  }

  /** Re-charges the nodes the claim's allocation was and is on. */
  private void charge(ResourceClaim before, ResourceClaim after) {
    if (before != null) {
      ledger.release(ChargeKey.claim(before.getMetadata().getUid()).ledgerKey());
    }
    if (after != null) {
      ledger.release(ChargeKey.claim(after.getMetadata().getUid()).ledgerKey());
      try {
        plan(after).ifPresent(this::apply);
      } catch (RuntimeException e) {
        LOG.warn("claim {} is not charged: {}", key(after), e.toString());
      }
    }
  }

  private void apply(AllocationPlan plan) {
    if (ledger.node(plan.node()).isPresent() && !ledger.apply(plan)) {
      LOG.warn(
          "claim {} holds more of node {}'s chips than they have; not charged",
          ChargeKey.of(plan.podUid()).id(),
          plan.node());
    }
  }

  /** The chips of this driver that the claim's allocation holds, on one node. */
  private Optional<AllocationPlan> plan(ResourceClaim claim) {
    List<VnpuAssignment> vnpus = new ArrayList<>();
    String node = null;
    for (DeviceRequestAllocationResult result : reader.allocation(claim)) {
      NodeDevices devices = nodes.get(result.getPool());
      Device device = devices == null ? null : devices.devices().get(result.getDevice());
      if (device == null) {
        continue; // its node's slices are not (or no longer) here
      }
      node = result.getPool();
      RegisteredChip chip = DraDevices.chipOf(devices.chips(), device);
      vnpus.add(DraDevices.charged(chip, device, result.getConsumedCapacity()));
    }
    if (vnpus.isEmpty()) {
      return Optional.empty();
    }
    PodAllocation allocation =
        new PodAllocation(
            ChargeKey.claim(claim.getMetadata().getUid()).ledgerKey(),
            node,
            List.of(new ContainerAllocation("claim", false, vnpus)));
    return Optional.of(new AllocationPlan(allocation, HostResources.NONE));
  }

  /**
   * Rebuilds the node's chips from its slices and charges the claims allocated on it; a slice that
   * cannot be read leaves the node out, with a warning.
   */
  private void rebuild(String node) {
    ledger.removeNode(node);
    nodes.remove(node);
    try {
      place(node);
    } catch (RuntimeException e) {
      ledger.removeNode(node);
      nodes.remove(node);
      LOG.warn("node {}'s DRA devices are not placed on: {}", node, e.toString());
    }
  }

  private void place(String node) {
    List<ResourceSlice> pool = newestCompletePool(node);
    if (pool.isEmpty()) {
      return;
    }
    Map<String, Device> devices = new LinkedHashMap<>();
    pool.stream()
        .sorted(Comparator.comparing(slice -> slice.getMetadata().getName()))
        .flatMap(
            slice ->
                Objects.requireNonNullElse(slice.getSpec().getDevices(), List.<Device>of())
                    .stream())
        .forEach(device -> devices.put(device.getName(), device));
    List<RegisteredChip> chips = DraDevices.chips(node, devices.values());
    Validated<NodeInventory> inventory =
        NodeInventory.from(node, new NodeRegistration(SplitMode.SOFT, MAX_SHARES, chips), catalog);
    if (inventory instanceof Validated.Invalid<NodeInventory> invalid) {
      LOG.warn("node {}'s DRA devices are not placed on: {}", node, invalid);
      return;
    }
    nodes.put(node, new NodeDevices(devices, chips));
    ledger.putNode(inventory.orElseThrow(), HostResources.UNTRACKED);
    ledger.heartbeat(node, Instant.EPOCH);
    for (String key : claimsByPool.getOrDefault(node, Set.of())) {
      plan(claims.get(key)).filter(plan -> plan.node().equals(node)).ifPresent(this::apply);
    }
  }

  private List<ResourceSlice> newestCompletePool(String node) {
    List<ResourceSlice> pool = new ArrayList<>();
    for (ResourceSlice slice : slices.getOrDefault(node, Map.of()).values()) {
      long generation = slice.getSpec().getPool().getGeneration();
      if (!pool.isEmpty() && generation < pool.get(0).getSpec().getPool().getGeneration()) {
        continue;
      }
      if (!pool.isEmpty() && generation > pool.get(0).getSpec().getPool().getGeneration()) {
        pool.clear();
      }
      pool.add(slice);
    }
    boolean complete =
        !pool.isEmpty() && pool.size() == pool.get(0).getSpec().getPool().getResourceSliceCount();
    return complete ? pool : List.of();
  }

  private static String key(ResourceClaim claim) {
    return claim.getMetadata().getNamespace() + "/" + claim.getMetadata().getName();
  }
}
