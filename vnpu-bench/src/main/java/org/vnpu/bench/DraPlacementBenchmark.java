package org.vnpu.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.dra.DeviceOrder;
import org.vnpu.dra.DraSettings;
import org.vnpu.dra.NodeDevices;
import org.vnpu.dra.ResourceSlices;
import org.vnpu.dra.Sharing;
import org.vnpu.scheduler.Leadership;
import org.vnpu.scheduler.Listeners;
import org.vnpu.scheduler.Scheduler;
import org.vnpu.scheduler.SchedulerService;
import org.vnpu.scheduler.SchedulerSettings;

/**
 * kube-scheduler's {@code prioritize} for a pod with a quarter-chip ResourceClaim (docs/dra.md,
 * "Placement") over loopback: 1,000 nodes publishing 8 × 910B3 as quarters through the DRA driver's
 * own ResourceSlices, every other node with one quarter held by an allocated claim; the extender
 * evaluates the claim's CEL selector on each node's devices and scores every node with the engine.
 */
@State(Scope.Benchmark)
@Fork(1)
public class DraPlacementBenchmark {

  private static final int NODES = 1_000;
  private static final String DRIVER = DraSettings.DEFAULT_DRIVER_NAME;
  private static final ObjectMapper JSON = new ObjectMapper();

  private MockApiServer api;
  private SchedulerService service;
  private KeepAliveClient client;
  private byte[] prioritize;

  @Setup(Level.Trial)
  public void start() throws IOException, InterruptedException {
    api = new MockApiServer();
    List<String> names = new ArrayList<>();
    for (int n = 0; n < NODES; n++) {
      String node = "node-" + n;
      names.add(node);
      List<RegisteredChip> chips = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        chips.add(new RegisteredChip(i, node + "-die-" + i, "910B3", 65536, 20, 7, true, 0, ""));
      }
      for (ResourceSlice slice :
          ResourceSlices.of(
              DRIVER, node, 1, NodeDevices.of(chips, Sharing.PROFILES, 4, DeviceOrder.BINPACK))) {
        api.client().resource(slice).create();
      }
      if (n % 2 == 0) {
        ResourceClaim held = api.client().resource(claim("held-" + n)).create();
        held.setStatus(
            Serialization.unmarshal(
                """
                allocation:
                  devices:
                    results:
                    - {request: npu, driver: vnpu.huawei.com, pool: %s, device: npu-0-1of4}
                """
                    .formatted(node),
                ResourceClaimStatus.class));
        api.client().resource(held).updateStatus();
      }
    }
    api.client().resource(claim("mine")).create();
    PayloadCodec codec = new PayloadCodec();
    SigningKey key = SigningKey.generate();
    Scheduler scheduler =
        new Scheduler(
            api.client(),
            ChipCatalog.builtIn(),
            new AllocationSigner(key, codec),
            AllocationVerifier.of(key, codec),
            SchedulerSettings.defaults().withDraDriver(DRIVER),
            Clock.systemUTC());
    service =
        SchedulerService.start(
            Listeners.plain(new InetSocketAddress("127.0.0.1", 0)),
            scheduler,
            api.client(),
            Leadership.alone());
    client = new KeepAliveClient(service.port());
    prioritize =
        JSON.writeValueAsBytes(
            Map.of("Pod", JSON.readTree(Serialization.asJson(pod())), "NodeNames", names));
    // the informers have the slices and the claims once every node is ranked
    while (!new String(client.post("/kube/prioritize", prioritize), StandardCharsets.UTF_8)
        .contains("\"Host\":\"node-" + (NODES - 1) + "\",\"Score\":")) {
      Thread.sleep(100);
    }
  }

  @TearDown(Level.Trial)
  public void stop() throws IOException {
    client.close();
    service.close();
    api.close();
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 3, time = 10)
  public byte[] kubePrioritizeClaimPod1000Nodes() throws IOException {
    return client.post("/kube/prioritize", prioritize);
  }

  private static ResourceClaim claim(String name) {
    return Serialization.unmarshal(
        """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: %s, namespace: serving}
        spec:
          devices:
            requests:
            - name: npu
              exactly:
                deviceClassName: vnpu.huawei.com
                selectors:
                - cel:
                    expression: >-
                      !device.attributes["vnpu.huawei.com"].wholeCard &&
                      device.capacity["vnpu.huawei.com"].aiCore == quantity("25")
        """
            .formatted(name),
        ResourceClaim.class);
  }

  private static Pod pod() {
    return Serialization.unmarshal(
        """
        apiVersion: v1
        kind: Pod
        metadata:
          name: bert
          namespace: serving
          uid: uid-bert
          annotations: {huawei.com/vnpu-pod-node-scheduler-policy: binpack}
        spec:
          resourceClaims: [{name: npu, resourceClaimName: mine}]
          containers:
          - name: main
            image: serve
            resources: {claims: [{name: npu}]}
        """,
        Pod.class);
  }
}
