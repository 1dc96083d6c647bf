package org.vnpu.dra;

import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.vnpu.api.AiCorePolicy;
import org.vnpu.api.LogLevel;
import org.vnpu.api.ShimContract;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.ShimConfigFormat;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.payload.ShimConfig;
import org.vnpu.api.payload.ShimDevice;
import org.vnpu.api.payload.VnpuAssignment;
import org.vnpu.handouts.Handout;
import org.vnpu.handouts.Handouts;
import org.vnpu.handouts.NodeFiles;

/**
 * Prepares and unprepares claims: reads the ResourceClaim, takes the devices the scheduler
 * allocated on this node from this driver, turns each into the device plugin's hand-out — a shim
 * config with the quota for a share (the device's slice, or the capacity a consumable claim asked
 * for), the chip's devices and mounts — and writes them as one CDI spec per claim. Both are
 * idempotent; the checkpoint makes them so across restarts.
 */
final class ClaimPreparer {

  /** A claim the kubelet named: namespace, name and UID. */
  record ClaimRef(String namespace, String name, String uid) {}

  /** A claim that cannot be prepared; the message goes back to the kubelet. */
  static final class PrepareException extends Exception {
    private static final long serialVersionUID = 1L;

    PrepareException(String message) {
      super(message);
    }
  }

  private final KubernetesClient client;
  private final String driver;
  private final String node;
  private final Supplier<NodeDevices> devices;
  private final NodeFiles files;
  private final Handouts handouts;
  private final CdiSpecs cdi;
  private final Checkpoint checkpoint;
  private final LogLevel shimLogLevel;
  private final ShimConfigFormat configs = new ShimConfigFormat();

  ClaimPreparer(
      KubernetesClient client,
      String driver,
      String node,
      Supplier<NodeDevices> devices,
      NodeFiles files,
      Handouts handouts,
      CdiSpecs cdi,
      Checkpoint checkpoint,
      LogLevel shimLogLevel) {
    this.client = client;
    this.driver = driver;
    this.node = node;
    this.devices = devices;
    this.files = files;
    this.handouts = handouts;
    this.cdi = cdi;
    this.checkpoint = checkpoint;
    this.shimLogLevel = shimLogLevel;
  }

  synchronized List<PreparedDevice> prepare(ClaimRef ref) throws PrepareException, IOException {
    Optional<List<PreparedDevice>> done = checkpoint.get(ref.uid());
    if (done.isPresent()) {
      return done.get();
    }
    ResourceClaim claim =
        client
            .resources(ResourceClaim.class)
            .inNamespace(ref.namespace())
            .withName(ref.name())
            .get();
    String key = ref.namespace() + "/" + ref.name();
    if (claim == null) {
      throw new PrepareException("resource claim " + key + " does not exist");
    }
    if (!claim.getMetadata().getUid().equals(ref.uid())) {
      throw new PrepareException(
          "resource claim "
              + key
              + " has UID "
              + claim.getMetadata().getUid()
              + ", not "
              + ref.uid());
    }
    List<DeviceRequestAllocationResult> results = results(claim);
    if (results.isEmpty()) {
      throw new PrepareException(
          "resource claim " + key + " has no device of driver " + driver + " on node " + node);
    }
    NodeDevices offered = devices.get();
    Map<String, Handout> cdiDevices = new LinkedHashMap<>();
    List<PreparedDevice> prepared = new ArrayList<>();
    for (DeviceRequestAllocationResult result : results) {
      NodeDevices.NpuDevice device =
          offered
              .find(result.getDevice())
              .orElseThrow(
                  () ->
                      new PrepareException(
                          "device "
                              + result.getDevice()
                              + " of claim "
                              + key
                              + " is not offered by node "
                              + node
                              + " (unhealthy or gone)"));
      VnpuAssignment vnpu = assignment(device, result, key);
      String name = ref.uid() + "-" + device.name();
      String request = baseRequest(result.getRequest());
      cdiDevices.put(name, handout(ref, request, device.name(), vnpu));
      prepared.add(
          new PreparedDevice(
              request, node, device.name(), List.of(cdi.id(name)), result.getShareID()));
    }
    cdi.write(ref.uid(), cdiDevices);
    checkpoint.put(ref.uid(), prepared);
    return prepared;
  }

  /** The request of a result that names a sub-request ({@code request/sub}). */
  static String baseRequest(String request) {
    int slash = request.indexOf('/');
    return slash < 0 ? request : request.substring(0, slash);
  }

  synchronized void unprepare(ClaimRef ref) throws IOException {
    cdi.remove(ref.uid());
    files.remove(ref.uid());
    checkpoint.remove(ref.uid());
  }

  private List<DeviceRequestAllocationResult> results(ResourceClaim claim) {
    if (claim.getStatus() == null
        || claim.getStatus().getAllocation() == null
        || claim.getStatus().getAllocation().getDevices() == null) {
      return List.of();
    }
    return claim.getStatus().getAllocation().getDevices().getResults().stream()
        .filter(result -> driver.equals(result.getDriver()) && node.equals(result.getPool()))
        .toList();
  }

  private static VnpuAssignment assignment(
      NodeDevices.NpuDevice device, DeviceRequestAllocationResult result, String claim)
      throws PrepareException {
    RegisteredChip chip = device.chip();
    int cores = device.cores();
    long memoryMiB = device.memoryMiB();
    if (device.consumable()) {
      Map<String, Quantity> consumed =
          result.getConsumedCapacity() == null ? Map.of() : result.getConsumedCapacity();
      Quantity askedCores = consumed.get(ResourceSlices.AI_CORE);
      Quantity askedMemory = consumed.get(ResourceSlices.MEMORY);
      if (askedCores == null || askedMemory == null) {
        throw new PrepareException(
            "claim "
                + claim
                + " shares "
                + device.name()
                + " without consumed capacity "
                + ResourceSlices.AI_CORE
                + " and "
                + ResourceSlices.MEMORY
                + " (is DRAConsumableCapacity enabled?)");
      }
      cores = askedCores.getNumericalAmount().intValue();
      memoryMiB = askedMemory.getNumericalAmount().divide(BigDecimal.valueOf(1 << 20)).longValue();
    }
    return new VnpuAssignment(
        chip.index(),
        chip.dieId(),
        chip.chipType(),
        memoryMiB,
        device.wholeCard() ? 100 : cores,
        SplitMode.SOFT,
        device.wholeCard(),
        device.wholeCard() ? null : cores == 0 ? AiCorePolicy.BEST_EFFORT : AiCorePolicy.ELASTIC,
        null);
  }

  private Handout handout(ClaimRef ref, String request, String device, VnpuAssignment vnpu)
      throws IOException {
    ContainerAllocation container = new ContainerAllocation(request, false, List.of(vnpu));
    if (vnpu.wholeCard()) {
      return handouts.of(container, null);
    }
    ShimConfig config =
        new ShimConfig(
            ref.uid(),
            ref.namespace(),
            ref.name(),
            request,
            ShimContract.CONTAINER_BOOKS,
            shimLogLevel,
            null, // online: a ResourceClaim carries no priority (docs/colocation.md)
            List.of(ShimDevice.of(vnpu)));
    return handouts.of(
        container,
        files.writeShimFiles(
            ref.uid(),
            new NodeFiles.PodRecord(ref.uid(), ref.namespace(), ref.name()),
            device,
            configs.write(config)));
  }
}
