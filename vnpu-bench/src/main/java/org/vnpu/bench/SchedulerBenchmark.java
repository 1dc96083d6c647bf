package org.vnpu.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.HandshakeState;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.NodeHandshake;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.scheduler.Leadership;
import org.vnpu.scheduler.Listeners;
import org.vnpu.scheduler.Scheduler;
import org.vnpu.scheduler.SchedulerService;
import org.vnpu.scheduler.SchedulerSettings;

/**
 * The extender over HTTP on loopback, as the schedulers call it: Volcano predicate throughput with
 * a realistic task (a pod of about 3 KB), kube-scheduler filter over 5,000 node names, and a
 * kube-scheduler bind (reserve, sign, lock, annotate, Binding) against fabric8's CRUD mock. Nodes:
 * 5,000 × 8 × 910B3, registered and heartbeating.
 */
@State(Scope.Benchmark)
@Fork(1)
public class SchedulerBenchmark {

  private static final SigningKey KEY = SigningKey.generate();

  private static final int NODES = 5_000;
  private static final ObjectMapper JSON = new ObjectMapper();

  private MockApiServer api;
  private SchedulerService service;
  private Scheduler scheduler;
  private byte[] predicate;
  private byte[] filter;
  private int pods;

  @Setup(Level.Trial)
  public void start() throws IOException {
    api = new MockApiServer();
    PayloadCodec codec = new PayloadCodec();
    scheduler =
        new Scheduler(
            api.client(),
            ChipCatalog.builtIn(),
            new AllocationSigner(KEY, codec),
            AllocationVerifier.of(KEY, codec),
            SchedulerSettings.defaults(),
            Clock.systemUTC());
    List<String> names = new ArrayList<>();
    for (int n = 0; n < NODES; n++) {
      String name = "node-" + n;
      names.add(name);
      Node node = node(name, codec);
      scheduler.nodeChanged(node);
      if (n < 8) {
        api.client().nodes().resource(node).create(); // the bind benchmark's nodes
      }
    }
    service =
        SchedulerService.start(
            Listeners.plain(new InetSocketAddress("127.0.0.1", 0)),
            scheduler,
            api.client(),
            Leadership.alone());
    Pod pod = pod("sized-" + 0, "30", "8");
    predicate =
        JSON.writeValueAsBytes(
            Map.of(
                "task",
                Map.of("UID", "task-uid", "Name", "bert", "Namespace", "serving", "Pod", tree(pod)),
                "node",
                Map.of("Name", "node-17")));
    filter = JSON.writeValueAsBytes(Map.of("Pod", tree(pod), "NodeNames", names));
  }

  @TearDown(Level.Trial)
  public void stop() {
    service.close();
    api.close();
  }

  /** Each benchmark thread's own kept-alive connection. */
  @State(Scope.Thread)
  public static class Connection {
    KeepAliveClient client;

    @Setup(Level.Trial)
    public void open(SchedulerBenchmark bench) throws IOException {
      client = new KeepAliveClient(bench.service.port());
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      client.close();
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.Throughput)
  @OutputTimeUnit(TimeUnit.SECONDS)
  @Threads(4)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 3, time = 10)
  public byte[] volcanoPredicate(Connection connection) throws Exception {
    return connection.client.post("/volcano/predicate", predicate);
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 3, time = 10)
  public byte[] kubeFilter5000Nodes(Connection connection) throws Exception {
    return connection.client.post("/kube/filter", filter);
  }

  /** A pod created for each bind and released after it. */
  @State(Scope.Thread)
  public static class Unbound {
    Pod pod;

    @Setup(Level.Invocation)
    public void create(SchedulerBenchmark bench) {
      pod =
          bench.api.client().pods().resource(bench.pod("bind-" + bench.pods++, "30", "8")).create();
    }

    @TearDown(Level.Invocation)
    public void release(SchedulerBenchmark bench) {
      bench.scheduler.unreserve(
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          pod.getMetadata().getUid());
      bench.api.client().pods().resource(pod).delete();
    }
  }

  @Benchmark
  @BenchmarkMode(Mode.SampleTime)
  @OutputTimeUnit(TimeUnit.MILLISECONDS)
  @Warmup(iterations = 2, time = 5)
  @Measurement(iterations = 3, time = 10)
  public String kubeBind(Unbound unbound, Connection connection) throws Exception {
    Map<String, String> args = new LinkedHashMap<>();
    args.put("PodName", unbound.pod.getMetadata().getName());
    args.put("PodNamespace", "serving");
    args.put("PodUID", unbound.pod.getMetadata().getUid());
    args.put("Node", "node-" + (pods % 8));
    String result =
        new String(
            connection.client.post("/kube/bind", JSON.writeValueAsBytes(args)),
            StandardCharsets.UTF_8);
    if (!result.contains("\"Error\":\"\"")) {
      throw new IllegalStateException(result);
    }
    return result;
  }

  private static Node node(String name, PayloadCodec codec) {
    List<RegisteredChip> chips = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      chips.add(new RegisteredChip(i, name + "-die-" + i, "910B3", 65536, 20, 7, true, i / 4, ""));
    }
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .addToAnnotations(
            AnnotationKeys.NODE_REGISTER,
            codec.encodeRegistration(new NodeRegistration(SplitMode.SOFT, 20, chips)))
        .addToAnnotations(
            AnnotationKeys.NODE_HANDSHAKE,
            codec.encodeHandshake(
                new NodeHandshake(HandshakeState.REPORTED, Instant.now().plusSeconds(3600))))
        .endMetadata()
        .build();
  }

  private Pod pod(String name, String cores, String memoryGib) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("serving")
        .withUid("uid-" + name)
        .addToLabels("app", "bert")
        .addToAnnotations(AnnotationKeys.AICORE_POLICY, "elastic")
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("volcano")
        .addNewContainer()
        .withName("model")
        .withImage("ascendhub.huawei.com/public-ascendhub/mindie:1.0")
        .withCommand("python3", "-m", "mindie.serve", "--port", "8080")
        .addNewEnv()
        .withName("MODEL")
        .withValue("/models/bert")
        .endEnv()
        .withNewResources()
        .addToLimits(ResourceNames.VNPU_NUMBER, new Quantity("1"))
        .addToLimits(ResourceNames.VNPU_CORES, new Quantity(cores))
        .addToLimits(ResourceNames.VNPU_MEMORY_GIB, new Quantity(memoryGib))
        .addToLimits("cpu", new Quantity("4"))
        .addToLimits("memory", new Quantity("16Gi"))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private static Object tree(Pod pod) throws IOException {
    return JSON.readTree(Serialization.asJson(pod));
  }
}
