package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.vnpu.core.chip.ChipCatalog;

/**
 * Pods with vNPU ResourceClaims get the node choice of the placement policy: the extender follows
 * the DRA driver's ResourceSlices and the claims' allocations, and kube-scheduler's prioritize call
 * ranks nodes for such a pod as for a device-plugin pod (docs/dra.md, "Placement").
 */
@EnableKubernetesMockClient(crud = true)
class DraPlacementTest {

  private static final String DRIVER = "vnpu.huawei.com";
  private static final ObjectMapper JSON = new ObjectMapper();

  KubernetesClient client;

  private final HttpClient http = HttpClient.newHttpClient();
  private Scheduler scheduler;
  private SchedulerService service;

  @BeforeEach
  void start() throws IOException {
    scheduler = followingTheDriver();
    service =
        SchedulerService.start(
            Listeners.plain(new InetSocketAddress("127.0.0.1", 0)),
            scheduler,
            client,
            Leadership.alone());
  }

  private Scheduler followingTheDriver() {
    return new Scheduler(
        client,
        ChipCatalog.builtIn(),
        ClusterFixture.SIGNER,
        ClusterFixture.VERIFIER,
        SchedulerSettings.defaults().withDraDriver(DRIVER),
        Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    service.close();
    // Before the mock shuts down: its Vert.x 5 server waits for each open WebSocket to close.
    client.close();
  }

  /** Two 910B3 chips offered as quarters (vnpu dra-driver --sharing profiles). */
  private void publish(String node, String type) {
    StringBuilder devices = new StringBuilder();
    for (int chip = 0; chip < 2; chip++) {
      for (int k = 1; k <= 4; k++) {
        devices.append(
            """
            - name: npu-%d-%dof4
              attributes:
                type: {string: %s}
                dieID: {string: %s-die-%d}
                index: {int: %d}
                aiCores: {int: 20}
                wholeCard: {bool: false}
              capacity:
                aiCore: {value: "25"}
                memory: {value: 16Gi}
            """
                .formatted(chip, k, type, node, chip, chip));
      }
    }
    String slice =
        """
        apiVersion: resource.k8s.io/v1
        kind: ResourceSlice
        metadata: {name: %s-vnpu-0}
        spec:
          driver: vnpu.huawei.com
          nodeName: %s
          pool: {name: %s, generation: 1, resourceSliceCount: 1}
          devices:
        %s
        """
            .formatted(node, node, node, devices.toString().indent(2));
    client.resource(Serialization.unmarshal(slice, ResourceSlice.class)).create();
  }

  private ResourceClaim claim(String name, String selector) {
    String yaml =
        """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaim
        metadata: {name: %s, namespace: default}
        spec:
          devices:
            requests:
            - name: npu
              exactly:
                deviceClassName: vnpu.huawei.com
                selectors: [{cel: {expression: '%s'}}]
        """
            .formatted(name, selector);
    return client.resource(Serialization.unmarshal(yaml, ResourceClaim.class)).create();
  }

  private static final String QUARTER = "!device.attributes[\"vnpu.huawei.com\"].wholeCard";

  /** The claim, allocated by the scheduler's DRA plugin to {@code device} of {@code node}. */
  private void allocate(ResourceClaim claim, String node, String device) {
    String status =
        """
        allocation:
          devices:
            results:
            - {request: npu, driver: vnpu.huawei.com, pool: %s, device: %s}
        """
            .formatted(node, device);
    claim.setStatus(
        Serialization.unmarshal(
            status, io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus.class));
    client.resource(claim).updateStatus();
  }

  private static Pod pod(String name, String policy, String claim) {
    String yaml =
        """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: default
          uid: uid-%s
          annotations:
            huawei.com/vnpu-pod-node-scheduler-policy: %s
        spec:
          resourceClaims:
          - name: npu
            resourceClaimTemplateName: quarter
          containers:
          - name: main
            image: serve
            resources:
              claims: [{name: npu}]
        status:
          resourceClaimStatuses:
          - {name: npu, resourceClaimName: %s}
        """
            .formatted(name, name, policy, claim);
    return Serialization.unmarshal(yaml, Pod.class);
  }

  private Map<String, Long> prioritize(Pod pod, List<String> nodes) throws Exception {
    HttpResponse<String> response =
        post(
            JSON.writeValueAsString(
                Map.of("Pod", JSON.readTree(Serialization.asJson(pod)), "NodeNames", nodes)));
    Map<String, Long> scores = new HashMap<>();
    for (JsonNode host : JSON.readTree(response.body())) {
      scores.put(host.path("Host").asText(), host.path("Score").asLong());
    }
    return scores;
  }

  private HttpResponse<String> post(String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + service.port() + "/kube/prioritize"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aClaimPodIsRankedByThePolicyOverTheChipsClaimsHold() throws Exception {
    publish("n1", "910B3");
    publish("n2", "910B3");
    for (int k = 1; k <= 3; k++) {
      allocate(claim("held-" + k, QUARTER), "n1", "npu-0-" + k + "of4");
    }
    claim("mine", QUARTER);
    await()
        .untilAsserted(
            () ->
                assertThat(
                        scheduler.dra().node("n1").orElseThrow().chips().get(0).freeCorePercent())
                    .isEqualTo(25));

    Map<String, Long> binpack = prioritize(pod("a", "binpack", "mine"), List.of("n1", "n2"));
    Map<String, Long> spread = prioritize(pod("b", "spread", "mine"), List.of("n1", "n2"));

    assertThat(binpack.get("n1")).isGreaterThan(binpack.get("n2"));
    assertThat(spread.get("n2")).isGreaterThan(spread.get("n1"));
  }

  /**
   * kube-scheduler asks once its own cache has the claim; the extender's informer may not have it
   * yet: the claim is read from the API server.
   */
  @Test
  void aClaimTheExtendersInformerHasNotSeenYetIsReadFromTheApiServer() throws Exception {
    Scheduler withoutInformers = followingTheDriver();
    publish("n1", "910B3");
    publish("n2", "910B3");
    ResourceClaim held = claim("held", QUARTER);
    allocate(held, "n1", "npu-0-1of4");
    client
        .resources(ResourceSlice.class)
        .list()
        .getItems()
        .forEach(withoutInformers.dra()::sliceChanged);
    withoutInformers
        .dra()
        .claimChanged(
            client.resources(ResourceClaim.class).inNamespace("default").withName("held").get());
    claim("mine", QUARTER);

    Map<String, Double> spread =
        withoutInformers.scores(
            Fabric8Views.manifest(pod("b", "spread", "mine")),
            List.of("mine"),
            List.of("n1", "n2"));

    assertThat(spread).containsOnlyKeys("n1", "n2");
    assertThat(spread.get("n2")).isGreaterThan(spread.get("n1"));
  }

  @Test
  void aNodeWhoseDevicesTheClaimsSelectorsRefuseIsNotRanked() throws Exception {
    publish("n1", "910B3");
    publish("n2", "310P3");
    claim("p3", "device.attributes[\"vnpu.huawei.com\"].type == \"310P3\"");
    await().until(() -> scheduler.dra().node("n2").isPresent());

    Map<String, Long> scores = prioritize(pod("c", "spread", "p3"), List.of("n1", "n2"));

    assertThat(scores.get("n1")).isZero();
    assertThat(scores.get("n2")).isPositive();
  }

  @Test
  void aDeletedClaimGivesItsChipBack() {
    publish("n1", "910B3");
    ResourceClaim held = claim("held", QUARTER);
    allocate(held, "n1", "npu-1-2of4");
    await()
        .untilAsserted(
            () ->
                assertThat(
                        scheduler.dra().node("n1").orElseThrow().chips().get(1).freeCorePercent())
                    .isEqualTo(75));

    client.resource(held).delete();

    await()
        .untilAsserted(
            () ->
                assertThat(
                        scheduler.dra().node("n1").orElseThrow().chips().get(1).freeCorePercent())
                    .isEqualTo(100));
  }

  @Test
  void aClaimAllocatedBeforeItsNodesSlicesArriveIsChargedWhenTheyDo() {
    allocate(claim("early", QUARTER), "n1", "npu-0-1of4");
    await().until(() -> scheduler.dra().node("n1").isEmpty());

    publish("n1", "910B3");

    await()
        .untilAsserted(
            () ->
                assertThat(
                        scheduler.dra().node("n1").orElseThrow().chips().get(0).freeCorePercent())
                    .isEqualTo(75));
  }

  @Test
  void malformedClaimReferencesAndFailingSelectorsRankNothingAndBreakNothing() throws Exception {
    publish("n1", "910B3");
    claim("broken", "device.attributes[\"vnpu.huawei.com\"].model == \"x\"");
    claim("mine", QUARTER);
    await().until(() -> scheduler.dra().node("n1").isPresent());

    // a selector that fails on every device: no node is ranked, the extender answers
    assertThat(prioritize(pod("a", "binpack", "broken"), List.of("n1"))).containsEntry("n1", 0L);
    // claim references of the wrong shape, unknown claims, a template claim not made yet
    for (String claims :
        List.of(
            "\"resourceClaims\": \"npu\"",
            "\"resourceClaims\": [42, {\"name\": {}}, {\"name\": \"x\", \"resourceClaimName\": 7}]",
            "\"resourceClaims\": [{\"name\": \"npu\", \"resourceClaimName\": \"nowhere\"}]",
            "\"resourceClaims\": [{\"name\": \"npu\", \"resourceClaimName\": \"../../nodes/n1\"}]",
            // names the extender has not seen are read from the API server, a bounded number
            "\"resourceClaims\": ["
                + String.join(
                    ", ",
                    java.util.Collections.nCopies(
                        1_000, "{\"name\": \"npu\", \"resourceClaimName\": \"absent\"}"))
                + "]",
            "\"resourceClaims\": [{\"name\": \"npu\", \"resourceClaimTemplateName\": \"t\"}]")) {
      String body =
          "{\"Pod\": {\"metadata\": {\"name\": \"h\", \"namespace\": \"default\","
              + " \"uid\": \"uid-h\"}, \"spec\": {"
              + claims
              + ", \"containers\": [{\"name\": \"main\"}]}}, \"NodeNames\": [\"n1\"]}";
      HttpResponse<String> response = post(body);
      assertThat(response.statusCode()).as(claims).isEqualTo(200);
      assertThat(JSON.readTree(response.body()).get(0).path("Score").asLong()).as(claims).isZero();
    }
    // and a well-formed pod is still ranked
    assertThat(prioritize(pod("b", "binpack", "mine"), List.of("n1")).get("n1")).isPositive();
  }
}
