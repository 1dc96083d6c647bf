package org.vnpu.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layering rules of docs/architecture.md, over the main classes of every module (this module
 * depends on all of them): decisions never reach the API server, the HTTP layer never reaches the
 * ledger, and no two packages depend on each other.
 */
class ArchitectureTest {

  private static JavaClasses classes;

  @BeforeAll
  static void importClasses() {
    classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("org.vnpu");
  }

  @Test
  void theEngineDecidesWithoutAClient() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAnyPackage("org.vnpu.api..", "org.vnpu.core..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                "io.fabric8..", "io.grpc..", "org.vnpu.kube..", "org.vnpu.scheduler..")
            .because("decisions are tested without an API server (ADR 0025)");
    rule.check(classes);
  }

  @Test
  void theSchedulersStateAndDecisionsNeverCallTheApiServer() {
    ArchRule rule =
        noClasses()
            .that()
            .haveFullyQualifiedName("org.vnpu.scheduler.SchedulerState")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.ObservedMix")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.SchedulerCounters")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.NodeJudge")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.PreemptionAdvisor")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.RebalancePlans")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.PreemptionHolds")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.ReplacementHolds")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.Reservations")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.HostUsage")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.ClusterView")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.HandoutCharges")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.PodSeen")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.NodeSeen")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.fabric8..")
            .because("the state is charged and read under one lock, and I/O happens outside it");
    rule.check(classes);
  }

  @Test
  void theSchedulersActionsReachTheClusterThroughItsPortOnly() {
    ArchRule rule =
        noClasses()
            .that()
            .haveFullyQualifiedName("org.vnpu.scheduler.PodReserver")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.ExpiryPass")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.HandoutSettlement")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.ClusterIntake")
            .or()
            .haveFullyQualifiedName("org.vnpu.scheduler.NodeScorer")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.fabric8.kubernetes.client..")
            .orShould()
            .dependOnClassesThat()
            .haveFullyQualifiedName("org.vnpu.kube.AnnotationPatches")
            .orShould()
            .dependOnClassesThat()
            .haveFullyQualifiedName("org.vnpu.kube.PodBindings")
            .because("they read and write through ClusterPort, tested in memory (ADR 0025)");
    rule.check(classes);
  }

  @Test
  void theHttpLayerDoesNotReachTheLedger() {
    ArchRule rule =
        noClasses()
            .that()
            .haveSimpleNameStartingWith("Extender")
            .or()
            .haveSimpleNameEndingWith("Protocol")
            .or()
            .haveSimpleName("BodyReader")
            .or()
            .haveSimpleName("RequestBudget")
            .should()
            .dependOnClassesThat()
            .haveFullyQualifiedName("org.vnpu.core.ledger.Ledger")
            .orShould()
            .dependOnClassesThat()
            .haveFullyQualifiedName("org.vnpu.scheduler.ClusterView")
            .orShould()
            .dependOnClassesThat()
            .haveFullyQualifiedName("org.vnpu.scheduler.SchedulerState")
            .orShould()
            .dependOnClassesThat()
            .haveFullyQualifiedName("org.vnpu.scheduler.DraLedger")
            .because("the protocols ask the Scheduler, which owns the state");
    rule.check(classes);
  }

  @Test
  void packagesHaveNoCycles() {
    slices().matching("org.vnpu.(**)").should().beFreeOfCycles().check(classes);
  }
}
