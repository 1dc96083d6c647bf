package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.vnpu.cli.RenderedChart.render;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.marcnuri.helm.Helm;
import com.marcnuri.helm.LintResult;
import com.marcnuri.helm.TemplateCommand;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceClass;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.vnpu.api.LabelKeys;
import org.vnpu.api.ResourceNames;
import org.vnpu.sandbox.KubeSchedulerConfig;
import picocli.CommandLine;

/**
 * The Helm chart is linted and rendered (helm-java, no helm binary), and what it renders is read
 * with fabric8 and checked: probes and limits everywhere, every component's arguments accepted by
 * its `vnpu` command, the minimum RBAC, no rendered key material, the schedulers' configurations.
 */
class HelmChartTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @Test
  void theChartLintsCleanly() {
    LintResult lint = new Helm(RenderedChart.chart()).lint().strict().call();
    assertThat(lint.isFailed()).as(String.join("\n", lint.getMessages())).isFalse();
  }

  @Test
  void theChartNamesTheKubernetesVersionsItNeeds() throws IOException {
    assertThat(Files.readString(RenderedChart.SOURCE.resolve("Chart.yaml")))
        .containsPattern("(?m)^kubeVersion: \">=1\\.30\\.0-0\"$");
  }

  @Test
  void theDevicePluginSeesTheDriverAsAscendsOwnPluginDoesAndTheAgentsTolerateAscendTaints() {
    List<HasMetadata> objects = render(Map.of());
    List<DaemonSet> agents =
        objects.stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast).toList();
    assertThat(agents).hasSize(2);
    for (DaemonSet agent : agents) {
      assertThat(agent.getSpec().getTemplate().getSpec().getTolerations())
          .extracting(toleration -> toleration.getKey())
          .contains("huawei.com/Ascend910", "huawei.com/Ascend310P");
    }
    for (DaemonSet agent :
        agents.stream().filter(a -> a.getMetadata().getName().endsWith("device-plugin")).toList()) {
      PodSpec pod = agent.getSpec().getTemplate().getSpec();
      Container container = pod.getContainers().get(0);
      assertThat(container.getEnv())
          .as(agent.getMetadata().getName())
          .anyMatch(
              env ->
                  env.getName().equals("LD_LIBRARY_PATH")
                      && env.getValue()
                          .equals(
                              "/usr/local/Ascend/driver/lib64:/usr/local/Ascend/driver/lib64/driver:"
                                  + "/usr/local/Ascend/driver/lib64/common:/usr/local/dcmi"));
      assertThat(container.getVolumeMounts())
          .extracting(mount -> mount.getMountPath())
          .contains(
              "/usr/local/Ascend/driver",
              "/etc/ascend_install.info",
              "/usr/local/dcmi",
              "/usr/local/bin/npu-smi",
              // what its start-up checks (vnpu doctor) look at, read only
              "/usr/local/vnpu/lib",
              "/usr/local/Ascend/Ascend-Docker-Runtime");
      assertThat(container.getArgs())
          .contains("--ascend-runtime=/usr/local/Ascend/Ascend-Docker-Runtime");
    }
  }

  @Test
  void theExporterRunsUnprivilegedWithoutDevicesFromTheDevicePluginsReadings() {
    DaemonSet exporter = named(render(Map.of()), DaemonSet.class, "release-name-vnpu-exporter");
    PodSpec pod = exporter.getSpec().getTemplate().getSpec();
    Container container = pod.getContainers().get(0);

    assertThat(container.getArgs())
        .contains("--from-device-plugin")
        .noneMatch(a -> a.startsWith("--driver"));
    assertThat(container.getSecurityContext().getPrivileged()).isNotEqualTo(Boolean.TRUE);
    assertThat(container.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(container.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(container.getSecurityContext().getCapabilities().getAdd())
        .containsExactly("DAC_READ_SEARCH");
    assertThat(pod.getVolumes())
        .filteredOn(volume -> volume.getHostPath() != null)
        .extracting(volume -> volume.getHostPath().getPath())
        .as("the state directory alone: no /dev, no driver")
        .containsExactly("/var/run/vnpu");
    assertThat(container.getVolumeMounts())
        .filteredOn(mount -> mount.getMountPath().equals("/var/run/vnpu"))
        .singleElement()
        .satisfies(mount -> assertThat(mount.getReadOnly()).isTrue());
  }

  @Test
  void theSchedulerServiceReachesTheLeaderAndTheReplicasAreReadyOnTheirOwn() {
    List<HasMetadata> objects = render(Map.of());

    Service service = named(objects, Service.class, "release-name-vnpu-scheduler");
    assertThat(service.getSpec().getSelector())
        .containsEntry(LabelKeys.SCHEDULER_LEADER, LabelKeys.SCHEDULER_LEADER_VALUE);
    Container scheduler =
        named(objects, Deployment.class, "release-name-vnpu-scheduler")
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    assertThat(scheduler.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(scheduler.getArgs()).contains("--lease-name=release-name-vnpu-scheduler-extender");
  }

  @Test
  void unknownOrMalformedValuesAreErrorsNotSilentlyIgnored() {
    assertThatThrownBy(() -> render(Map.of("scheduler.lockTimout", "5m")))
        .hasMessageContaining("lockTimout")
        .hasMessageContaining("Additional property lockTimout is not allowed");
    assertThatThrownBy(() -> render(Map.of("scheduler.lockTimeout", "five minutes")))
        .hasMessageContaining("lockTimeout");
    assertThatThrownBy(() -> render(Map.of("devicePlugin.maxSharesPerChip", 64)))
        .hasMessageContaining("maxSharesPerChip");
    assertThatThrownBy(() -> render(Map.of("scheduler.defaultNodePolicy", "first-fit")))
        .hasMessageContaining("defaultNodePolicy");
  }

  @Test
  void theImageRepositoryMustBeGiven() {
    TemplateCommand template =
        new Helm(RenderedChart.chart())
            .template()
            .withName("release-name")
            .withNamespace("vnpu-system");

    assertThatThrownBy(template::call)
        .hasMessageContaining("image.repository is required: the registry path you pushed");
  }

  @Test
  void theSecondKubeSchedulerRunsTheProfileWithTheBindingsTheGuideLists() {
    List<HasMetadata> objects = render(Map.of("scheduler.kubeScheduler.enabled", true));

    Deployment deployment = named(objects, Deployment.class, "release-name-vnpu-kube-scheduler");
    Container container = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(container.getImage()).matches("registry\\.k8s\\.io/kube-scheduler:v1\\.\\d+\\.0");
    assertThat(container.getCommand())
        .contains("--config=/etc/kubernetes/vnpu/kube-scheduler-config.yaml");
    assertThat(
            deployment
                .getSpec()
                .getTemplate()
                .getSpec()
                .getVolumes()
                .get(0)
                .getConfigMap()
                .getName())
        .isEqualTo("release-name-vnpu-kube-scheduler");
    assertThat(
            objects.stream()
                .filter(o -> o instanceof ClusterRoleBinding || o instanceof RoleBinding)
                .filter(
                    o -> o.getMetadata().getName().startsWith("release-name-vnpu-kube-scheduler"))
                .map(
                    o ->
                        o instanceof ClusterRoleBinding c
                            ? c.getRoleRef().getName()
                            : ((RoleBinding) o).getRoleRef().getName()))
        .containsExactlyInAnyOrder(
            "system:kube-scheduler",
            "system:volume-scheduler",
            "extension-apiserver-authentication-reader",
            "release-name-vnpu-kube-scheduler-leader");
    assertThat(verbs(objects).get("vnpu-kube-scheduler-leader"))
        .isEqualTo(Map.of("leases", Set.of("get", "create", "update", "patch")));
  }

  @Test
  void everyContainerHasLimitsAndEveryLongRunningOneProbes() {
    List<HasMetadata> objects = render(Map.of());
    List<PodSpec> pods = new ArrayList<>();
    objects.stream()
        .filter(DaemonSet.class::isInstance)
        .map(o -> ((DaemonSet) o).getSpec().getTemplate().getSpec())
        .forEach(pods::add);
    objects.stream()
        .filter(Deployment.class::isInstance)
        .map(o -> ((Deployment) o).getSpec().getTemplate().getSpec())
        .forEach(pods::add);
    assertThat(pods).hasSize(3);
    for (PodSpec pod : pods) {
      List<Container> all = new ArrayList<>(pod.getInitContainers());
      all.addAll(pod.getContainers());
      for (Container container : all) {
        assertThat(container.getResources().getLimits())
            .as(container.getName())
            .containsKeys("cpu", "memory");
        assertThat(container.getResources().getRequests())
            .as(container.getName())
            .containsKeys("cpu", "memory");
      }
      for (Container container : pod.getContainers()) {
        assertThat(container.getStartupProbe()).as(container.getName()).isNotNull();
        assertThat(container.getLivenessProbe()).as(container.getName()).isNotNull();
        assertThat(container.getReadinessProbe()).as(container.getName()).isNotNull();
        assertThat(container.getEnv())
            .as(
                container.getName()
                    + ": the JVM sizes its heap from the limit and maps it with huge pages")
            .anyMatch(
                env ->
                    env.getName().equals("JAVA_TOOL_OPTIONS")
                        && env.getValue().contains("-XX:MaxRAMPercentage=")
                        && env.getValue().contains("-XX:+UseTransparentHugePages"));
      }
    }
  }

  @Test
  void everyComponentsArgumentsAreAcceptedByItsCommand() {
    // Setting an element of a list replaces it: the group's name comes along (the schema says so).
    List<HasMetadata> objects =
        render(
            Map.of(
                "devicePlugin.nodeGroups[0].name",
                "default",
                "devicePlugin.nodeGroups[0].splitMode",
                "hard"));
    List<Container> containers = new ArrayList<>();
    objects.stream()
        .filter(DaemonSet.class::isInstance)
        .forEach(
            o ->
                containers.addAll(
                    ((DaemonSet) o).getSpec().getTemplate().getSpec().getContainers()));
    objects.stream()
        .filter(Deployment.class::isInstance)
        .forEach(
            o ->
                containers.addAll(
                    ((Deployment) o).getSpec().getTemplate().getSpec().getContainers()));
    List<String> commands = new ArrayList<>();
    for (Container container : containers) {
      List<String> args = container.getArgs();
      CommandLine.ParseResult parsed =
          VnpuCommand.commandLine().parseArgs(args.toArray(String[]::new));
      assertThat(parsed.hasSubcommand()).as(args.toString()).isTrue();
      commands.add(parsed.subcommand().commandSpec().name());
    }
    assertThat(commands).containsExactlyInAnyOrder("device-plugin", "exporter", "scheduler");
    assertThat(containers).anySatisfy(c -> assertThat(c.getArgs()).contains("--split-mode=hard"));
  }

  @Test
  void draWithoutPlacementReplacesTheDevicePluginAndTheExtender() {
    List<HasMetadata> objects =
        render(Map.of("dra.enabled", true, "dra.sharing", "partitionable", "dra.placement", false));

    assertThat(objects).noneMatch(Deployment.class::isInstance).noneMatch(Secret.class::isInstance);
    List<DaemonSet> daemonSets =
        objects.stream().filter(DaemonSet.class::isInstance).map(DaemonSet.class::cast).toList();
    assertThat(daemonSets)
        .extracting(d -> d.getMetadata().getName())
        .containsExactlyInAnyOrder("release-name-vnpu-dra-driver", "release-name-vnpu-exporter");
    Container driver =
        daemonSets.stream()
            .filter(d -> d.getMetadata().getName().endsWith("dra-driver"))
            .findFirst()
            .orElseThrow()
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    CommandLine.ParseResult parsed =
        VnpuCommand.commandLine().parseArgs(driver.getArgs().toArray(String[]::new));
    assertThat(parsed.subcommand().commandSpec().name()).isEqualTo("dra-driver");
    assertThat(driver.getArgs()).contains("--sharing=partitionable");
    assertThat(objects)
        .filteredOn(DeviceClass.class::isInstance)
        .singleElement()
        .satisfies(c -> assertThat(c.getMetadata().getName()).isEqualTo("vnpu.huawei.com"));
    assertThat(verbs(objects))
        .containsEntry(
            "vnpu-dra-driver",
            Map.of(
                "nodes", Set.of("get"),
                "resourceslices", Set.of("get", "list", "create", "update", "delete"),
                "resourceclaims", Set.of("get")))
        .doesNotContainKeys("vnpu-device-plugin", "vnpu-scheduler");
  }

  @Test
  void draPlacementRunsTheExtenderToRankClaimPodsOnly() throws IOException {
    List<HasMetadata> objects =
        render(Map.of("dra.enabled", true, "scheduler.kubeScheduler.enabled", true));

    assertThat(
            named(objects, Deployment.class, "release-name-vnpu-scheduler")
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .get(0)
                .getArgs())
        .contains("--dra-driver=vnpu.huawei.com");
    assertThat(verbs(objects).get("vnpu-scheduler"))
        .containsEntry("resourceslices", Set.of("list", "watch"))
        .containsEntry("resourceclaims", Set.of("get", "list", "watch"));
    assertThat(objects)
        .filteredOn(DaemonSet.class::isInstance)
        .extracting(d -> d.getMetadata().getName())
        .containsExactlyInAnyOrder("release-name-vnpu-dra-driver", "release-name-vnpu-exporter");
    JsonNode config =
        YAML.readTree(
            objects.stream()
                .filter(ConfigMap.class::isInstance)
                .map(ConfigMap.class::cast)
                .filter(c -> c.getMetadata().getName().equals("release-name-vnpu-kube-scheduler"))
                .findFirst()
                .orElseThrow()
                .getData()
                .get("kube-scheduler-config.yaml"));
    JsonNode extender = config.path("extenders").get(0);
    assertThat(extender.path("prioritizeVerb").asText()).isEqualTo("prioritize");
    assertThat(KubeSchedulerConfig.parse(config))
        .as("the sandbox's DRA cycle weighs the extender as the chart renders it")
        .isEqualTo(KubeSchedulerConfig.shippedForDra());
    assertThat(extender.has("filterVerb")).as("the DynamicResources plugin filters").isFalse();
    assertThat(extender.has("bindVerb")).as("kube-scheduler binds").isFalse();
    assertThat(extender.has("managedResources"))
        .as("claim pods ask for no extended resource")
        .isFalse();
    assertThat(extender.path("ignorable").asBoolean()).isTrue();
  }

  @Test
  void rbacGrantsEachComponentOnlyWhatItUses() {
    List<HasMetadata> objects = render(Map.of());
    assertThat(verbs(objects)).isEqualTo(ChartRbac.GRANTED);
    Map<String, String> namespaces = new TreeMap<>();
    objects.stream()
        .filter(Role.class::isInstance)
        .forEach(
            role ->
                namespaces.put(
                    role.getMetadata().getName().replace("release-name-vnpu-", "vnpu-"),
                    role.getMetadata().getNamespace() == null
                        ? ChartRbac.RELEASE
                        : role.getMetadata().getNamespace()));
    assertThat(namespaces).isEqualTo(ChartRbac.NAMESPACES);
    assertThat(objects)
        .as("the lock Leases' namespace")
        .anySatisfy(
            object -> {
              assertThat(object).isInstanceOf(Namespace.class);
              assertThat(object.getMetadata().getName()).isEqualTo("vnpu-node-locks");
            });
  }

  @Test
  void theRebalancerMayEvictOnlyInExecuteModeAndItsSettingsReachTheScheduler() {
    List<HasMetadata> objects = render(Map.of("rebalancer.mode", "execute"));

    assertThat(verbs(objects).get("vnpu-scheduler"))
        .containsEntry("pods/eviction", Set.of("create"));
    assertThat(verbs(render(Map.of())).get("vnpu-scheduler")).doesNotContainKey("pods/eviction");
    List<String> args =
        named(objects, Deployment.class, "release-name-vnpu-scheduler")
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0)
            .getArgs();
    assertThat(args)
        .contains(
            "--rebalancer-mode=execute",
            "--rebalance-evictions-per-owner=1",
            "--rebalance-high-water=85");
  }

  /** The rendered object of {@code type} called {@code name}. */
  private static <T extends HasMetadata> T named(
      List<HasMetadata> objects, Class<T> type, String name) {
    return objects.stream()
        .filter(type::isInstance)
        .map(type::cast)
        .filter(object -> object.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " " + name));
  }

  /** Verbs by resource, by role (release prefix dropped). */
  private static Map<String, Map<String, Set<String>>> verbs(List<HasMetadata> objects) {
    Map<String, Map<String, Set<String>>> granted = new TreeMap<>();
    for (HasMetadata object : objects) {
      List<PolicyRule> rules =
          object instanceof ClusterRole role
              ? role.getRules()
              : object instanceof Role role ? role.getRules() : null;
      if (rules == null) {
        continue;
      }
      Map<String, Set<String>> verbs =
          granted.computeIfAbsent(
              object.getMetadata().getName().replace("release-name-vnpu-", "vnpu-"),
              n -> new TreeMap<>());
      for (PolicyRule rule : rules) {
        for (String resource : rule.getResources()) {
          verbs.computeIfAbsent(resource, r -> new TreeSet<>()).addAll(rule.getVerbs());
        }
      }
    }
    return granted;
  }

  @Test
  void noKeyMaterialIsRenderedSoEveryRenderIsTheSameAndTheNodesMountThePublicKeys() {
    List<HasMetadata> objects = render(Map.of());

    assertThat(objects).noneMatch(Secret.class::isInstance);
    assertThat(render(Map.of())).as("helm template twice, as Argo CD does").isEqualTo(objects);
    Deployment scheduler = named(objects, Deployment.class, "release-name-vnpu-scheduler");
    assertThat(scheduler.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .contains(
            "--signing-secret=release-name-vnpu-signing",
            "--verifying-keys=release-name-vnpu-verifying-keys");
    DaemonSet plugin =
        objects.stream()
            .filter(DaemonSet.class::isInstance)
            .map(DaemonSet.class::cast)
            .filter(d -> d.getMetadata().getName().contains("device-plugin"))
            .findFirst()
            .orElseThrow();
    assertThat(plugin.getSpec().getTemplate().getSpec().getVolumes())
        .filteredOn(volume -> volume.getConfigMap() != null)
        .singleElement()
        .satisfies(
            volume -> {
              assertThat(volume.getConfigMap().getName())
                  .isEqualTo("release-name-vnpu-verifying-keys");
              assertThat(volume.getConfigMap().getOptional()).isTrue();
            });
    assertThat(verbs(objects).get("vnpu-scheduler-leader"))
        .containsEntry("secrets", Set.of("create", "get", "update"))
        .containsEntry("configmaps", Set.of("create", "get", "update"));
  }

  @Test
  void everyWorkloadHasANetworkPolicyAndOnlySchedulersReachTheExtender() {
    List<HasMetadata> objects =
        render(Map.of("scheduler.kubeScheduler.enabled", true, "dra.enabled", false));
    List<NetworkPolicy> policies =
        objects.stream()
            .filter(NetworkPolicy.class::isInstance)
            .map(NetworkPolicy.class::cast)
            .toList();
    List<Map<String, String>> workloads = new ArrayList<>();
    for (HasMetadata object : objects) {
      if (object instanceof Deployment deployment) {
        workloads.add(deployment.getSpec().getTemplate().getMetadata().getLabels());
      } else if (object instanceof DaemonSet daemonSet) {
        workloads.add(daemonSet.getSpec().getTemplate().getMetadata().getLabels());
      }
    }
    assertThat(workloads).isNotEmpty();
    for (Map<String, String> labels : workloads) {
      assertThat(policies)
          .as("a NetworkPolicy selects pods labelled %s", labels)
          .anyMatch(
              policy ->
                  labels
                      .entrySet()
                      .containsAll(policy.getSpec().getPodSelector().getMatchLabels().entrySet()));
    }
    NetworkPolicy extender =
        policies.stream()
            .filter(p -> p.getMetadata().getName().equals("release-name-vnpu-scheduler"))
            .findFirst()
            .orElseThrow();
    var rule = extender.getSpec().getIngress().get(0);
    assertThat(rule.getPorts())
        .extracting(port -> port.getPort().getIntVal())
        .containsExactly(9401, 9443);
    assertThat(rule.getFrom())
        .extracting(peer -> peer.getPodSelector().getMatchLabels())
        .containsExactly(
            Map.of(
                "app.kubernetes.io/name", "vnpu",
                "app.kubernetes.io/instance", "release-name",
                "app.kubernetes.io/component", "kube-scheduler"),
            Map.of("app", "volcano-scheduler"));
    assertThat(
            policies.stream()
                .filter(p -> p.getMetadata().getName().equals("release-name-vnpu-device-plugin"))
                .findFirst()
                .orElseThrow()
                .getSpec()
                .getIngress())
        .as("the device plugin takes no connection")
        .isEmpty();
  }

  @Test
  void theExportersSeriesReachOnlyTheScrapersNamedAndNoOneByDefault() {
    NetworkPolicy byDefault =
        named(render(Map.of()), NetworkPolicy.class, "release-name-vnpu-exporter");
    assertThat(byDefault.getSpec().getPolicyTypes()).containsExactly("Ingress");
    assertThat(byDefault.getSpec().getIngress())
        .as("without networkPolicy.metricsFrom no pod may scrape the exporters")
        .isEmpty();

    NetworkPolicy named =
        named(
            render(
                Map.of(
                    "networkPolicy.metricsFrom[0].namespaceSelector.matchLabels.team",
                    "monitoring")),
            NetworkPolicy.class,
            "release-name-vnpu-exporter");
    assertThat(named.getSpec().getIngress())
        .singleElement()
        .satisfies(
            rule -> {
              assertThat(rule.getPorts())
                  .extracting(port -> port.getPort().getIntVal())
                  .containsExactly(9402);
              assertThat(rule.getFrom())
                  .extracting(peer -> peer.getNamespaceSelector().getMatchLabels())
                  .containsExactly(Map.of("team", "monitoring"));
            });
  }

  @Test
  void kubeSchedulerCallsTheExtenderOverMutualTlsWithTheClientPairTheSchedulerMakes()
      throws IOException {
    List<HasMetadata> objects = render(Map.of("scheduler.kubeScheduler.enabled", true));
    JsonNode tls =
        YAML.readTree(configMap("release-name-vnpu-kube-scheduler", "kube-scheduler-config.yaml"))
            .path("extenders")
            .get(0)
            .path("tlsConfig");

    PodSpec kubeScheduler =
        named(objects, Deployment.class, "release-name-vnpu-kube-scheduler")
            .getSpec()
            .getTemplate()
            .getSpec();
    Volume certificates =
        kubeScheduler.getVolumes().stream()
            .filter(volume -> volume.getSecret() != null)
            .findFirst()
            .orElseThrow();
    assertThat(certificates.getSecret().getSecretName())
        .isEqualTo("release-name-vnpu-extender-tls");
    assertThat(certificates.getSecret().getItems())
        .as("never the CA's or the server's key")
        .extracting(KeyToPath::getKey)
        .containsExactly("ca.crt", "client.crt", "client.key");
    String mounted =
        kubeScheduler.getContainers().get(0).getVolumeMounts().stream()
            .filter(mount -> mount.getName().equals(certificates.getName()))
            .findFirst()
            .orElseThrow()
            .getMountPath();
    assertThat(tls.path("caFile").asText()).isEqualTo(mounted + "/ca.crt");
    assertThat(tls.path("certFile").asText()).isEqualTo(mounted + "/client.crt");
    assertThat(tls.path("keyFile").asText()).isEqualTo(mounted + "/client.key");

    Deployment scheduler = named(objects, Deployment.class, "release-name-vnpu-scheduler");
    assertThat(scheduler.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs())
        .contains(
            "--tls-listen=0.0.0.0:9443",
            "--tls-secret=release-name-vnpu-extender-tls",
            "--tls-server-name=release-name-vnpu-scheduler.vnpu-system.svc");
    assertThat(named(objects, Service.class, "release-name-vnpu-scheduler").getSpec().getPorts())
        .extracting(ServicePort::getPort)
        .containsExactly(9401, 9443);
    assertThat(
            named(objects, ValidatingAdmissionPolicy.class, "release-name-vnpu-signing-keys")
                .getSpec()
                .getMatchConstraints()
                .getResourceRules()
                .get(0)
                .getResourceNames())
        .as("whoever writes the CA can call kube-scheduler's verbs")
        .contains("release-name-vnpu-extender-tls");

    JsonNode plain =
        YAML.readTree(
            render(Map.of("scheduler.kubeScheduler.enabled", true, "scheduler.tls.enabled", false))
                .stream()
                .filter(ConfigMap.class::isInstance)
                .map(ConfigMap.class::cast)
                .findFirst()
                .orElseThrow()
                .getData()
                .get("kube-scheduler-config.yaml"));
    assertThat(plain.path("extenders").get(0).path("urlPrefix").asText())
        .isEqualTo("http://release-name-vnpu-scheduler.vnpu-system.svc:9401/kube");
    assertThat(plain.path("extenders").get(0).path("tlsConfig").isNull()).isTrue();
  }

  @Test
  void theChartLeavesVolcanosConfigurationToVolcano() {
    assertThat(render(Map.of("scheduler.kubeScheduler.enabled", true)))
        .filteredOn(ConfigMap.class::isInstance)
        .extracting(object -> object.getMetadata().getName())
        .containsExactly("release-name-vnpu-kube-scheduler");
  }

  @Test
  void theKubeSchedulerProfileBindsThroughUsAndManagesOnlyOurResources() throws IOException {
    JsonNode config =
        YAML.readTree(configMap("release-name-vnpu-kube-scheduler", "kube-scheduler-config.yaml"));
    assertThat(config.path("apiVersion").asText()).isEqualTo("kubescheduler.config.k8s.io/v1");
    assertThat(config.path("profiles").get(0).path("schedulerName").asText())
        .isEqualTo("vnpu-scheduler");
    JsonNode extender = config.path("extenders").get(0);
    assertThat(extender.path("urlPrefix").asText())
        .isEqualTo("https://release-name-vnpu-scheduler.vnpu-system.svc:9443/kube");
    assertThat(extender.path("filterVerb").asText()).isEqualTo("filter");
    assertThat(extender.path("prioritizeVerb").asText()).isEqualTo("prioritize");
    assertThat(extender.path("bindVerb").asText()).isEqualTo("bind");
    assertThat(extender.path("preemptVerb").asText()).isEqualTo("preempt");
    assertThat(extender.path("nodeCacheCapable").asBoolean()).isTrue();
    List<String> managed = new ArrayList<>();
    extender.path("managedResources").forEach(r -> managed.add(r.path("name").asText()));
    assertThat(managed).allMatch(ResourceNames::isVnpuResource).contains(ResourceNames.VNPU_NUMBER);
  }

  @Test
  void theSandboxSchedulesWithTheKubeSchedulerConfigurationAsTheChartRendersIt()
      throws IOException {
    KubeSchedulerConfig kube =
        KubeSchedulerConfig.parse(
            YAML.readTree(
                configMap("release-name-vnpu-kube-scheduler", "kube-scheduler-config.yaml")));

    assertThat(kube).isEqualTo(KubeSchedulerConfig.shipped());
    assertThat(kube.disabledScores())
        .contains("NodeResourcesFit", "NodeResourcesBalancedAllocation", "ImageLocality");
    assertThat(kube.ignoredResources())
        .as("nodes advertise every vNPU resource, so kube-scheduler counts them as the kubelet")
        .isEmpty();
  }

  private String configMap(String name, String key) {
    return render(Map.of("scheduler.kubeScheduler.enabled", true)).stream()
        .filter(ConfigMap.class::isInstance)
        .map(ConfigMap.class::cast)
        .filter(c -> c.getMetadata().getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no ConfigMap " + name))
        .getData()
        .get(key);
  }
}
