package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A claim end to end: the resource claim controller makes it from the template, kube-scheduler's
 * DRA profile allocates it where the extender ranks best, the DRA kubelet prepares it through the
 * real driver, and the container runs under the shim with the quota of its slice (CDI).
 */
class DraSandboxTest {

  @TempDir Path directory;

  private Sandbox sandbox;
  private KubernetesClient client;

  @BeforeEach
  void start() throws Exception {
    sandbox =
        Sandbox.start(
            new SandboxOptions(directory, Sandbox.Driver.KUBE_SCHEDULER, List.of())
                .withDraNodes(DraScenario.NODES));
    client = sandbox.client();
    client.resource(DraScenario.template()).create();
  }

  @AfterEach
  void stop() {
    sandbox.close();
  }

  @Test
  void spreadClaimsGoToTheEmptierNodeAndBinpackOnesBesideTheFirst() {
    client.resource(DraScenario.pod("first", "spread")).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> DraScenario.device(client, "first") != null);
    client.resource(DraScenario.pod("second", "spread")).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(() -> DraScenario.device(client, "second") != null);
    client.resource(DraScenario.pod("third", "binpack")).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> DraScenario.device(client, "third") != null);

    DraScenario.Placed first = DraScenario.device(client, "first");
    DraScenario.Placed second = DraScenario.device(client, "second");
    DraScenario.Placed third = DraScenario.device(client, "third");
    assertThat(second.node())
        .as("spread: the extender ranks the emptier node")
        .isNotEqualTo(first.node());
    assertThat(third.node()).isEqualTo(first.node());
    assertThat(third.chip())
        .as("binpack device order: the allocator fills the first chip")
        .isEqualTo(first.chip());
    ResourceClaim claim = DraScenario.claim(client, "first");
    assertThat(claim.getStatus().getReservedFor())
        .singleElement()
        .satisfies(r -> assertThat(r.getName()).isEqualTo("first"));
  }

  @Test
  void theContainerRunsUnderTheShimWithItsSlicesQuota() throws Exception {
    client.resource(DraScenario.pod("first", "spread")).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              Pod pod = client.pods().inNamespace(Scenario.NAMESPACE).withName("first").get();
              return pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
            });
    DraScenario.Placed placed = DraScenario.device(client, "first");
    Path log =
        directory
            .resolve("nodes")
            .resolve(placed.node())
            .resolve("pods")
            .resolve(Scenario.NAMESPACE)
            .resolve("first")
            .resolve("main")
            .resolve("log");
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> Files.exists(log) && Files.readString(log).contains("device memory"));
    assertThat(Files.readString(log)).contains("of 16384 MiB");
  }

  @Test
  void aPodWhoseExtenderIsAwayIsStillPlacedUnranked() throws Exception {
    // kube-scheduler ignores a failed prioritize (schedule_one.go, prioritizeNodes)
    sandbox.stopScheduler();
    client.resource(DraScenario.pod("first", "spread")).create();

    await().atMost(Duration.ofSeconds(30)).until(() -> DraScenario.device(client, "first") != null);
    assertThat(DraScenario.device(client, "first").node()).isEqualTo("dra-a");
  }

  @Test
  void aNamedClaimIsWaitedForAndAnAllocatedOneKeepsThePodToItsNode() {
    Pod pod = DraScenario.pod("bound-by-claim", "binpack");
    pod.getSpec().getResourceClaims().get(0).setResourceClaimTemplateName(null);
    pod.getSpec().getResourceClaims().get(0).setResourceClaimName("shared");
    Pod created = client.resource(pod).create();
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              SchedulingLoop.Outcome outcome =
                  sandbox.outcomes().get(created.getMetadata().getUid());
              return outcome != null
                  && String.valueOf(outcome.attempt().reason())
                      .contains("waiting for resource claim npu");
            });

    ResourceClaim shared =
        client
            .resource(
                Serialization.unmarshal(
                    """
                    apiVersion: resource.k8s.io/v1
                    kind: ResourceClaim
                    metadata: {name: shared, namespace: default}
                    spec:
                      devices:
                        requests:
                        - name: npu
                          exactly: {deviceClassName: vnpu.huawei.com}
                    """,
                    ResourceClaim.class))
            .create();
    shared.setStatus(
        Serialization.unmarshal(
            """
            allocation:
              devices:
                results:
                - {request: npu, driver: vnpu.huawei.com, pool: dra-b, device: npu-1-1of4}
              nodeSelector:
                nodeSelectorTerms:
                - matchFields: [{key: metadata.name, operator: In, values: [dra-b]}]
            """,
            ResourceClaimStatus.class));
    client.resource(shared).updateStatus();

    // binpack alone would take dra-a, the first in name order of two empty nodes
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                "dra-b"
                    .equals(
                        client
                            .pods()
                            .inNamespace(Scenario.NAMESPACE)
                            .withName("bound-by-claim")
                            .get()
                            .getSpec()
                            .getNodeName()));
  }
}
