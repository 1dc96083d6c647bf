package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.core.chip.ChipModel;
import org.vnpu.deviceplugin.kubelet.KubeletResource;
import org.vnpu.deviceplugin.node.NodePublisher;
import org.vnpu.kube.DaemonThreads;

/**
 * Nodes for the throughput benchmark (docs/benchmarks.md): Node objects with no kubelet behind
 * them, because binding, not running, is what the benchmark measures. Each advertises what a
 * kubelet with the vNPU device plugin would (the plugin's resources, counted as {@link
 * KubeletResource} counts them) and one plain resource of whole chips, {@value #WHOLE_CHIPS}, which
 * the schedulers count without vNPU. The vNPU inventory is published by the device plugin's {@link
 * NodePublisher}, and a heartbeat loop does what the kubelet and the plugin would keep doing: it
 * renews each node's Lease every {@link #LEASE_RENEW} s, as the kubelet does (so the node lifecycle
 * controller keeps it Ready and untainted), and republishes the inventory every {@link
 * #INVENTORY_RENEW} s, the chart's {@code heartbeatInterval}. The Leases have writers of their own,
 * many, as each kubelet renews its own: behind the inventories' writes on an overloaded machine
 * they fell more than the controller's grace period behind, and the controller tainted the nodes
 * unreachable in the middle of a row. The longest a Lease went unrenewed is measured and reported.
 */
final class BenchNodes implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(BenchNodes.class);

  /** The plain resource of the anchor rows: whole chips, as Ascend's own device plugin counts. */
  static final String WHOLE_CHIPS = "huawei.com/Ascend910";

  static final String LEASE_NAMESPACE = "kube-node-lease";
  private static final int LEASE_SECONDS = 40;
  private static final int LEASE_RENEW = 10;
  private static final int INVENTORY_RENEW = 30;
  private static final int MAX_SHARES_PER_CHIP = 20;
  private static final int CREATORS = 8;
  private static final int INVENTORY_WRITERS = 8;
  private static final int LEASE_WRITERS = 32;

  /**
   * The node lifecycle controller's {@code --node-monitor-grace-period} default (v1.34.1,
   * nodelifecycle/config/v1alpha1/defaults.go): a node whose Lease was not renewed for this long is
   * marked unreachable.
   */
  static final Duration GRACE_PERIOD = Duration.ofSeconds(50);

  private static final DateTimeFormatter MICRO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private final KubernetesClient client;
  private final KubernetesClient devicePlugin;
  private final List<String> names;
  private final ChipModel model;
  private final int chipsPerNode;
  private final PayloadCodec codec = new PayloadCodec();
  private final ScheduledExecutorService heartbeat =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("vnpu-bench-heartbeat"));
  private final ExecutorService inventoryWriters =
      Executors.newFixedThreadPool(
          INVENTORY_WRITERS, DaemonThreads.named("vnpu-bench-inventory-writes"));
  private final ExecutorService leaseWriters =
      Executors.newFixedThreadPool(LEASE_WRITERS, DaemonThreads.named("vnpu-bench-lease-writes"));
  private final Set<String> pending = ConcurrentHashMap.newKeySet();
  private final Map<String, Long> renewedAt = new ConcurrentHashMap<>();
  private final AtomicLong longestLeaseGap = new AtomicLong();
  private final AtomicLong ticks = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();

  private BenchNodes(
      KubernetesClient client,
      KubernetesClient devicePlugin,
      List<String> names,
      ChipModel model,
      int chipsPerNode) {
    this.client = client;
    this.devicePlugin = devicePlugin;
    this.names = List.copyOf(names);
    this.model = model;
    this.chipsPerNode = chipsPerNode;
  }

  /**
   * Registers {@code count} nodes of {@code chipsPerNode} chips of {@code model}, publishes their
   * inventories, and starts their heartbeat.
   *
   * @param client writes the Nodes and their Leases, as each node's kubelet would
   * @param devicePlugin publishes the inventories, with the device plugin's account (the chart's
   *     policy lets no one else write them)
   */
  static BenchNodes register(
      KubernetesClient client,
      KubernetesClient devicePlugin,
      int count,
      ChipModel model,
      int chipsPerNode)
      throws InterruptedException {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      names.add(String.format("bench-%04d", i));
    }
    BenchNodes nodes = new BenchNodes(client, devicePlugin, names, model, chipsPerNode);
    long started = System.nanoTime();
    nodes.inParallel(nodes::create);
    LOG.info(
        "{} nodes of {} x {} registered in {} s",
        count,
        chipsPerNode,
        model.name(),
        (System.nanoTime() - started) / 1_000_000_000);
    nodes.heartbeat.scheduleAtFixedRate(nodes::beat, 1, 1, TimeUnit.SECONDS);
    return nodes;
  }

  List<String> names() {
    return names;
  }

  /** The node's chips, as its driver would report them, die IDs {@code <node>-<index>}. */
  private List<RegisteredChip> chips(String node) {
    List<RegisteredChip> chips = new ArrayList<>();
    for (int i = 0; i < chipsPerNode; i++) {
      chips.add(
          new RegisteredChip(
              i,
              node + "-" + i,
              model.name(),
              model.memoryMiB(),
              model.aiCores(),
              model.aiCpus(),
              true,
              i < chipsPerNode / 2 ? 0 : 1,
              ""));
    }
    return chips;
  }

  /** Heartbeat writes that failed so far (each is logged once it happens). */
  long heartbeatFailures() {
    return failures.get();
  }

  /**
   * The longest a node's Lease went without a renewal so far, as seen each second; past {@link
   * #GRACE_PERIOD} the node lifecycle controller marks nodes unreachable, and the run measured the
   * benchmark's own heartbeat more than the schedulers.
   */
  Duration longestLeaseGap() {
    return Duration.ofNanos(longestLeaseGap.get());
  }

  private void create(String name) {
    client.nodes().resource(node(name)).create();
    client.leases().inNamespace(LEASE_NAMESPACE).resource(lease(name)).create();
    renewedAt.put(name, System.nanoTime());
    publisher(name).publish(chips(name));
  }

  private NodePublisher publisher(String name) {
    return new NodePublisher(
        devicePlugin, name, SplitMode.SOFT, MAX_SHARES_PER_CHIP, codec, Clock.systemUTC());
  }

  /**
   * One second of the heartbeat: the Leases of a tenth of the nodes, the inventories of a
   * thirtieth, so that each node's are renewed every {@link #LEASE_RENEW} and {@link
   * #INVENTORY_RENEW} s. The writes go on threads of their own, as many nodes write at once; a
   * node's write still waiting is not queued twice.
   */
  private void beat() {
    long tick = ticks.incrementAndGet();
    String now = MICRO_TIME.format(Instant.now());
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      if (i % LEASE_RENEW == tick % LEASE_RENEW) {
        write(leaseWriters, "lease " + name, () -> renew(name, now));
      }
      if (i % INVENTORY_RENEW == tick % INVENTORY_RENEW) {
        write(inventoryWriters, "inventory " + name, () -> publisher(name).publish(chips(name)));
      }
    }
    watchLeaseGaps();
  }

  /** Keeps the longest Lease gap; says so when one nears the controller's grace period. */
  private void watchLeaseGaps() {
    long now = System.nanoTime();
    long oldest = 0;
    String node = null;
    for (Map.Entry<String, Long> renewed : renewedAt.entrySet()) {
      if (now - renewed.getValue() > oldest) {
        oldest = now - renewed.getValue();
        node = renewed.getKey();
      }
    }
    long before = longestLeaseGap.getAndAccumulate(oldest, Math::max);
    long warnAt = GRACE_PERIOD.toNanos() * 4 / 5;
    if (oldest > warnAt && before <= warnAt) {
      LOG.warn(
          "node {}'s Lease was last renewed {} s ago; the node lifecycle controller marks a node"
              + " unreachable after {} s: the benchmark's heartbeat falls behind on this machine",
          node,
          oldest / 1_000_000_000,
          GRACE_PERIOD.toSeconds());
    }
  }

  private void write(ExecutorService writers, String what, Runnable write) {
    if (!pending.add(what)) {
      return;
    }
    writers.execute(
        () -> {
          try {
            write.run();
          } catch (KubernetesClientException e) {
            if (failures.incrementAndGet() % 100 == 1) {
              LOG.warn(
                  "heartbeat write ({}) failed ({} so far): {}", what, failures, e.getMessage());
            }
          } finally {
            pending.remove(what);
          }
        });
  }

  /** Renews the node's Lease: one patch, with no read before it. */
  private void renew(String name, String now) {
    client
        .leases()
        .inNamespace(LEASE_NAMESPACE)
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(LEASE_NAMESPACE)
                .endMetadata()
                .build())
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"spec\":{\"renewTime\":\"" + now + "\"}}");
    renewedAt.put(name, System.nanoTime());
  }

  private Node node(String name) {
    List<RegisteredChip> chips = chips(name);
    Map<String, Quantity> capacity = new LinkedHashMap<>();
    capacity.put("cpu", new Quantity("192"));
    capacity.put("memory", new Quantity("1536Gi"));
    capacity.put("pods", new Quantity("110"));
    capacity.put("ephemeral-storage", new Quantity("1Ti"));
    capacity.put(WHOLE_CHIPS, new Quantity(Integer.toString(chips.size())));
    for (KubeletResource resource : KubeletResource.forChips(chips, MAX_SHARES_PER_CHIP)) {
      capacity.put(
          resource.name(), new Quantity(Integer.toString(resource.devices().apply(chips).size())));
    }
    String now = Instant.now().toString();
    NodeCondition ready =
        new NodeConditionBuilder()
            .withType("Ready")
            .withStatus("True")
            .withReason("KubeletReady")
            .withMessage("benchmark node: no kubelet; its Lease is renewed by the benchmark")
            .withLastHeartbeatTime(now)
            .withLastTransitionTime(now)
            .build();
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(
            Map.of(
                "kubernetes.io/hostname", name,
                "kubernetes.io/os", "linux",
                "kubernetes.io/arch", "amd64"))
        .endMetadata()
        .withNewStatus()
        .withCapacity(capacity)
        .withAllocatable(capacity)
        .withConditions(ready)
        .endStatus()
        .build();
  }

  private Lease lease(String name) {
    return new LeaseBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(LEASE_NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withHolderIdentity(name)
        .withLeaseDurationSeconds(LEASE_SECONDS)
        .withRenewTime(java.time.ZonedDateTime.now(ZoneOffset.UTC))
        .endSpec()
        .build();
  }

  /** Runs {@code step} for every node on {@value #CREATORS} threads; fails with the first error. */
  private void inParallel(java.util.function.Consumer<String> step) throws InterruptedException {
    ExecutorService threads = Executors.newFixedThreadPool(CREATORS);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (String name : names) {
        done.add(threads.submit(() -> step.accept(name)));
      }
      for (Future<?> future : done) {
        future.get();
      }
    } catch (ExecutionException e) {
      throw new IllegalStateException(
          "registering the benchmark's nodes failed: " + e.getCause().getMessage(), e.getCause());
    } finally {
      threads.shutdownNow();
    }
  }

  /** Stops the heartbeat and deletes the nodes and their Leases. */
  @Override
  public void close() {
    heartbeat.shutdownNow();
    inventoryWriters.shutdownNow();
    leaseWriters.shutdownNow();
    try {
      inParallel(
          name -> {
            client.nodes().withName(name).delete();
            client.leases().inNamespace(LEASE_NAMESPACE).withName(name).delete();
          });
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.warn("deleting the benchmark's nodes: {}", e.getMessage());
    }
  }
}
