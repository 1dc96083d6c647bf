package org.vnpu.deviceplugin.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class AllocateLogTest {

  @Test
  void aLoggedCallIsReadBackWithEachContainersIdsAsShown() {
    List<String> many = IntStream.range(0, 30).mapToObj(i -> "die-1-core" + i).toList();
    String line = AllocateLog.line("huawei.com/vnpu-cores", List.of(many, List.of("die-0-core7")));

    AllocateLog.Call call =
        AllocateLog.parse("[grpc-default-executor-1] INFO DevicePluginService - " + line)
            .orElseThrow();

    assertThat(call.resource()).isEqualTo("huawei.com/vnpu-cores");
    assertThat(call.shownPerContainer())
        .containsExactly(AllocateLog.shown(many), AllocateLog.shown(List.of("die-0-core7")));
    assertThat(AllocateLog.shown(many)).isEqualTo("30 [die-1-core0, die-1-core1, die-1-core10]...");
    assertThat(AllocateLog.count(call.shownPerContainer().get(0))).isEqualTo(30);
    assertThat(AllocateLog.count(call.shownPerContainer().get(1))).isEqualTo(1);
    assertThat(AllocateLog.count("[]")).isZero();
  }

  @Test
  void otherLinesAreNotCalls() {
    assertThat(AllocateLog.parse("Allocate refused: no allocation for pod default/x")).isEmpty();
    assertThat(AllocateLog.parse("")).isEmpty();
  }
}
