package org.vnpu.scheduler;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.filter.FilteringParserDelegate;
import com.fasterxml.jackson.core.filter.TokenFilter;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;

/**
 * The parts of a request body a verb reads, as paths of field names ({@code node/Tasks/ * /UID},
 * {@code *} for any field or element); a JSON parser filtered by it builds only those, however
 * large the body. Volcano's predicate and prioritize send whole {@code NodeInfo}s, each with every
 * task on its node and that task's pod, of which the extender reads names and statuses: parsed
 * whole, a prioritize over a hundred nodes took tens of megabytes.
 */
final class KeptFields extends TokenFilter {

  private static final String ANY = "*";

  private final Map<String, KeptFields> children = new HashMap<>();

  private KeptFields() {}

  /** The fields under each of {@code paths}, each path's last field whole. */
  static KeptFields of(String... paths) {
    KeptFields root = new KeptFields();
    for (String path : paths) {
      KeptFields at = root;
      for (String field : path.split("/")) {
        at = at.children.computeIfAbsent(field, f -> new KeptFields());
      }
    }
    return root;
  }

  /** The fields of {@code body} this keeps, as a tree; an empty object when it keeps none. */
  JsonNode read(ObjectMapper json, InputStream body) throws IOException {
    try (JsonParser parser =
        new FilteringParserDelegate(
            json.createParser(body), this, TokenFilter.Inclusion.INCLUDE_ALL_AND_PATH, true)) {
      JsonNode tree = json.readTree(parser);
      return tree == null || tree.isMissingNode() ? json.createObjectNode() : tree;
    }
  }

  @Override
  public TokenFilter includeProperty(String name) {
    return descend(children.containsKey(name) ? children.get(name) : children.get(ANY));
  }

  @Override
  public TokenFilter includeElement(int index) {
    return descend(children.get(ANY));
  }

  @Override
  protected boolean _includeScalar() {
    return false;
  }

  private static TokenFilter descend(KeptFields child) {
    if (child == null) {
      return null;
    }
    return child.children.isEmpty() ? TokenFilter.INCLUDE_ALL : child;
  }
}
