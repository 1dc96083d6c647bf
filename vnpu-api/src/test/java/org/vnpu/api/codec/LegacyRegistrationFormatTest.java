package org.vnpu.api.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.vnpu.api.SplitMode;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;

class LegacyRegistrationFormatTest {

  private final PayloadCodec codec = new PayloadCodec();

  @Test
  void readsOpenFuyaoRegisterValueOfTwoChips() {
    NodeRegistration registration =
        codec.decodeRegistration(
            "0,VDIE-aa,2,21527,NPU-ASCEND-310P3,true,0:1,VDIE-ab,2,21527,NPU-ASCEND-310P3,false,1:");

    assertThat(registration.splitMode()).isEqualTo(SplitMode.SOFT);
    assertThat(registration.maxSharesPerChip()).isEqualTo(2);
    assertThat(registration.chips())
        .containsExactly(
            new RegisteredChip(0, "VDIE-aa", "310P3", 21527, 0, 0, true, 0, ""),
            new RegisteredChip(1, "VDIE-ab", "310P3", 21527, 0, 0, false, 1, ""));
  }

  @Test
  void acceptsGoStyleBooleansAndMissingTrailingColon() {
    NodeRegistration registration = codec.decodeRegistration("3,D3,4,65536,NPU-ASCEND-910B3,T,-1");
    assertThat(registration.chips().get(0).healthy()).isTrue();
    assertThat(registration.chips().get(0).numaNode()).isEqualTo(-1);
  }

  @Test
  void rejectsEntryWithWrongFieldCountNamingTheChip() {
    assertThatThrownBy(
            () -> codec.decodeRegistration("0,D0,2,21527,NPU-ASCEND-310P3,true,0:1,D1,2:"))
        .isInstanceOf(MalformedPayloadException.class)
        .hasMessage(
            "huawei.com/node-vnpu-register: legacy format, chip 2 (\"1,D1,2\"): has 3 fields,"
                + " expected 7 (index,dieID,count,memMB,type,health,numa)");
  }

  @Test
  void rejectsNonNumericMemory() {
    assertThatThrownBy(() -> codec.decodeRegistration("0,D0,2,lots,NPU-ASCEND-310P3,true,0:"))
        .hasMessageEndingWith("memMB \"lots\" is not a whole number");
  }

  @Test
  void rejectsUnreadableHealth() {
    assertThatThrownBy(() -> codec.decodeRegistration("0,D0,2,1024,NPU-ASCEND-310P3,ok,0:"))
        .hasMessageEndingWith("health \"ok\" is not true or false");
  }

  @Test
  void rejectsDifferentShareCountsOnOneNode() {
    assertThatThrownBy(
            () ->
                codec.decodeRegistration(
                    "0,D0,2,1024,NPU-ASCEND-310P3,true,0:1,D1,4,1024,NPU-ASCEND-310P3,true,0:"))
        .hasMessageEndingWith(
            "count 4 differs from the first chip's 2; vNPU takes one share count per node");
  }

  @Test
  void rejectsDuplicateDieIds() {
    assertThatThrownBy(
            () ->
                codec.decodeRegistration(
                    "0,D0,2,1024,NPU-ASCEND-310P3,true,0:1,D0,2,1024,NPU-ASCEND-310P3,true,0:"))
        .hasMessage("huawei.com/node-vnpu-register: legacy format: chips: dieId D0 appears twice");
  }

  @Test
  void rejectsValueWithoutChips() {
    assertThatThrownBy(() -> codec.decodeRegistration(" : "))
        .hasMessage("huawei.com/node-vnpu-register: legacy format lists no chips: \" : \"");
  }
}
