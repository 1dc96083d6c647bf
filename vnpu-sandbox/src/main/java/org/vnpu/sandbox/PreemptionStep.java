package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.scheduling.v1.PriorityClassBuilder;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.kube.PodPhases;

final class PreemptionStep extends ScenarioStep {

  /** The chip of the preemption step: an offline pod holds it, an online one evicts it. */
  static final String PREEMPTED_CHIP = "SIM-a2-train-6";

  private Optional<String> preemptor = Optional.empty();

  PreemptionStep(Context context) {
    super(context);
  }

  @Override
  void run() throws InterruptedException {
    preemptor = preempt();
  }

  /** The pod that preempted, when one did. */
  Optional<String> preemptor() {
    return preemptor;
  }

  /**
   * Cluster-wide preemption (docs/colocation.md): {@code batch}, offline and of the {@code
   * vnpu-offline} class, holds 70 % of {@link #PREEMPTED_CHIP}; {@code urgent}, online and of the
   * {@code vnpu-online} class, asks for 60 % of that chip. Volcano's preempt action, asking the
   * extender, evicts {@code batch} and {@code urgent} starts there. kube-scheduler's {@code
   * DefaultPreemption} does not: the node's vNPU counts still hold {@code urgent}, so its own
   * filters need no victim and the extender is never asked ({@link KubePreemption}); {@code urgent}
   * waits beside {@code batch}, and both are deleted after the check.
   *
   * @return the pod that preempted, when one did
   */
  private Optional<String> preempt() throws InterruptedException {
    priorityClass("vnpu-offline", -1000, "Never");
    priorityClass("vnpu-online", 1000, "PreemptLowerPriority");
    Map<String, String> pinned = Map.of(AnnotationKeys.USE_NPU_DIE_ID, PREEMPTED_CHIP);
    create(
        classed(
            DemoPods.inference(
                "batch", 70, 4, "fixed-share", withPriority(pinned, "offline"), Map.of()),
            "vnpu-offline",
            -1000));
    settle(List.of("batch"));
    create(
        classed(
            DemoPods.inference(
                "urgent", 60, 4, "fixed-share", withPriority(pinned, "online"), Map.of()),
            "vnpu-online",
            1000));
    if (sandbox.driver() == Sandbox.Driver.KUBE_SCHEDULER) {
      return notPreempted(
          "kube-scheduler preempts nothing for an online pod while the node's vNPU counts still"
              + " hold it (its dry run needs no victim), and says so",
          reason -> reason.contains("expected at least one victim pod"));
    }
    if (!sandbox.volcanoPreemptsForAChip()) {
      return notPreempted(
          "Volcano before 1.16 preempts nothing for an online pod while the node's vNPU resources"
              + " hold it in sum, and the extender says why the pod fits no chip",
          reason -> reason.contains("not enough AI Core"));
    }
    awaitPhase("urgent", "Running", SETTLE);
    Placed urgent = placed("urgent");
    boolean evicted =
        get("batch") == null
            && client.v1().events().inNamespace(Scenario.NAMESPACE).list().getItems().stream()
                .anyMatch(
                    e ->
                        "Evict".equals(e.getReason())
                            && "batch".equals(e.getInvolvedObject().getName()));
    String detail =
        describe("urgent") + (evicted ? "; batch evicted (event Evict)" : "; batch not evicted");
    progress.accept("      " + detail);
    checks.add(
        new Scenario.Check(
            "an online pod that fits no chip preempts the offline pod on its chip and starts",
            evicted
                && urgent != null
                && "Running".equals(PodPhases.of(get("urgent")))
                && urgent.vnpus().get(0).dieId().equals(PREEMPTED_CHIP),
            detail));
    return Optional.of("urgent");
  }

  /**
   * The half of {@link #preempt} where the scheduler does not preempt: {@code urgent} waits with a
   * reason {@code says} accepts, {@code batch} runs on.
   */
  private Optional<String> notPreempted(String promise, Predicate<String> says)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(SETTLE);
    String reason = null;
    while (Instant.now().isBefore(deadline) && (reason == null || !says.test(reason))) {
      Thread.sleep(200);
      Pod urgent = get("urgent");
      reason =
          urgent == null || urgent.getStatus() == null
              ? null
              : urgent.getStatus().getConditions().stream()
                  .filter(c -> "PodScheduled".equals(c.getType()))
                  .map(PodCondition::getMessage)
                  .findFirst()
                  .orElse(null);
    }
    String detail = "urgent pending: " + reason;
    progress.accept("      " + detail);
    checks.add(
        new Scenario.Check(
            promise,
            reason != null && says.test(reason) && "Running".equals(PodPhases.of(get("batch"))),
            detail));
    for (String name : List.of("urgent", "batch")) {
      client.pods().inNamespace(Scenario.NAMESPACE).withName(name).delete();
    }
    return Optional.empty();
  }

  private static Map<String, String> withPriority(
      Map<String, String> annotations, String priority) {
    Map<String, String> all = new HashMap<>(annotations);
    all.put(AnnotationKeys.PRIORITY, priority);
    return all;
  }

  /**
   * The PriorityClass docs/colocation.md recommends, created when missing: a pod naming a class
   * that does not exist is refused by the API server's Priority admission.
   */
  private void priorityClass(String name, int value, String preemptionPolicy) {
    if (client.scheduling().v1().priorityClasses().withName(name).get() == null) {
      client
          .scheduling()
          .v1()
          .priorityClasses()
          .resource(
              new PriorityClassBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .endMetadata()
                  .withValue(value)
                  .withPreemptionPolicy(preemptionPolicy)
                  .build())
          .create();
    }
  }

  /** {@code pod} of the PriorityClass {@code name}, with the priority admission gives it. */
  private static Pod classed(Pod pod, String name, int value) {
    pod.getSpec().setPriorityClassName(name);
    pod.getSpec().setPriority(value);
    return pod;
  }
}
