package org.vnpu.cluster;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.Release;
import com.marcnuri.helm.UpgradeCommand;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chart installed as a Helm release by helm-java ({@code helm install}, no helm binary): every
 * object it renders goes through the real API server, its validation, admission and the chart's own
 * policies. The chart's workloads (the node agents' DaemonSets, the scheduler's and
 * kube-scheduler's Deployments) are then taken out of the way: no kubelet here pulls images, and
 * the same components run as local processes with the release's ServiceAccounts and arguments
 * ({@link SchedulerReplicas}, {@link VnpuKubeScheduler}, {@code RealCluster}'s nodes). The
 * real-node issue runs them as pods.
 */
public final class VnpuRelease {

  private static final Logger LOG = LoggerFactory.getLogger(VnpuRelease.class);

  /** The release and namespace; the release name makes every object {@code vnpu-<component>}. */
  public static final String NAME = "vnpu";

  public static final String NAMESPACE = "vnpu-system";

  private VnpuRelease() {}

  /**
   * Installs the chart with {@code values} (on top of the real cluster's) and waits for nothing;
   * its workloads are taken away, as their components run as processes here.
   */
  public static Release install(
      Path chart, Path kubeconfig, KubernetesClient admin, Map<String, Object> values) {
    Map<String, Object> all = new LinkedHashMap<>();
    // Never pulled: the components run from this machine's jar (see above).
    all.put("image.repository", "vnpu.local/vnpu");
    all.put("scheduler.kubeScheduler.enabled", true);
    all.putAll(values);
    Release release = installRunning(chart, kubeconfig, all);
    for (Deployment deployment :
        admin.apps().deployments().inNamespace(NAMESPACE).list().getItems()) {
      admin
          .apps()
          .deployments()
          .inNamespace(NAMESPACE)
          .withName(deployment.getMetadata().getName())
          .scale(0);
    }
    admin.apps().daemonSets().inNamespace(NAMESPACE).delete();
    return release;
  }

  /**
   * Installs the chart with {@code values} as they are, or upgrades the release to them when it is
   * installed ({@code helm upgrade --install}), and waits for nothing: its DaemonSets and
   * Deployments run as pods wherever kubelets can run them (the real node).
   */
  public static Release installRunning(Path chart, Path kubeconfig, Map<String, Object> values) {
    UpgradeCommand install =
        new Helm(chart)
            .upgrade()
            .install()
            .withName(NAME)
            .withNamespace(NAMESPACE)
            .createNamespace()
            .withKubeConfig(kubeconfig);
    values.forEach(install::set);
    Release release = install.call();
    ShutdownSignals.reclaim();
    LOG.info(
        "installed chart {} as release {} revision {} ({})",
        chart,
        release.getName(),
        release.getRevision(),
        release.getStatus());
    return release;
  }

  /** The arguments of the scheduler Deployment's container, as the release rendered them. */
  public static List<String> schedulerArguments(KubernetesClient admin) {
    Deployment scheduler =
        admin.apps().deployments().inNamespace(NAMESPACE).withName(NAME + "-scheduler").get();
    if (scheduler == null) {
      throw new IllegalStateException(
          "the release has no Deployment " + NAMESPACE + "/" + NAME + "-scheduler");
    }
    return scheduler.getSpec().getTemplate().getSpec().getContainers().get(0).getArgs();
  }
}
