package org.vnpu.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Prometheus text format as an exporter writes it; what is not that format is refused. */
class MetricsOptionTest {

  @Test
  void readsLabelsWithEscapesTimestampsAndInfinities() {
    List<MetricsOption.Sample> samples =
        MetricsOption.parse(
            "exporter",
            """
            # HELP vnpu_chip_info always 1
            # TYPE vnpu_chip_info gauge
            vnpu_chip_info{node="a2",model="910B3",note="a\\"b\\\\c\\nd"} 1
            vnpu_exporter_collect_duration_seconds_bucket{le="+Inf"} +Inf 1700000000000

            up 1
            """);

    assertThat(samples)
        .containsExactly(
            new MetricsOption.Sample(
                "vnpu_chip_info", Map.of("node", "a2", "model", "910B3", "note", "a\"b\\c\nd"), 1),
            new MetricsOption.Sample(
                "vnpu_exporter_collect_duration_seconds_bucket",
                Map.of("le", "+Inf"),
                Double.POSITIVE_INFINITY),
            new MetricsOption.Sample("up", Map.of(), 1));
  }

  @Test
  void aLineThatIsNotTheFormatIsRefusedByName() {
    assertThatThrownBy(() -> MetricsOption.parse("http://x/metrics", "<html>not found</html>"))
        .isInstanceOf(InputException.class)
        .hasMessage(
            "--metrics http://x/metrics: not the Prometheus text format: <html>not found</html>");
    assertThatThrownBy(() -> MetricsOption.parse("e", "vnpu_chip_info{node=\"a2} 1"))
        .hasMessageContaining("not the Prometheus text format");
  }
}
