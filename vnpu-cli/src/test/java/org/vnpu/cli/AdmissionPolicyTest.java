package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.cel.bundle.Cel;
import dev.cel.bundle.CelFactory;
import dev.cel.common.CelValidationException;
import dev.cel.common.types.SimpleType;
import dev.cel.common.values.NullValue;
import dev.cel.extensions.CelExtensions;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchResources;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.NamedRuleWithOperations;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicyBinding;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Validation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The chart's ValidatingAdmissionPolicies, evaluated as the API server evaluates them, on the
 * requests a tenant, the scheduler and a device plugin make. The steps follow k8s.io/apiserver:
 * {@code pkg/admission/plugin/policy/matching} (a rule matches by operation, resource and, when it
 * names any, resource name: the "other ConfigMaps" case fails without it), {@code
 * pkg/admission/plugin/policy/validating/validator.go Validate} (the composited {@code variables},
 * then each validation in order; the first false one denies with its {@code messageExpression}),
 * with {@code object} null on DELETE and {@code oldObject} null on CREATE, and CEL with Kubernetes'
 * strings library ({@code join}).
 */
class AdmissionPolicyTest {

  private static final String SCHEDULER =
      "system:serviceaccount:vnpu-system:release-name-vnpu-scheduler";
  private static final String PLUGIN =
      "system:serviceaccount:vnpu-system:release-name-vnpu-device-plugin";
  private static final String TENANT = "system:serviceaccount:team-a:default";
  private static final String ALLOCATION = "huawei.com/vnpu-ids-new";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Cel CEL =
      CelFactory.standardCelBuilder()
          .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
          .addCompilerLibraries(CelExtensions.strings())
          .addRuntimeLibraries(CelExtensions.strings())
          .addVar("object", SimpleType.DYN)
          .addVar("oldObject", SimpleType.DYN)
          .addVar("request", SimpleType.DYN)
          .addVar("variables", SimpleType.DYN)
          .build();

  private final List<HasMetadata> rendered = RenderedChart.render(Map.of());
  private final List<ValidatingAdmissionPolicy> policies =
      rendered.stream()
          .filter(ValidatingAdmissionPolicy.class::isInstance)
          .map(ValidatingAdmissionPolicy.class::cast)
          .toList();

  @Test
  void everyPolicyIsBoundToDeny() {
    assertThat(policies)
        .extracting(policy -> policy.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "release-name-vnpu-pod-environment",
            "release-name-vnpu-pod-allocations",
            "release-name-vnpu-pod-bindings",
            "release-name-vnpu-node-annotations",
            "release-name-vnpu-node-locks",
            "release-name-vnpu-scheduler-name",
            "release-name-vnpu-signing-keys");
    List<ValidatingAdmissionPolicyBinding> bindings =
        rendered.stream()
            .filter(ValidatingAdmissionPolicyBinding.class::isInstance)
            .map(ValidatingAdmissionPolicyBinding.class::cast)
            .toList();
    assertThat(bindings)
        .extracting(binding -> binding.getSpec().getPolicyName())
        .containsExactlyInAnyOrderElementsOf(
            policies.stream().map(policy -> policy.getMetadata().getName()).toList());
    assertThat(bindings)
        .allSatisfy(
            binding ->
                assertThat(binding.getSpec().getValidationActions()).containsExactly("Deny"));
  }

  @Test
  void onlyTheSchedulerAndDevicePluginsWriteTheAllocationOfAPod() throws Exception {
    Pod running = pod("n1", Map.of(ALLOCATION, "{signed}", "huawei.com/bind-phase", "success"));
    Pod stripped = pod("n1", Map.of("huawei.com/bind-phase", "success"));
    Pod forged = pod("n1", Map.of(ALLOCATION, "{forged}", "huawei.com/bind-phase", "success"));
    Pod relabelled =
        pod("n1", Map.of(ALLOCATION, "{signed}", "huawei.com/bind-phase", "success", "team", "b"));

    assertThat(denial("UPDATE", "pods", running, stripped, TENANT, null))
        .hasValueSatisfying(
            message ->
                assertThat(message)
                    .contains("only the vNPU scheduler and device plugins may set " + ALLOCATION)
                    .contains(TENANT + " may not"));
    assertThat(denial("UPDATE", "pods", running, forged, TENANT, null)).isPresent();
    assertThat(denial("CREATE", "pods", null, forged, TENANT, null))
        .as("a pod created with an allocation of its own")
        .isPresent();
    assertThat(denial("UPDATE", "pods", running, relabelled, TENANT, null))
        .as("other annotations stay the owner's")
        .isEmpty();
    assertThat(denial("UPDATE", "pods", stripped, running, SCHEDULER, null)).isEmpty();
    assertThat(denial("UPDATE", "pods", stripped, running, PLUGIN, "n1")).isEmpty();
    assertThat(denial("UPDATE", "pods", stripped, pod("n2", Map.of(ALLOCATION, "x")), PLUGIN, "n1"))
        .hasValue("the device plugin of node n1 may change only pods bound to its node");
  }

  @Test
  void onlyTheSchedulerAndANodesOwnDevicePluginWriteItsVnpuAnnotations() throws Exception {
    Node plain = node("n1", Map.of());
    Node locked = node("n1", Map.of("huawei.com/node-vnpu-register", "{inventory}"));
    Node otherLocked = node("n2", Map.of("huawei.com/node-vnpu-register", "{inventory}"));

    assertThat(denial("UPDATE", "nodes", plain, locked, TENANT, null))
        .hasValueSatisfying(
            message -> assertThat(message).contains("huawei.com/node-vnpu-register"));
    assertThat(
            denial(
                "UPDATE",
                "nodes",
                node("n1", Map.of("huawei.com/vnpu-node-lock", "{old}")),
                plain,
                TENANT,
                null))
        .as("the node lock of an earlier release, which nothing reads, may be removed")
        .isEmpty();
    assertThat(denial("UPDATE", "nodes", plain, locked, SCHEDULER, null)).isEmpty();
    assertThat(denial("UPDATE", "nodes", plain, locked, PLUGIN, "n1")).isEmpty();
    assertThat(denial("UPDATE", "nodes", node("n2", Map.of()), otherLocked, PLUGIN, "n1"))
        .hasValue("the device plugin of node n1 may change only its own node, not n2");
    assertThat(denial("UPDATE", "nodes", plain, node("n1", Map.of("zone", "a")), TENANT, null))
        .isEmpty();
  }

  @Test
  void onlyTheSchedulerAndANodesOwnDevicePluginWriteTheEntriesOnItsLease() throws Exception {
    String entry = "huawei.com/vnpu-node-lock.uid-a";
    String handout = "huawei.com/vnpu-node-handout.0123abcd";
    Lease empty = lease("vnpu-node-locks", "n1", Map.of());
    Lease locked = lease("vnpu-node-locks", "n1", Map.of(entry, "{lock}"));
    Lease otherLocked = lease("vnpu-node-locks", "n2", Map.of(entry, "{lock}"));
    Lease twoKeys = lockLease(Map.of(entry, "{lock}", handout, "{record}"));

    assertThat(denial("UPDATE", "leases", empty, locked, TENANT, null))
        .hasValue(
            "only the vNPU scheduler and device plugins may set the huawei.com/vnpu-node-*"
                + " annotations of the lock Lease of a node; "
                + TENANT
                + " may not");
    assertThat(denial("UPDATE", "leases", locked, empty, TENANT, null))
        .as("an entry removed")
        .isPresent();
    Map<String, String> recordChanged = Map.of(entry, "{lock}", handout, "{other}");
    assertThat(denial("UPDATE", "leases", twoKeys, lockLease(recordChanged), TENANT, null))
        .as("one record of several changed")
        .isPresent();
    Map<String, String> otherAdded = Map.of(entry, "{lock}", handout, "{record}", "a", "b");
    assertThat(denial("UPDATE", "leases", twoKeys, lockLease(otherAdded), TENANT, null))
        .as("other annotations changed, the entries as they were")
        .isEmpty();
    assertThat(denial("CREATE", "leases", null, locked, TENANT, null))
        .as("a Lease created with entries of its own")
        .isPresent();
    assertThat(denial("CREATE", "leases", null, locked, SCHEDULER, null)).isEmpty();
    assertThat(denial("UPDATE", "leases", twoKeys, empty, PLUGIN, "n1")).isEmpty();
    assertThat(
            denial(
                "UPDATE",
                "leases",
                lease("vnpu-node-locks", "n2", Map.of()),
                otherLocked,
                PLUGIN,
                "n1"))
        .hasValue(
            "the device plugin of node n1 may change only the lock Lease of its own node, not that"
                + " of n2");
    assertThat(
            denial(
                "UPDATE",
                "leases",
                lease("kube-node-lease", "n1", Map.of()),
                lease("kube-node-lease", "n1", Map.of(entry, "x")),
                TENANT,
                null))
        .as("Leases of other namespaces are not the policy's")
        .isEmpty();
  }

  @Test
  void aVnpuPodMustNameAVnpuAwareScheduler() throws Exception {
    Pod defaulted = vnpuPod(null, false);
    assertThat(denial("CREATE", "pods", null, defaulted, TENANT, null))
        .hasValue(
            "a pod asking for huawei.com/vnpu-* resources must name a vNPU-aware scheduler in"
                + " spec.schedulerName (one of volcano, vnpu-scheduler), not default-scheduler");
    assertThat(denial("CREATE", "pods", null, vnpuPod("default-scheduler", true), TENANT, null))
        .as("an init container asking counts")
        .isPresent();
    assertThat(denial("CREATE", "pods", null, vnpuPod("volcano", false), TENANT, null)).isEmpty();
    assertThat(denial("CREATE", "pods", null, pod("n1", Map.of()), TENANT, null))
        .as("a pod without vNPUs is not concerned")
        .isEmpty();
  }

  @Test
  void onlyTheSchedulerAndAdministratorsWriteTheKeysNodesTrust() throws Exception {
    ConfigMap keys =
        new ConfigMapBuilder()
            .withNewMetadata()
            .withName("release-name-vnpu-verifying-keys")
            .endMetadata()
            .addToData("ed25519-0000000000000000", "a key")
            .build();
    ConfigMap other =
        new ConfigMapBuilder().withNewMetadata().withName("other").endMetadata().build();

    assertThat(denial("UPDATE", "configmaps", keys, keys, TENANT, null))
        .hasValueSatisfying(message -> assertThat(message).contains(TENANT + " may not"));
    assertThat(denial("UPDATE", "configmaps", keys, keys, PLUGIN, "n1")).isPresent();
    assertThat(denial("UPDATE", "configmaps", keys, keys, SCHEDULER, null)).isEmpty();
    assertThat(denial("DELETE", "configmaps", keys, null, "admin", null, "system:masters"))
        .isEmpty();
    assertThat(denial("UPDATE", "configmaps", other, other, TENANT, null))
        .as("other ConfigMaps are not concerned")
        .isEmpty();
  }

  @Test
  void aPodsOwnEnvironmentCannotNameTheVariablesAscendDockerRuntimeChoosesChipsBy()
      throws Exception {
    Pod app = withEnv(pod(null, Map.of()), false, "ASCEND_VISIBLE_DEVICES", "0");
    Pod init = withEnv(pod(null, Map.of()), true, "ASCEND_VNPU_SPECS", "vir16");
    Pod logs = withEnv(pod(null, Map.of()), false, "ASCEND_GLOBAL_LOG_LEVEL", "1");

    assertThat(denial("CREATE", "pods", null, app, TENANT, null))
        .hasValueSatisfying(
            message ->
                assertThat(message)
                    .startsWith("container main: ASCEND_VISIBLE_DEVICES: env may not set")
                    .contains("admission.allowedAscendEnv"));
    assertThat(denial("CREATE", "pods", null, init, TENANT, null))
        .hasValueSatisfying(
            message -> assertThat(message).startsWith("init container warmup: ASCEND_VNPU_SPECS"));
    assertThat(denial("CREATE", "pods", null, logs, TENANT, null))
        .as("CANN's own logging variables are the pod's")
        .isEmpty();

    Pod running = pod("n1", Map.of());
    Pod debugged =
        new PodBuilder(running)
            .editSpec()
            .addNewEphemeralContainer()
            .withName("debug")
            .addNewEnv()
            .withName("ASCEND_RUNTIME_OPTIONS")
            .withValue("")
            .endEnv()
            .endEphemeralContainer()
            .endSpec()
            .build();
    assertThat(denial("UPDATE", "pods/ephemeralcontainers", running, debugged, TENANT, null))
        .hasValueSatisfying(
            message ->
                assertThat(message)
                    .startsWith("ephemeral container debug: ASCEND_RUNTIME_OPTIONS"));
  }

  @Test
  void envFromIsRefusedOnPodsThatCanReachAnNpuNodeUnlessTheChartAllowsIt() throws Exception {
    Pod plain = withEnvFrom(pod(null, Map.of()));
    Pod tolerating =
        new PodBuilder(plain)
            .editSpec()
            .addNewToleration()
            .withKey("huawei.com/Ascend910")
            .withOperator("Exists")
            .endToleration()
            .endSpec()
            .build();
    Pod toleratingEverything =
        new PodBuilder(plain)
            .editSpec()
            .addNewToleration()
            .withOperator("Exists")
            .endToleration()
            .endSpec()
            .build();
    Pod naming = withEnvFrom(pod("npu-node", Map.of()));
    Pod asking = withEnvFrom(vnpuPod("volcano", false));

    assertThat(denial("CREATE", "pods", null, plain, TENANT, null))
        .as("a pod that cannot reach an NPU node keeps envFrom")
        .isEmpty();
    for (Pod npuPod : List.of(tolerating, toleratingEverything, naming, asking)) {
      assertThat(denial("CREATE", "pods", null, npuPod, TENANT, null))
          .hasValueSatisfying(
              message ->
                  assertThat(message)
                      .startsWith("container main: envFrom is refused on pods that can reach")
                      .contains("admission.allowEnvFrom"));
    }
    List<ValidatingAdmissionPolicy> allowing = policies(Map.of("admission.allowEnvFrom", true));
    assertThat(denial(allowing, "CREATE", "pods", null, tolerating, TENANT, null)).isEmpty();
  }

  @Test
  void neitherAStatusUpdateNorABindingRewritesTheAllocationOfAPod() throws Exception {
    Pod running = pod("n1", Map.of(ALLOCATION, "{signed}", "huawei.com/bind-phase", "success"));
    Pod failed = pod("n1", Map.of(ALLOCATION, "{signed}", "huawei.com/bind-phase", "failed"));
    assertThat(denial("UPDATE", "pods/status", running, failed, "system:node:n1", null))
        .hasValueSatisfying(message -> assertThat(message).contains("huawei.com/bind-phase"));
    assertThat(denial("UPDATE", "pods/status", running, running, "system:node:n1", null))
        .as("a status update that leaves the annotations")
        .isEmpty();

    Binding carrying = binding(Map.of(ALLOCATION, "{forged}"));
    assertThat(denial("CREATE", "pods/binding", null, carrying, TENANT, null))
        .hasValue(
            "a Binding may carry "
                + ALLOCATION
                + " onto a pod only from the vNPU scheduler or a binder of the chart value"
                + " admission.binders; "
                + TENANT
                + " may not");
    assertThat(
            denial(
                "CREATE",
                "pods/binding",
                null,
                carrying,
                "system:serviceaccount:volcano-system:volcano-scheduler",
                null))
        .as("Volcano's binder copies the pod's annotations into its Binding")
        .isEmpty();
    assertThat(denial("CREATE", "pods/binding", null, binding(Map.of()), TENANT, null)).isEmpty();
  }

  @Test
  void withDraTheKeysAndTheEnvironmentStayGuardedWhileTheSchedulerRuns() {
    assertThat(policies(Map.of("dra.enabled", true)))
        .extracting(policy -> policy.getMetadata().getName())
        .containsExactlyInAnyOrder(
            "release-name-vnpu-pod-environment", "release-name-vnpu-signing-keys");
    assertThat(policies(Map.of("dra.enabled", true, "dra.placement", false)))
        .extracting(policy -> policy.getMetadata().getName())
        .containsExactly("release-name-vnpu-pod-environment");
  }

  /**
   * The message of the first policy that denies the request, as the API server would; empty when
   * every matching policy admits it.
   */
  /** The lock Lease of node n1 with {@code annotations}. */
  private static Lease lockLease(Map<String, String> annotations) {
    return lease("vnpu-node-locks", "n1", annotations);
  }

  private Optional<String> denial(
      String operation,
      String resource,
      HasMetadata old,
      HasMetadata object,
      String user,
      String nodeClaim,
      String... groups)
      throws CelValidationException, CelEvaluationException {
    return denial(policies, operation, resource, old, object, user, nodeClaim, groups);
  }

  /**
   * The same with the policies of another rendering; {@code resource} may name a subresource
   * ({@code pods/status}), which only a rule naming it matches.
   */
  private static Optional<String> denial(
      List<ValidatingAdmissionPolicy> policies,
      String operation,
      String resource,
      HasMetadata old,
      HasMetadata object,
      String user,
      String nodeClaim,
      String... groups)
      throws CelValidationException, CelEvaluationException {
    Map<String, Object> request = new HashMap<>();
    int slash = resource.indexOf('/');
    if (slash >= 0) {
      // The API server leaves it out of a request without one: CEL then has no such key.
      request.put("subResource", resource.substring(slash + 1));
    }
    Map<String, Object> userInfo = new HashMap<>();
    userInfo.put("username", user);
    userInfo.put("groups", List.of(groups));
    if (nodeClaim != null) {
      userInfo.put("extra", Map.of("authentication.kubernetes.io/node-name", List.of(nodeClaim)));
    }
    request.put("userInfo", userInfo);
    request.put("operation", operation);
    Map<String, Object> input = new HashMap<>();
    input.put("object", object == null ? NullValue.NULL_VALUE : tree(object));
    input.put("oldObject", old == null ? NullValue.NULL_VALUE : tree(old));
    input.put("request", request);
    HasMetadata named = object == null ? old : object;
    for (ValidatingAdmissionPolicy policy : policies) {
      if (!matches(policy, operation, resource, named.getMetadata())) {
        continue;
      }
      Map<String, Object> variables = new LinkedHashMap<>();
      input.put("variables", variables);
      for (Variable variable :
          policy.getSpec().getVariables() == null
              ? List.<Variable>of()
              : policy.getSpec().getVariables()) {
        variables.put(variable.getName(), eval(variable.getExpression(), input));
      }
      for (Validation validation : policy.getSpec().getValidations()) {
        if (!Boolean.TRUE.equals(eval(validation.getExpression(), input))) {
          return Optional.of((String) eval(validation.getMessageExpression(), input));
        }
      }
    }
    return Optional.empty();
  }

  /**
   * Whether a rule of the policy matches the request, its resource names included, and its
   * namespace selector the object's namespace ({@code
   * staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/predicates/namespace/matcher.go
   * MatchNamespaceSelector}: a cluster-scoped object always matches). The selector is matched
   * against the label every namespace carries, {@code kubernetes.io/metadata.name} (the only one
   * the chart selects by).
   */
  private static boolean matches(
      ValidatingAdmissionPolicy policy, String operation, String resource, ObjectMeta object) {
    MatchResources constraints = policy.getSpec().getMatchConstraints();
    if (object.getNamespace() != null
        && constraints.getNamespaceSelector() != null
        && constraints.getNamespaceSelector().getMatchLabels() != null
        && !constraints
            .getNamespaceSelector()
            .getMatchLabels()
            .equals(Map.of("kubernetes.io/metadata.name", object.getNamespace()))) {
      return false;
    }
    for (NamedRuleWithOperations rule : constraints.getResourceRules()) {
      List<String> names = rule.getResourceNames();
      if (rule.getResources().contains(resource)
          && rule.getOperations().contains(operation)
          && (names == null || names.isEmpty() || names.contains(object.getName()))) {
        return true;
      }
    }
    return false;
  }

  private static Object eval(String expression, Map<String, Object> input)
      throws CelValidationException, CelEvaluationException {
    return CEL.createProgram(CEL.compile(expression).getAst()).eval(input);
  }

  private static List<ValidatingAdmissionPolicy> policies(Map<String, Object> values) {
    return RenderedChart.render(values).stream()
        .filter(ValidatingAdmissionPolicy.class::isInstance)
        .map(ValidatingAdmissionPolicy.class::cast)
        .toList();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> tree(HasMetadata object) {
    return JSON.convertValue(object, Map.class);
  }

  private static Pod pod(String node, Map<String, String> annotations) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("bert")
        .withNamespace("team-a")
        .withAnnotations(annotations)
        .endMetadata()
        .withNewSpec()
        .withNodeName(node)
        .addNewContainer()
        .withName("main")
        .endContainer()
        .endSpec()
        .build();
  }

  /** The pod with one variable in its app container's env, or in an init container's. */
  private static Pod withEnv(Pod pod, boolean inInit, String name, String value) {
    if (inInit) {
      return new PodBuilder(pod)
          .editSpec()
          .addNewInitContainer()
          .withName("warmup")
          .addNewEnv()
          .withName(name)
          .withValue(value)
          .endEnv()
          .endInitContainer()
          .endSpec()
          .build();
    }
    return new PodBuilder(pod)
        .editSpec()
        .editFirstContainer()
        .addNewEnv()
        .withName(name)
        .withValue(value)
        .endEnv()
        .endContainer()
        .endSpec()
        .build();
  }

  private static Pod withEnvFrom(Pod pod) {
    return new PodBuilder(pod)
        .editSpec()
        .editFirstContainer()
        .addNewEnvFrom()
        .withNewConfigMapRef()
        .withName("settings")
        .endConfigMapRef()
        .endEnvFrom()
        .endContainer()
        .endSpec()
        .build();
  }

  private static Binding binding(Map<String, String> annotations) {
    return new BindingBuilder()
        .withNewMetadata()
        .withName("bert")
        .withNamespace("team-a")
        .withAnnotations(annotations)
        .endMetadata()
        .withNewTarget()
        .withKind("Node")
        .withName("n1")
        .endTarget()
        .build();
  }

  private static Pod vnpuPod(String schedulerName, boolean inInit) {
    PodBuilder pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("bert")
            .endMetadata()
            .withNewSpec()
            .withSchedulerName(schedulerName)
            .addNewContainer()
            .withName("main")
            .endContainer()
            .endSpec();
    if (inInit) {
      pod.editSpec()
          .addNewInitContainer()
          .withName("warmup")
          .withNewResources()
          .addToLimits("huawei.com/vnpu-number", new Quantity("1"))
          .endResources()
          .endInitContainer()
          .endSpec();
    } else {
      pod.editSpec()
          .editFirstContainer()
          .withNewResources()
          .addToLimits("huawei.com/vnpu-number", new Quantity("1"))
          .endResources()
          .endContainer()
          .endSpec();
    }
    return pod.build();
  }

  private static Lease lease(String namespace, String name, Map<String, String> annotations) {
    return new LeaseBuilder()
        .withNewMetadata()
        .withNamespace(namespace)
        .withName(name)
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }

  private static Node node(String name, Map<String, String> annotations) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName(name)
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }
}
