package org.vnpu.core.request;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class QuantityTest {

  @ParameterizedTest
  @CsvSource({"500m,500", "2,2000", "1.5,1500", "0.1,100", ".25,250", "100n,1", "1e3,1000000"})
  void readsCpuInMillicoresRoundedUp(String text, long milli) {
    assertThat(Quantity.parse(text).milliRoundedUp()).isEqualTo(milli);
  }

  @ParameterizedTest
  @CsvSource({
    "1Gi,1024",
    "512Mi,512",
    "1G,954",
    "123456789,118",
    "1.5Ti,1572864",
    "2E,1907348632813"
  })
  void readsMemoryInMebibytesRoundedUp(String text, long mebibytes) {
    assertThat(Quantity.parse(text).mebibytesRoundedUp()).isEqualTo(mebibytes);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "abc", "Gi", "1.2.3", "5 Gi", "1Xi", "1e", "--1"})
  void refusesWhatIsNotAQuantityAndNamesIt(String text) {
    assertThatThrownBy(() -> Quantity.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"" + text + "\" is not a quantity");
  }

  @Test
  void toleratesSurroundingSpace() {
    assertThat(Quantity.parse(" 4 ").milliRoundedUp()).isEqualTo(4000);
  }

  @Test
  void refusesHugeExponentsAndLongTextsWithoutWorkingOnThem() {
    assertTimeoutPreemptively(
        Duration.ofSeconds(2),
        () -> {
          assertThatThrownBy(() -> Quantity.parse("1e99999999"))
              .hasMessage(
                  "\"1e99999999\" is not a quantity vNPU reads: its exponent is beyond ±18");
          assertThatThrownBy(() -> Quantity.parse("2E-0000000000000000000000000000009999"))
              .isInstanceOf(IllegalArgumentException.class);
          String digits = "9".repeat(100_000) + "x";
          assertThatThrownBy(() -> Quantity.parse(digits))
              .hasMessage(
                  "\"99999999999999999999...\" (100001 characters) is not a quantity: at most 64"
                      + " characters");
        });
    assertThat(Quantity.parse("1e18").value()).isEqualByComparingTo("1e18");
    assertThat(Quantity.parse("5e-3").milliRoundedUp()).isEqualTo(5);
  }
}
