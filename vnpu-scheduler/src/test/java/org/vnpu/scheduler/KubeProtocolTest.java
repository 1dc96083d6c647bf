package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.vnpu.scheduler.KubeProtocol.HostPriority;

class KubeProtocolTest {

  @Test
  void theNodeTheEngineChoosesIsAloneAtTheTopOfTheScale() {
    // 44.2 and 43.8 both round to 4: kube-scheduler would pick one of them at random.
    assertThat(
            KubeProtocol.priorities(
                List.of("n1", "n2", "n3", "unfit"), Map.of("n1", 41.0, "n2", 43.8, "n3", 44.2)))
        .containsExactly(
            new HostPriority("n1", 4),
            new HostPriority("n2", 4),
            new HostPriority("n3", 10),
            new HostPriority("unfit", 0));
  }

  @Test
  void nodesTiedWithTheBestStepBelowIt() {
    assertThat(
            KubeProtocol.priorities(
                List.of("b", "a", "c"), Map.of("a", 60.0, "b", 60.0, "c", 99.0)))
        .as("c is the best; the tie between a and b does not matter below it")
        .containsExactly(
            new HostPriority("b", 6), new HostPriority("a", 6), new HostPriority("c", 10));
    assertThat(KubeProtocol.priorities(List.of("b", "a"), Map.of("a", 99.0, "b", 99.0)))
        .as("a tie at the top goes to the node named first, as the engine breaks it")
        .containsExactly(new HostPriority("b", 9), new HostPriority("a", 10));
  }
}
