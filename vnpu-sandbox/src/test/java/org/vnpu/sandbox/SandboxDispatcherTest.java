package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pod binding, eviction and watches by node on the sandbox's API server, as the real one does them.
 */
class SandboxDispatcherTest {

  private final ApiServer api = ApiServer.start(0);
  private final KubernetesClient client = api.client();

  @AfterEach
  void stop() {
    api.close();
  }

  @Test
  void aJsonPatchWhoseTestFailsIsAnsweredUnprocessableAtOnce() {
    // The real API server answers a JSON patch that does not apply with 422
    // (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go applyJSPatch); fabric8's mock
    // threw and answered nothing, and its client waited 10 s for its request timeout.
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName("n1")
                .addToAnnotations("entry", "now")
                .endMetadata()
                .build())
        .create();
    String patch =
        "[{\"op\":\"test\",\"path\":\"/metadata/annotations/entry\",\"value\":\"before\"},"
            + "{\"op\":\"remove\",\"path\":\"/metadata/annotations/entry\"}]";
    long started = System.nanoTime();

    assertThatThrownBy(
            () -> client.nodes().withName("n1").patch(PatchContext.of(PatchType.JSON), patch))
        .isInstanceOf(KubernetesClientException.class)
        .extracting(e -> ((KubernetesClientException) e).getCode())
        .isEqualTo(422);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
    assertThat(client.nodes().withName("n1").get().getMetadata().getAnnotations())
        .containsEntry("entry", "now");
  }

  @Test
  void aBindingSetsTheNodeOnceAndRefusesASecondNode() {
    client
        .pods()
        .inNamespace("default")
        .resource(DemoPods.inference("p", 30, 4, "elastic", Map.of(), Map.of()))
        .create();

    client.bindings().inNamespace("default").resource(binding("p", "n1")).create();

    assertThat(client.pods().inNamespace("default").withName("p").get().getSpec().getNodeName())
        .isEqualTo("n1");
    assertThatThrownBy(
            () -> client.bindings().inNamespace("default").resource(binding("p", "n2")).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("already assigned to node \"n1\"")
        .extracting(e -> ((KubernetesClientException) e).getCode())
        .isEqualTo(409);
  }

  @Test
  void aBindingsAnnotationsAreMergedOntoThePod() {
    client
        .pods()
        .inNamespace("default")
        .resource(
            DemoPods.inference("p", 30, 4, "elastic", Map.of("kept", "1", "a/b", "old"), Map.of()))
        .create();
    Binding binding = binding("p", "n1");
    binding.getMetadata().setAnnotations(Map.of("a/b", "new", "x~y", "2"));

    client.bindings().inNamespace("default").resource(binding).create();

    assertThat(
            client.pods().inNamespace("default").withName("p").get().getMetadata().getAnnotations())
        .containsEntry("kept", "1")
        .containsEntry("a/b", "new")
        .containsEntry("x~y", "2");
  }

  @Test
  void podsAreSelectedByTheNodeTheyAreBoundTo() {
    for (String name : List.of("p", "q", "r")) {
      client
          .pods()
          .inNamespace("default")
          .resource(DemoPods.inference(name, 30, 4, "elastic", Map.of(), Map.of()))
          .create();
    }
    client.bindings().inNamespace("default").resource(binding("p", "n1")).create();
    client.bindings().inNamespace("default").resource(binding("q", "n2")).create();

    assertThat(client.pods().inAnyNamespace().withField("spec.nodeName", "n1").list().getItems())
        .extracting(pod -> pod.getMetadata().getName())
        .containsExactly("p");
    assertThat(
            client.pods().inNamespace("default").withField("spec.nodeName", "n2").list().getItems())
        .extracting(pod -> pod.getMetadata().getName())
        .containsExactly("q");
  }

  @Test
  void aKubeletsWatchByNodeSeesAPodFromItsBindingOnAndOnlyThePodsOfItsNode() {
    for (String name : List.of("p", "q")) {
      client
          .pods()
          .inNamespace("default")
          .resource(DemoPods.inference(name, 30, 4, "elastic", Map.of(), Map.of()))
          .create();
    }
    List<String> seen = new CopyOnWriteArrayList<>();
    SharedIndexInformer<Pod> informer =
        client
            .pods()
            .inAnyNamespace()
            .withField("spec.nodeName", "n1")
            .inform(
                new ResourceEventHandler<>() {
                  @Override
                  public void onAdd(Pod pod) {
                    seen.add("added " + pod.getMetadata().getName());
                  }

                  @Override
                  public void onUpdate(Pod before, Pod after) {
                    seen.add("updated " + after.getMetadata().getName());
                  }

                  @Override
                  public void onDelete(Pod pod, boolean unknownFinalState) {
                    seen.add("deleted " + pod.getMetadata().getName());
                  }
                });
    try {
      client.bindings().inNamespace("default").resource(binding("p", "n1")).create();
      client.bindings().inNamespace("default").resource(binding("q", "n2")).create();
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("added p"));
      client
          .pods()
          .inNamespace("default")
          .withName("p")
          .edit(
              pod ->
                  new PodBuilder(pod).editMetadata().addToLabels("x", "1").endMetadata().build());
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("updated p"));
      client.pods().inNamespace("default").withName("p").delete();
      await().atMost(Duration.ofSeconds(10)).until(() -> seen.contains("deleted p"));

      assertThat(seen).containsExactly("added p", "updated p", "deleted p");
      assertThat(informer.getStore().list()).isEmpty();
    } finally {
      informer.close();
    }
  }

  @Test
  void aWatchByNodeMaySelectNothingElse() {
    assertThatThrownBy(
            () ->
                client
                    .pods()
                    .inAnyNamespace()
                    .withField("spec.nodeName", "n1")
                    .withLabel("app", "a")
                    .watch(
                        new Watcher<Pod>() {
                          @Override
                          public void eventReceived(Action action, Pod pod) {}

                          @Override
                          public void onClose(WatcherException cause) {}
                        }))
        .isInstanceOf(KubernetesClientException.class)
        .extracting(e -> ((KubernetesClientException) e).getCode())
        .isEqualTo(400);
  }

  @Test
  void anObjectReadByNameIsTheOneStoredNowThroughRelabelsDeletionsAndRecreation() {
    Pod created =
        client
            .pods()
            .inNamespace("default")
            .resource(DemoPods.inference("x", 30, 4, "elastic", Map.of(), Map.of()))
            .create();
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("x").endMetadata().build())
        .create();
    assertThat(client.pods().inNamespace("default").withName("x").get().getKind()).isEqualTo("Pod");
    assertThat(client.nodes().withName("x").get().getKind()).isEqualTo("Node");

    client
        .pods()
        .inNamespace("default")
        .withName("x")
        .edit(
            pod -> new PodBuilder(pod).editMetadata().addToLabels("a", "2").endMetadata().build());
    assertThat(client.pods().inNamespace("default").withName("x").get().getMetadata().getLabels())
        .containsEntry("a", "2");
    client
        .pods()
        .inNamespace("default")
        .withName("x")
        .edit(
            pod -> new PodBuilder(pod).editMetadata().addToLabels("b", "3").endMetadata().build());
    assertThat(client.pods().inNamespace("default").withName("x").get().getMetadata().getLabels())
        .containsEntry("a", "2")
        .containsEntry("b", "3");

    client.pods().inNamespace("default").withName("x").delete();
    assertThat(client.pods().inNamespace("default").withName("x").get()).isNull();
    assertThat(client.pods().inNamespace("other").withName("x").get()).isNull();
    Pod again =
        client
            .pods()
            .inNamespace("default")
            .resource(DemoPods.inference("x", 30, 4, "elastic", Map.of(), Map.of()))
            .create();
    assertThat(client.pods().inNamespace("default").withName("x").get().getMetadata().getUid())
        .isEqualTo(again.getMetadata().getUid())
        .isNotEqualTo(created.getMetadata().getUid());
    assertThat(client.nodes().withName("x").get()).isNotNull();
  }

  @Test
  void anEvictionDeletesThePodUnlessItsDisruptionBudgetAllowsNoDisruption() {
    running("free", Map.of("app", "free"));
    running("guarded-1", Map.of("app", "guarded"));
    running("guarded-2", Map.of("app", "guarded"));
    budget("guard", Map.of("app", "guarded"), 1);

    assertThat(client.pods().inNamespace("default").withName("free").evict()).isTrue();
    assertThat(client.pods().inNamespace("default").withName("free").get()).isNull();
    assertThat(client.pods().inNamespace("default").withName("guarded-1").evict())
        .as("the budget allows one disruption")
        .isTrue();
    assertThat(client.pods().inNamespace("default").withName("guarded-2").evict())
        .as("and no second one: 429")
        .isFalse();
    assertThat(client.pods().inNamespace("default").withName("guarded-2").get()).isNotNull();
    PodDisruptionBudget guard =
        client.policy().v1().podDisruptionBudget().inNamespace("default").withName("guard").get();
    assertThat(guard.getStatus().getDisruptionsAllowed()).isZero();
    assertThat(guard.getStatus().getDisruptedPods()).containsKey("guarded-1");
  }

  @Test
  void aPendingPodIsEvictedWhateverItsBudgetSaysAndTwoBudgetsAreAnError() {
    client
        .pods()
        .inNamespace("default")
        .resource(
            new PodBuilder(DemoPods.inference("waiting", 30, 4, "elastic", Map.of(), Map.of()))
                .editMetadata()
                .addToLabels("app", "guarded")
                .endMetadata()
                .withNewStatus()
                .withPhase("Pending")
                .endStatus()
                .build())
        .create();
    running("running", Map.of("app", "guarded"));
    budget("first", Map.of("app", "guarded"), 0);
    budget("second", Map.of("app", "guarded"), 5);

    assertThat(client.pods().inNamespace("default").withName("waiting").evict()).isTrue();
    assertThatThrownBy(() -> client.pods().inNamespace("default").withName("running").evict())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("more than one PodDisruptionBudget");
  }

  @Test
  void anUnreadyPodOfABudgetWithItsDesiredHealthyPodsGoesWithoutChargingIt() {
    client
        .pods()
        .inNamespace("default")
        .resource(
            new PodBuilder(DemoPods.inference("starting", 30, 4, "elastic", Map.of(), Map.of()))
                .editMetadata()
                .addToLabels("app", "guarded")
                .endMetadata()
                .withNewStatus()
                .withPhase("Running")
                .endStatus()
                .build())
        .create();
    budget("guard", Map.of("app", "guarded"), 0);

    assertThat(client.pods().inNamespace("default").withName("starting").evict()).isTrue();
    assertThat(
            client
                .policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace("default")
                .withName("guard")
                .get()
                .getStatus()
                .getDisruptedPods())
        .isNullOrEmpty();
  }

  @Test
  void anEvictionThatIsNotJsonOrNamesAnotherPodIsRefusedAndDeletesNothing() throws Exception {
    running("victim", Map.of("app", "free"));
    String path = api.url() + "/api/v1/namespaces/default/pods/victim/eviction";

    HttpResponse<String> garbage = post(path, "{not json");
    HttpResponse<String> other =
        post(
            path,
            "{\"apiVersion\":\"policy/v1\",\"kind\":\"Eviction\","
                + "\"metadata\":{\"name\":\"someone-else\",\"namespace\":\"default\"}}");

    assertThat(garbage.statusCode()).isEqualTo(400);
    assertThat(garbage.body()).contains("eviction is not JSON");
    assertThat(other.statusCode()).isEqualTo(400);
    assertThat(other.body()).contains("name in URL does not match name in Eviction object");
    assertThat(client.pods().inNamespace("default").withName("victim").get()).isNotNull();
  }

  private static HttpResponse<String> post(String url, String body) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
  }

  /** A running, ready pod: an unready one is evicted without charging its budget. */
  private void running(String name, Map<String, String> labels) {
    client
        .pods()
        .inNamespace("default")
        .resource(
            new PodBuilder(DemoPods.inference(name, 30, 4, "elastic", Map.of(), Map.of()))
                .editMetadata()
                .addToLabels(labels)
                .endMetadata()
                .withNewStatus()
                .withPhase("Running")
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build())
        .create();
  }

  /** A budget selecting {@code labels} whose status allows {@code allowed} disruptions. */
  private void budget(String name, Map<String, String> labels, int allowed) {
    PodDisruptionBudget pdb =
        client
            .policy()
            .v1()
            .podDisruptionBudget()
            .inNamespace("default")
            .resource(
                new PodDisruptionBudgetBuilder()
                    .withNewMetadata()
                    .withName(name)
                    .withNamespace("default")
                    .endMetadata()
                    .withNewSpec()
                    .withNewSelector()
                    .withMatchLabels(labels)
                    .endSelector()
                    .withNewMinAvailable(1)
                    .endSpec()
                    .build())
            .create();
    pdb.setStatus(
        new PodDisruptionBudgetStatusBuilder()
            .withDisruptionsAllowed(allowed)
            .withObservedGeneration(
                pdb.getMetadata().getGeneration() == null ? 0 : pdb.getMetadata().getGeneration())
            .withCurrentHealthy(2)
            .withDesiredHealthy(1)
            .withExpectedPods(2)
            .build());
    client.policy().v1().podDisruptionBudget().inNamespace("default").resource(pdb).updateStatus();
  }

  @Test
  void aBindingOfAMissingPodIsNotFound() {
    assertThatThrownBy(
            () ->
                client.bindings().inNamespace("default").resource(binding("ghost", "n1")).create())
        .isInstanceOf(KubernetesClientException.class)
        .extracting(e -> ((KubernetesClientException) e).getCode())
        .isEqualTo(404);
  }

  @Test
  void discoveryNamesTheResourcesTheSandboxServesAsJson() throws Exception {
    HttpResponse<String> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(api.url() + "/api/v1")).build(),
                HttpResponse.BodyHandlers.ofString());

    assertThat(response.headers().firstValue("Content-Type")).contains("application/json");
    assertThat(response.body())
        .contains("\"kind\": \"APIResourceList\"")
        .contains("\"name\": \"pods\"");
  }

  /** kubectl, where the machine has it, reads the sandbox through the kubeconfig it writes. */
  @Test
  void kubectlListsAndDescribesPods(@TempDir Path directory) throws Exception {
    Assumptions.assumeTrue(onPath("kubectl"), "kubectl is not installed");
    client
        .pods()
        .inNamespace("default")
        .resource(DemoPods.inference("p", 30, 4, "elastic", Map.of(), Map.of()))
        .create();
    Path kubeconfig = api.writeKubeconfig(directory.resolve("kubeconfig"));

    assertThat(kubectl(kubeconfig, "get", "pods", "-o", "name")).contains("pod/p");
    assertThat(kubectl(kubeconfig, "describe", "pod", "p"))
        .containsPattern("huawei.com/vnpu-number: +1");
  }

  private static boolean onPath(String program) {
    return Stream.of(System.getenv("PATH").split(":"))
        .anyMatch(dir -> Files.isExecutable(Path.of(dir, program)));
  }

  private static String kubectl(Path kubeconfig, String... args) throws Exception {
    List<String> command =
        new ArrayList<>(List.of("kubectl", "--kubeconfig", kubeconfig.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as(output).isZero();
    return output;
  }

  @Test
  void otherRequestsReachTheCrudServer() {
    client
        .pods()
        .inNamespace("default")
        .resource(DemoPods.inference("q", 30, 4, "elastic", Map.of(), Map.of()))
        .create();
    assertThat(client.pods().inNamespace("default").list().getItems()).hasSize(1);
  }

  private static Binding binding(String pod, String node) {
    return new BindingBuilder()
        .withNewMetadata()
        .withName(pod)
        .endMetadata()
        .withNewTarget()
        .withKind("Node")
        .withName(node)
        .endTarget()
        .build();
  }
}
