package org.vnpu.exporter;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The Grafana dashboard asks only for metrics the exporter serves and docs/metrics.md lists. */
class DashboardTest {

  private static final Path DASHBOARD = Path.of("../deploy/grafana/vnpu-dashboard.json");
  private static final Path GOLDEN = Path.of("src/test/resources/golden/metrics.prom");
  private static final Path DOCS = Path.of("../docs/metrics.md");

  @Test
  void everyQueriedMetricIsServedAndDocumented() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    Set<String> queried = new TreeSet<>();
    collect(dashboard, queried);
    Set<String> served = new TreeSet<>();
    Matcher types = Pattern.compile("(?m)^# TYPE (\\S+) (\\S+)").matcher(Files.readString(GOLDEN));
    while (types.find()) {
      served.add(types.group(1));
    }
    served.add("vnpu_chip_power_watts"); // DCMI and npu-smi only; the golden node is simulated
    String docs = Files.readString(DOCS);

    assertThat(queried).isNotEmpty().isSubsetOf(served);
    served.forEach(
        metric ->
            assertThat(docs).as("docs/metrics.md lists %s", metric).contains("`" + metric + "`"));
  }

  private static void collect(JsonNode node, Set<String> metrics) {
    if (node.isObject() || node.isArray()) {
      node.forEach(child -> collect(child, metrics));
      node.properties()
          .forEach(
              field -> {
                if (field.getKey().equals("expr") || field.getKey().equals("query")) {
                  Matcher names =
                      Pattern.compile("vnpu_[a-z_]+").matcher(field.getValue().toString());
                  while (names.find()) {
                    metrics.add(names.group());
                  }
                }
              });
    }
  }
}
