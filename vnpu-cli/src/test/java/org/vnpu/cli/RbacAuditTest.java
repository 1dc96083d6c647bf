package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.LogLevel;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.deviceplugin.DevicePlugin;
import org.vnpu.deviceplugin.DevicePluginSettings;
import org.vnpu.driver.SimulatedNpuDriver;
import org.vnpu.exporter.Exporter;
import org.vnpu.exporter.ExporterSettings;
import org.vnpu.kube.ExtenderCertificates;
import org.vnpu.kube.SigningKeys;
import org.vnpu.kube.VerifyingKeys;
import org.vnpu.kubelet.KubeletEmulator;
import org.vnpu.sandbox.ApiServer;
import org.vnpu.scheduler.Leadership;
import org.vnpu.scheduler.Listeners;
import org.vnpu.scheduler.Scheduler;
import org.vnpu.scheduler.SchedulerService;
import org.vnpu.scheduler.SchedulerSettings;
import org.vnpu.testkit.MutableClock;

/**
 * Every request the components make is one the chart's Roles grant them. The device plugin, the
 * scheduler (electing a leader, filtering, binding, writing events, expiring a reservation) and the
 * exporter each run with a client of their own against fabric8's CRUD mock API server, which maps
 * each request to its RBAC verb and resource as the API server does ({@code k8s.io/apiserver
 * pkg/endpoints/request/requestinfo.go}).
 */
class RbacAuditTest {

  private static final String NAMESPACE = "vnpu-system";
  private static final String NODE = "npu-0";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern NAMESPACED = Pattern.compile("/namespaces/([^/?]+)/");

  @TempDir Path directory;

  /** One request: who sent it (the client's user agent), its RBAC verb and resource. */
  record Access(String component, String verb, String resource, String path) {}

  private final ConcurrentLinkedQueue<Access> accesses = new ConcurrentLinkedQueue<>();

  @Test
  @SuppressWarnings("try") // the device plugin works unseen, through the kubelet emulator
  void everyComponentAsksOnlyForWhatItsRoleGrants() throws Exception {
    PayloadCodec codec = new PayloadCodec();
    try (ApiServer server = ApiServer.start(0, this::record);
        KubernetesClient admin = client(server, "admin");
        KubernetesClient pluginClient = client(server, "vnpu-device-plugin");
        KubernetesClient schedulerClient = client(server, "vnpu-scheduler");
        KubernetesClient exporterClient = client(server, "vnpu-exporter")) {
      admin
          .nodes()
          .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
          .create();
      admin
          .pods()
          .inNamespace(NAMESPACE)
          .resource(
              new PodBuilder().withNewMetadata().withName("scheduler-0").endMetadata().build())
          .create();
      // As the scheduler's start does, and as the chart mounts the public keys on nodes; the
      // extender's certificates once more after the Service's names changed.
      SigningKey key =
          SigningKeys.bootstrap(schedulerClient, NAMESPACE, "vnpu-signing", "vnpu-verifying-keys");
      ExtenderCertificates.bootstrap(
          schedulerClient,
          NAMESPACE,
          "vnpu-extender-tls",
          List.of("vnpu-scheduler.vnpu-system.svc"));
      ExtenderCertificates.bootstrap(
          schedulerClient, NAMESPACE, "vnpu-extender-tls", List.of("vnpu-scheduler.vnpu.svc"));
      Path verifying = Files.createDirectories(directory.resolve("verifying-keys"));
      Files.writeString(verifying.resolve(key.verifying().id()), key.verifying().encoded());
      Path inventory = directory.resolve("inventory.yaml");
      Files.writeString(inventory, "chips:\n  - {type: 910B3, count: 2}\n");
      // The scheduler's clock: moved on to expire a reservation.
      MutableClock clock = new MutableClock(Instant.now());
      Scheduler engine =
          new Scheduler(
              schedulerClient,
              ChipCatalog.builtIn(),
              new AllocationSigner(key, codec),
              new AllocationVerifier(
                  VerifyingKeys.inConfigMap(
                      schedulerClient, NAMESPACE, "vnpu-verifying-keys", Clock.systemUTC()),
                  codec),
              SchedulerSettings.defaults(),
              clock);
      try (KubeletEmulator kubelet =
              new KubeletEmulator(directory.resolve("device-plugins")).start();
          DevicePlugin plugin =
              startPlugin(
                  pluginClient,
                  new AllocationVerifier(
                      VerifyingKeys.inDirectory(verifying, Clock.systemUTC()), codec),
                  inventory);
          Exporter exporter =
              Exporter.start(
                  new ExporterSettings(
                      NODE,
                      new InetSocketAddress("127.0.0.1", 0),
                      directory.resolve("state"),
                      Duration.ofMillis(200),
                      false),
                  driver(inventory),
                  new AllocationVerifier(
                      VerifyingKeys.inDirectory(verifying, Clock.systemUTC()), codec),
                  exporterClient);
          SchedulerService scheduler =
              SchedulerService.start(
                  Listeners.plain(new InetSocketAddress("127.0.0.1", 0)),
                  engine,
                  schedulerClient,
                  Leadership.elect(
                      schedulerClient,
                      NAMESPACE,
                      Leadership.DEFAULT_LEASE,
                      "scheduler-0",
                      "scheduler-0",
                      Duration.ofSeconds(2)))) {
        kubelet.awaitRegistration(ResourceNames.VNPU_NUMBER, 1, Duration.ofSeconds(10));
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> get(scheduler, "/metrics").contains("vnpu_scheduler_ledger_pods"));
        Pod pod = admin.pods().inNamespace("default").resource(vnpuPod("bert", "8")).create();
        Pod tooBig = admin.pods().inNamespace("default").resource(vnpuPod("huge", "80")).create();
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> post(scheduler, "/kube/filter", filter(pod)).path("NodeNames").size() == 1);
        post(scheduler, "/kube/filter", filter(tooBig));
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> post(scheduler, "/kube/bind", bind(pod)).path("Error").asText().isEmpty());
        kubelet.allocate(
            ResourceNames.VNPU_NUMBER,
            kubelet.pickHealthy(ResourceNames.VNPU_NUMBER, 1, List.of()));
        await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () ->
                    "success"
                        .equals(
                            admin
                                .pods()
                                .inNamespace("default")
                                .withName("bert")
                                .get()
                                .getMetadata()
                                .getAnnotations()
                                .get(AnnotationKeys.BIND_PHASE)));
        get(exporter, "/metrics");
        // A reservation Volcano makes and never binds expires: the scheduler reads the pod and
        // removes its annotations from the version read.
        Pod unbound = admin.pods().inNamespace("default").resource(vnpuPod("gpt", "8")).create();
        JsonNode allocated =
            post(
                scheduler,
                "/volcano/allocateFunc",
                Map.of(
                    "task",
                    Map.of("Pod", JSON.readTree(Serialization.asJson(unbound)), "NodeName", NODE)));
        assertThat(allocated.path("errorMessage").asText()).isEmpty();
        clock.advance(SchedulerSettings.defaults().reservationTimeout().plusSeconds(1));
        engine.expireReservations();
        assertThat(
                admin
                    .pods()
                    .inNamespace("default")
                    .withName("gpt")
                    .get()
                    .getMetadata()
                    .getAnnotations())
            .doesNotContainKey(AnnotationKeys.ALLOCATION);
        Thread.sleep(1500); // a few Lease renewals
      }
    }

    Map<String, Set<String>> roles =
        Map.of(
            "vnpu-device-plugin", Set.of("vnpu-device-plugin", "vnpu-device-plugin-locks"),
            "vnpu-exporter", Set.of("vnpu-exporter"),
            "vnpu-scheduler",
                Set.of("vnpu-scheduler", "vnpu-scheduler-leader", "vnpu-scheduler-locks"));
    List<Access> denied = new ArrayList<>();
    Set<String> used = new TreeSet<>();
    for (Access access : accesses) {
      if (!roles.containsKey(access.component())) {
        continue;
      }
      used.add(access.component() + " " + access.verb() + " " + access.resource());
      if (!ChartRbac.allows(
          roles.get(access.component()),
          namespaceOf(access.path()),
          NAMESPACE,
          access.resource(),
          access.verb())) {
        denied.add(access);
      }
    }
    assertThat(denied).as("requests the chart's Roles do not grant").isEmpty();
    assertThat(used)
        .as("the flow reaches what the Roles are for")
        .contains(
            "vnpu-scheduler patch leases",
            "vnpu-scheduler create leases",
            "vnpu-scheduler watch leases",
            "vnpu-device-plugin get leases",
            "vnpu-scheduler patch pods",
            "vnpu-scheduler create bindings",
            "vnpu-scheduler create events",
            "vnpu-scheduler create secrets",
            "vnpu-scheduler update secrets",
            "vnpu-scheduler create configmaps",
            "vnpu-scheduler get configmaps",
            "vnpu-device-plugin patch nodes",
            "vnpu-exporter watch pods");
  }

  /** The namespace a request's path names; null for a cluster-wide one. */
  private static String namespaceOf(String path) {
    Matcher namespaced = NAMESPACED.matcher(path);
    return namespaced.find() ? namespaced.group(1) : null;
  }

  private DevicePlugin startPlugin(
      KubernetesClient client, AllocationVerifier verifier, Path inventory) {
    return DevicePlugin.start(
        new DevicePluginSettings(
            NODE,
            directory.resolve("device-plugins"),
            directory.resolve("state"),
            null,
            Path.of("/opt/vnpu/libvnpu.so"),
            List.of(),
            4,
            LogLevel.INFO,
            Duration.ofMillis(200),
            Duration.ofSeconds(1),
            Duration.ofSeconds(1),
            directory.resolve("pod-resources/kubelet.sock"),
            DevicePluginSettings.DEFAULT_RESERVATION_WAIT),
        driver(inventory),
        verifier,
        client,
        Clock.systemUTC());
  }

  private static SimulatedNpuDriver driver(Path inventory) {
    return new SimulatedNpuDriver(inventory, NODE, ChipCatalog.builtIn(), Clock.systemUTC());
  }

  private static KubernetesClient client(ApiServer server, String component) {
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder()
                .withMasterUrl(server.url())
                .withUserAgent(component)
                .withRequestRetryBackoffLimit(0)
                .build())
        .build();
  }

  private static Pod vnpuPod(String name, String memoryGib) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("main")
        .withNewResources()
        .addToLimits(ResourceNames.VNPU_NUMBER, new Quantity("1"))
        .addToLimits(ResourceNames.VNPU_CORES, new Quantity("30"))
        .addToLimits(ResourceNames.VNPU_MEMORY_GIB, new Quantity(memoryGib))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  private static Map<String, Object> filter(Pod pod) throws Exception {
    return Map.of("Pod", JSON.readTree(Serialization.asJson(pod)), "NodeNames", List.of(NODE));
  }

  private static Map<String, Object> bind(Pod pod) {
    return Map.of(
        "PodName",
        pod.getMetadata().getName(),
        "PodNamespace",
        "default",
        "PodUID",
        pod.getMetadata().getUid(),
        "Node",
        NODE);
  }

  private static JsonNode post(SchedulerService service, String verb, Object body)
      throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + verb))
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    return JSON.readTree(response.body());
  }

  private static String get(SchedulerService service, String path) throws Exception {
    return get(service.port(), path);
  }

  private static String get(Exporter exporter, String path) throws Exception {
    return get(exporter.port(), path);
  }

  private static String get(int port, String path) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /**
   * Records a request's RBAC verb and resource as the API server derives them ({@code
   * requestinfo.go}): {@code /api/VERSION/...} or {@code /apis/GROUP/VERSION/...}, then {@code
   * namespaces/NS/}, the resource, a name and a subresource; GET of a name is get, of a collection
   * list or watch.
   */
  private void record(RecordedRequest request) {
    String agent = request.getHeader("User-Agent");
    String[] pathAndQuery = request.getPath().split("\\?", 2);
    String query = pathAndQuery.length > 1 ? pathAndQuery[1] : "";
    List<String> segments = new ArrayList<>(List.of(pathAndQuery[0].substring(1).split("/")));
    if (!segments.get(0).equals("api") && !segments.get(0).equals("apis")) {
      return;
    }
    segments.subList(0, Math.min(segments.size(), segments.get(0).equals("api") ? 2 : 3)).clear();
    if (segments.isEmpty()) {
      return;
    }
    if (segments.size() > 2 && segments.get(0).equals("namespaces")) {
      segments.subList(0, 2).clear();
    }
    String resource = segments.get(0) + (segments.size() > 2 ? "/" + segments.get(2) : "");
    boolean named = segments.size() > 1;
    String verb =
        switch (request.method()) {
          case GET ->
              named ? "get" : query.matches("(.*&)?watch=(true|1)(&.*)?") ? "watch" : "list";
          case POST -> "create";
          case PUT -> "update";
          case PATCH -> "patch";
          case DELETE -> named ? "delete" : "deletecollection";
          default -> request.getMethod().toLowerCase(java.util.Locale.ROOT);
        };
    accesses.add(new Access(agent == null ? "" : agent, verb, resource, request.getPath()));
  }
}
