package org.vnpu.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.vnpu.core.engine.Fixtures.context;
import static org.vnpu.core.engine.Fixtures.ledger;
import static org.vnpu.core.engine.Fixtures.node;
import static org.vnpu.core.engine.Fixtures.placeAndApply;
import static org.vnpu.core.engine.Fixtures.pod;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.vnpu.core.ledger.HostResources;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.request.PodRequest;

class VictimPlannerTest {

  private static final Map<String, String> OFFLINE = Map.of("huawei.com/vnpu-priority", "offline");

  private final Ledger ledger = ledger(node("n1", "910B3", 1));
  private final List<VictimPlanner.Candidate> candidates = new ArrayList<>();

  /** Places a one-chip share of {@code cores} % on the node and makes it a candidate. */
  private void running(String uid, boolean offline, int cores, int priority, Duration running) {
    PodRequest pod =
        pod(uid, offline ? OFFLINE : Map.of(), "number=1", "cores=" + cores, "memory.1Gi=1");
    Decision.Placed placed = (Decision.Placed) placeAndApply(ledger, pod, context());
    candidates.add(new VictimPlanner.Candidate(placed.plan(), priority, running));
  }

  private Optional<List<String>> victimsFor(PodRequest preemptor) {
    return VictimPlanner.victims(
            preemptor, HostResources.NONE, ledger.node("n1").orElseThrow(), candidates, context())
        .map(victims -> victims.stream().map(VictimPlanner.Candidate::podUid).toList());
  }

  private static PodRequest online(int cores) {
    return pod("online", Map.of(), "number=1", "cores=" + cores, "memory.1Gi=1");
  }

  @Test
  void aPodThatFitsNeedsNoVictims() {
    running("a", true, 30, -10, Duration.ofHours(1));
    assertThat(victimsFor(online(60))).contains(List.of());
  }

  @Test
  void theFewestVictimsThenTheLowestPrioritiesThenTheLeastWorkLost() {
    running("a", true, 40, -10, Duration.ofHours(1));
    running("b", true, 30, -5, Duration.ofMinutes(10));
    running("c", true, 30, -5, Duration.ofMinutes(1));

    // 60 % needs two of them; {a,b} and {a,c} have the lower priorities, {a,c} loses less work.
    assertThat(victimsFor(online(60))).contains(List.of("a", "c"));
    // 30 % needs one: the lowest priority, although it ran longest.
    assertThat(victimsFor(online(30))).contains(List.of("a"));
  }

  @Test
  void onlinePodsAreNeverVictimsAndOfflinePodsNeverPreempt() {
    running("serving", false, 50, 1000, Duration.ofMinutes(1));
    running("batch", true, 50, -10, Duration.ofMinutes(1));

    assertThat(victimsFor(online(60))).as("only the online pod would make room").isEmpty();
    assertThat(victimsFor(online(50))).contains(List.of("batch"));
    PodRequest offline = pod("later", OFFLINE, "number=1", "cores=50", "memory.1Gi=1");
    assertThat(victimsFor(offline)).isEmpty();
  }

  @Test
  void manyCandidatesFallBackToAGreedyChoiceThatStillFits() {
    for (int i = 0; i < 20; i++) {
      running("p" + i, true, 5, -i, Duration.ofMinutes(i));
    }
    // 75 % needs 15 of the 20: more sets than the exact budget tries.
    List<String> victims = victimsFor(online(75)).orElseThrow();
    assertThat(victims).hasSize(15).doesNotHaveDuplicates();
  }
}
