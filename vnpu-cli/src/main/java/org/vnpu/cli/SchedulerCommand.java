package org.vnpu.cli;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.vnpu.api.LabelKeys;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.signing.AllocationSigner;
import org.vnpu.api.signing.AllocationVerifier;
import org.vnpu.api.signing.SigningKey;
import org.vnpu.kube.ExtenderCertificates;
import org.vnpu.kube.KubeClients;
import org.vnpu.kube.SigningKeys;
import org.vnpu.kube.VerifyingKeyRetirement;
import org.vnpu.kube.VerifyingKeys;
import org.vnpu.scheduler.Leadership;
import org.vnpu.scheduler.Listeners;
import org.vnpu.scheduler.RebalanceController;
import org.vnpu.scheduler.RebalanceSettings;
import org.vnpu.scheduler.Scheduler;
import org.vnpu.scheduler.SchedulerService;
import org.vnpu.scheduler.SchedulerSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code vnpu scheduler}: the extender Volcano or kube-scheduler calls. */
@Command(
    name = "scheduler",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Run the scheduler extender for Volcano and kube-scheduler.",
      "",
      "Serves the Volcano extender plugin protocol under /volcano/ and the kube-scheduler extender"
          + " protocol under /kube/ until stopped, deciding with the placement engine on a ledger"
          + " rebuilt from the API server and kept by informers. Configurations:"
          + " deploy/helm/vnpu (scheduler.kubeScheduler) and `vnpu volcano-config` for Volcano. Protocol: docs/scheduler.md.",
      "",
      VnpuCommand.KUBERNETES_CONNECTION
    })
final class SchedulerCommand implements Callable<Integer> {

  @Option(
      names = "--listen",
      paramLabel = "HOST:PORT",
      defaultValue = "0.0.0.0:9401",
      description =
          "Plain HTTP: Volcano's verbs, /healthz, /readyz and /metrics, and kube-scheduler's verbs"
              + " unless --tls-listen is given (default: ${DEFAULT-VALUE}).")
  String listen;

  @Option(
      names = "--tls-listen",
      paramLabel = "HOST:PORT",
      description =
          "Serve kube-scheduler's verbs (/kube/) here only, over TLS, to clients presenting the"
              + " client certificate of --tls-secret; on plain HTTP they answer 403. Off by"
              + " default.")
  String tlsListen;

  @Option(
      names = "--tls-secret",
      paramLabel = "NAME",
      defaultValue = "vnpu-extender-tls",
      description =
          "Secret (in --keys-namespace) of the extender's CA, server and client certificates; the"
              + " first replica makes it and kube-scheduler mounts its ca.crt, client.crt and"
              + " client.key (default: ${DEFAULT-VALUE}).")
  String tlsSecret;

  @Option(
      names = "--tls-server-name",
      paramLabel = "NAME",
      description =
          "A DNS name or IP address the server certificate must be valid for, as kube-scheduler"
              + " dials it (repeatable; required with --tls-listen).")
  List<String> tlsServerNames = new ArrayList<>();

  @Option(
      names = "--keys-namespace",
      paramLabel = "NAMESPACE",
      defaultValue = "${env:POD_NAMESPACE}",
      description =
          "Namespace of the signing key's Secret and the verifying keys' ConfigMap (default:"
              + " $POD_NAMESPACE).")
  String keysNamespace;

  @Option(
      names = "--signing-secret",
      paramLabel = "NAME",
      defaultValue = "vnpu-signing",
      description =
          "Secret holding the Ed25519 key allocations are signed with; the first replica to start"
              + " makes it (default: ${DEFAULT-VALUE}). Delete it and restart to rotate the key.")
  String signingSecret;

  @Option(
      names = "--verifying-keys",
      paramLabel = "NAME",
      defaultValue = "vnpu-verifying-keys",
      description =
          "ConfigMap of the public keys nodes verify allocations with; the scheduler adds its own"
              + " and keeps the old ones (default: ${DEFAULT-VALUE}).")
  String verifyingKeys;

  @Option(
      names = "--heartbeat-tolerance",
      paramLabel = "DURATION",
      defaultValue = "2m",
      converter = DurationConverter.class,
      description =
          "A node whose device plugin has been silent longer is not schedulable (default:"
              + " ${DEFAULT-VALUE}).")
  Duration heartbeatTolerance;

  @Option(
      names = "--lock-timeout",
      paramLabel = "DURATION",
      defaultValue = "2m",
      converter = DurationConverter.class,
      description =
          "How long a node lock taken for a pod holds before another pod may take it over"
              + " (default: ${DEFAULT-VALUE}).")
  Duration lockTimeout;

  @Option(
      names = "--reservation-timeout",
      paramLabel = "DURATION",
      defaultValue = "1m",
      converter = DurationConverter.class,
      description =
          "How long a reservation waits for its pod to be bound before it is released (default:"
              + " ${DEFAULT-VALUE}).")
  Duration reservationTimeout;

  @Option(
      names = "--default-node-policy",
      paramLabel = "POLICY",
      defaultValue = "fragmentation-aware",
      converter = PlacementPolicyConverter.class,
      description =
          "How nodes are chosen for pods without huawei.com/vnpu-pod-node-scheduler-policy:"
              + " binpack, spread or fragmentation-aware (default: ${DEFAULT-VALUE}).")
  PlacementPolicy nodePolicy;

  @Option(
      names = "--default-device-policy",
      paramLabel = "POLICY",
      defaultValue = "fragmentation-aware",
      converter = PlacementPolicyConverter.class,
      description =
          "How chips are chosen for pods without huawei.com/vnpu-pod-device-scheduler-policy:"
              + " binpack, spread or fragmentation-aware (default: ${DEFAULT-VALUE}).")
  PlacementPolicy devicePolicy;

  @Option(
      names = "--online-priority-threshold",
      paramLabel = "PRIORITY",
      defaultValue = "0",
      description =
          "Pods without huawei.com/vnpu-priority whose spec.priority (from their PriorityClass) is"
              + " below this are offline work: they yield shared chips to online pods and are"
              + " evicted first (default: ${DEFAULT-VALUE}, so only negative PriorityClasses are"
              + " offline; docs/colocation.md).")
  int onlinePriorityThreshold;

  @Option(
      names = "--dra-driver",
      paramLabel = "NAME",
      defaultValue = "",
      description =
          "Follow this DRA driver's ResourceSlices and ResourceClaims (vnpu dra-driver's name,"
              + " e.g. vnpu.huawei.com) and rank nodes for pods with vNPU claims by the placement"
              + " policy; needs resource.k8s.io/v1 (Kubernetes 1.34+; docs/dra.md). Default: off.")
  String draDriver;

  @Option(
      names = "--leader-election-namespace",
      paramLabel = "NAMESPACE",
      defaultValue = "${env:POD_NAMESPACE}",
      description =
          "Namespace of the Lease the replicas elect their leader with (default: $POD_NAMESPACE)."
              + " Without it this replica runs alone and always leads.")
  String leaderNamespace;

  @Option(
      names = "--lease-name",
      paramLabel = "NAME",
      defaultValue = Leadership.DEFAULT_LEASE,
      description =
          "The Lease the replicas elect their leader with (default: ${DEFAULT-VALUE}); it must"
              + " differ from the Lease of any kube-scheduler in the namespace.")
  String leaseName;

  @Option(
      names = "--pod-name",
      paramLabel = "NAME",
      defaultValue = "${env:POD_NAME}",
      description =
          "This replica's pod, which it labels "
              + LabelKeys.SCHEDULER_LEADER
              + "="
              + LabelKeys.SCHEDULER_LEADER_VALUE
              + " while it leads so that the scheduler's Service reaches the leader (default:"
              + " $POD_NAME; none outside a pod).")
  String podName;

  @Option(
      names = "--identity",
      paramLabel = "NAME",
      defaultValue = "${env:POD_NAME}",
      description = "This replica's name in the election (default: $POD_NAME, else the host name).")
  String identity;

  @Option(
      names = "--lease-duration",
      paramLabel = "DURATION",
      defaultValue = "15s",
      converter = DurationConverter.class,
      description =
          "How long a silent leader keeps the Lease before a follower takes over (default:"
              + " ${DEFAULT-VALUE}).")
  Duration leaseDuration;

  @Mixin CatalogOption catalog;

  @Mixin RebalancerOptions rebalancer;

  @Override
  public Integer call() throws IOException, InterruptedException {
    InetSocketAddress address = Listen.parse(listen);
    if (keysNamespace == null || keysNamespace.isBlank()) {
      throw new InputException(
          "--keys-namespace is required (or $POD_NAMESPACE): the signing key lives in a Secret");
    }
    KubernetesClient client = KubeClients.fromEnvironment();
    PayloadCodec codec = new PayloadCodec();
    SigningKey key;
    try {
      key = SigningKeys.bootstrap(client, keysNamespace, signingSecret, verifyingKeys);
    } catch (IllegalStateException e) {
      throw new InputException(e.getMessage());
    }
    Scheduler scheduler =
        new Scheduler(
            client,
            catalog.load(),
            new AllocationSigner(key, codec),
            new AllocationVerifier(
                VerifyingKeys.inConfigMap(client, keysNamespace, verifyingKeys, Clock.systemUTC()),
                codec),
            new SchedulerSettings(
                heartbeatTolerance,
                lockTimeout,
                reservationTimeout,
                nodePolicy,
                devicePolicy,
                onlinePriorityThreshold,
                draDriver),
            Clock.systemUTC());
    Leadership leadership =
        leaderNamespace == null || leaderNamespace.isBlank()
            ? Leadership.alone()
            : Leadership.elect(
                client,
                leaderNamespace,
                leaseName,
                identity == null || identity.isBlank()
                    ? java.net.InetAddress.getLocalHost().getHostName()
                    : identity,
                podName,
                leaseDuration);
    RebalanceSettings rebalancing = rebalancer.settings();
    SchedulerService service =
        SchedulerService.start(listeners(address, client), scheduler, client, leadership);
    service.rebalance(
        new RebalanceController(client, scheduler.rebalancing(), rebalancing, Clock.systemUTC()));
    service.retireUnusedKeys(
        new VerifyingKeyRetirement(client, keysNamespace, verifyingKeys, codec),
        key.verifying().id());
    NodeAgentOptions.runUntilStopped(service, client);
    return 0;
  }

  private Listeners listeners(InetSocketAddress address, KubernetesClient client) {
    Listeners plain = Listeners.plain(address);
    if (tlsListen == null) {
      return plain;
    }
    if (tlsServerNames.isEmpty()) {
      throw new InputException(
          "--tls-listen needs at least one --tls-server-name: the name kube-scheduler dials, e.g."
              + " vnpu-scheduler.vnpu-system.svc");
    }
    try {
      return plain.withMutualTls(
          Listen.parse(tlsListen),
          ExtenderCertificates.bootstrap(client, keysNamespace, tlsSecret, tlsServerNames)
              .serverContext());
    } catch (IllegalStateException e) {
      throw new InputException(e.getMessage());
    }
  }
}
