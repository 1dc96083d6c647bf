package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Volcano's node lists are parsed for the names and statuses the extender reads, nothing more. */
class KeptFieldsTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode read(KeptFields kept, String body) throws Exception {
    return kept.read(JSON, new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aPrioritizeKeepsTheTasksPodAndTheNodesNamesAndDropsTheirTasks() throws Exception {
    String bigPod =
        "{\"metadata\":{\"name\":\"other\"},\"spec\":{\"x\":\"" + "y".repeat(10_000) + "\"}}";
    String body =
        "{\"task\":{\"Name\":\"t\",\"Pod\":{\"metadata\":{\"name\":\"mine\",\"uid\":\"u\"}}},"
            + "\"nodes\":[{\"Name\":\"n1\",\"Tasks\":{\"a\":{\"Pod\":"
            + bigPod
            + "}}},{\"Name\":\"n2\",\"Idle\":{\"cpu\":1}}]}";

    JsonNode tree = read(VolcanoProtocol.PrioritizeRequest.READ, body);

    assertThat(tree.toString())
        .isEqualTo(
            "{\"task\":{\"Pod\":{\"metadata\":{\"name\":\"mine\",\"uid\":\"u\"}}},"
                + "\"nodes\":[{\"Name\":\"n1\"},{\"Name\":\"n2\"}]}");
    assertThat(VolcanoProtocol.PrioritizeRequest.read(tree).nodes()).containsExactly("n1", "n2");
  }

  @Test
  void aPredicateKeepsTheStatusAndUidOfEachTaskOnTheNode() throws Exception {
    String body =
        "{\"task\":{\"Pod\":{\"metadata\":{\"name\":\"p\",\"uid\":\"u\"}}},"
            + "\"node\":{\"Name\":\"n1\",\"Tasks\":{\"a\":{\"UID\":\"v\",\"Status\":64,"
            + "\"Pod\":{\"spec\":{}}}}}}";

    VolcanoProtocol.PredicateRequest request =
        VolcanoProtocol.PredicateRequest.read(read(VolcanoProtocol.PredicateRequest.READ, body));

    assertThat(request.node()).isEqualTo("n1");
    assertThat(request.releasing()).containsExactly("v");
    assertThat(request.pod().uid()).isEqualTo("u");
  }

  @Test
  void aBodyWithNoneOfTheFieldsReadsAsAnEmptyObject() throws Exception {
    assertThat(read(KeptFields.of("task/Pod"), "{\"other\":1}").isEmpty()).isTrue();
  }
}
