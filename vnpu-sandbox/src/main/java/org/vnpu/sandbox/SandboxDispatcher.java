package org.vnpu.sandbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetList;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.HttpURLConnection;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.vnpu.kube.PodPhases;
import org.vnpu.kube.PodRequests;

/**
 * fabric8's CRUD mock API server, plus what the sandbox needs of a real one:
 *
 * <ul>
 *   <li>pod binding: {@code POST /api/v1/namespaces/NS/pods/NAME/binding} (kube-scheduler, Volcano)
 *       and {@code POST /api/v1/namespaces/NS/bindings} (fabric8's {@code bindings()}) set the
 *       pod's {@code spec.nodeName}; a pod bound elsewhere is refused with 409, a missing pod with
 *       404;
 *   <li>pod eviction: {@code POST /api/v1/namespaces/NS/pods/NAME/eviction} deletes the pod unless
 *       its PodDisruptionBudget allows no disruption (429), as {@code
 *       pkg/registry/core/pod/storage/eviction.go} {@code EvictionREST.Create} does ({@link
 *       #evict}); no controller updates a budget's status here, so the status its writer gives is
 *       what the eviction reads;
 *   <li>defaulting of created pods: a container that limits a resource without requesting it
 *       requests its limit ({@link PodRequests#defaultRequestsFromLimits});
 *   <li>ResourceSlices as the API server stores them: fields of feature gates that are off are
 *       dropped and the rules of {@code resource.k8s.io/v1} validation are checked ({@link
 *       ResourceSliceRules}); a slice that breaks one is refused with 422 naming the field; a list
 *       selects by the fields a real one offers, {@code spec.nodeName} and {@code spec.driver}
 *       ({@code resourceslice/strategy.go}, {@code toSelectableFields}), which the mock ignores;
 *   <li>discovery ({@code /api}, {@code /api/v1}, {@code /apis}, {@code
 *       /apis/coordination.k8s.io/v1}) of the resources the sandbox uses, so that kubectl can look
 *       inside;
 *   <li>pod watches selected by {@code spec.nodeName}, as kubelets open them ({@link
 *       NodePodWatches});
 *   <li>objects asked for by name found by their last known key ({@link #findResource}), not by a
 *       scan of every stored object.
 * </ul>
 */
final class SandboxDispatcher extends KubernetesCrudDispatcher {

  private static final Pattern POD_BINDING =
      Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)/binding");
  private static final Pattern BINDINGS = Pattern.compile("/api/v1/namespaces/([^/]+)/bindings");
  private static final Pattern POD_EVICTION =
      Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern PODS = Pattern.compile("/api/v1/namespaces/([^/]+)/pods");
  private static final Pattern POD_LISTS = Pattern.compile("/api/v1(/namespaces/[^/]+)?/pods");

  /** Where pods are created, changed and deleted: the collection, one pod, its status. */
  private static final Pattern POD_PATHS =
      Pattern.compile("/api/v1/namespaces/[^/]+/pods(/[^/?]+(/status)?)?(\\?.*)?");

  /**
   * How many changes of pods a watch by node can be served from, as the watch cache keeps a window
   * ({@code --default-watch-cache-size}); a burst's watches start before its pods and keep up.
   */
  private static final int WATCHED_CHANGES = 8192;

  private static final Pattern SLICES =
      Pattern.compile("/apis/resource\\.k8s\\.io/v1/resourceslices(/[^/]+)?");

  /** Discovery documents by path. */
  private static final Map<String, String> DISCOVERY =
      Map.of(
          "/api",
          """
          {"kind": "APIVersions", "versions": ["v1"],
           "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1"}]}
          """,
          "/api/v1",
          resources(
              "v1",
              resource("pods", "pod", "Pod", true, "po"),
              resource("pods/binding", "", "Binding", true, null),
              resource("pods/status", "", "Pod", true, null),
              resource("nodes", "node", "Node", false, "no"),
              resource("nodes/status", "", "Node", false, null),
              resource("events", "event", "Event", true, "ev"),
              resource("namespaces", "namespace", "Namespace", false, "ns")),
          "/apis",
          """
          {"kind": "APIGroupList", "apiVersion": "v1", "groups": [{"name": "coordination.k8s.io",
           "versions": [{"groupVersion": "coordination.k8s.io/v1", "version": "v1"}],
           "preferredVersion": {"groupVersion": "coordination.k8s.io/v1", "version": "v1"}}]}
          """,
          "/apis/coordination.k8s.io/v1",
          resources("coordination.k8s.io/v1", resource("leases", "lease", "Lease", true, null)));

  private static String resources(String groupVersion, String... resources) {
    return "{\"kind\": \"APIResourceList\", \"apiVersion\": \"v1\", \"groupVersion\": \""
        + groupVersion
        + "\", \"resources\": ["
        + String.join(", ", resources)
        + "]}";
  }

  private static String resource(
      String name, String singular, String kind, boolean namespaced, String shortName) {
    return "{\"name\": \""
        + name
        + "\", \"singularName\": \""
        + singular
        + "\", \"namespaced\": "
        + namespaced
        + ", \"kind\": \""
        + kind
        + "\", \"verbs\": [\"create\", \"delete\", \"get\", \"list\", \"patch\", \"update\", \"watch\"]"
        + (shortName == null ? "" : ", \"shortNames\": [\"" + shortName + "\"]")
        + "}";
  }

  /**
   * Every answer says it is JSON: clients that also accept protobuf (kubectl describe) otherwise
   * take a body without a content type for protobuf.
   */
  private final Consumer<RecordedRequest> observer;

  private final Set<String> offGates;
  private final NodePodWatches nodeWatches =
      new NodePodWatches(WATCHED_CHANGES, this::requestResourceVersion);

  /**
   * Where each object asked for by name was last found in the mock's store: the query's attributes
   * (kind, namespace, name) to the key it is stored under. The mock otherwise scans every stored
   * object for each read, update and patch by name; a key is checked against the store each time
   * and looked for again when it no longer matches.
   */
  private final Map<AttributeSet, AttributeSet> keys = new ConcurrentHashMap<>();

  /** The mock's read lock, once it was taken (its {@link #locked} hook tells). */
  private volatile Lock readLock;

  /**
   * @param observer sees every request before it is answered (an audit of who asked for what)
   * @param offGates feature gates that are off, whose fields are dropped as the API server does
   */
  SandboxDispatcher(Consumer<RecordedRequest> observer, Set<String> offGates) {
    this.observer = observer;
    this.offGates = Set.copyOf(offGates);
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    observer.accept(request);
    MockResponse response = route(request);
    if (response.getHeaders().header("Content-Type") == null) {
      response.setHeader("Content-Type", "application/json");
    }
    return response;
  }

  private MockResponse route(RecordedRequest request) {
    String path = request.getPath().split("\\?", 2)[0];
    if (request.method() == HttpMethod.GET && DISCOVERY.containsKey(path)) {
      return new MockResponse()
          .setResponseCode(HttpURLConnection.HTTP_OK)
          .setHeader("Content-Type", "application/json")
          .setBody(DISCOVERY.get(path));
    }
    if (request.method() == HttpMethod.POST && PODS.matcher(path).matches()) {
      return super.dispatch(defaulted(request));
    }
    if (POD_LISTS.matcher(path).matches()
        && request.method() == HttpMethod.GET
        && request.getPath().contains("watch=true")
        && request.getPath().contains("fieldSelector=spec.nodeName")) {
      return nodePodWatch(path, request);
    }
    if (POD_LISTS.matcher(path).matches()
        && request.method() == HttpMethod.GET
        && request.getPath().contains("fieldSelector=spec.nodeName")) {
      // kube-apiserver pkg/registry/core/pod/strategy.go ToSelectableFields: spec.nodeName among
      // others; the sandbox's clients select by spec.nodeName alone.
      return selected(path, request, Set.of("spec.nodeName"));
    }
    Matcher slices = SLICES.matcher(path);
    if (slices.matches()
        && request.method() == HttpMethod.GET
        && slices.group(1) == null
        && request.getPath().contains("fieldSelector=")) {
      return selected(path, request, Set.of("spec.nodeName", "spec.driver"));
    }
    if (slices.matches()
        && (request.method() == HttpMethod.POST && slices.group(1) == null
            || request.method() == HttpMethod.PUT && slices.group(1) != null)) {
      return storeSlice(path, request);
    }
    if (request.method() == HttpMethod.POST) {
      Matcher podBinding = POD_BINDING.matcher(path);
      if (podBinding.matches()) {
        return bind(podBinding.group(1), podBinding.group(2), request);
      }
      Matcher bindings = BINDINGS.matcher(path);
      if (bindings.matches()) {
        return bind(bindings.group(1), null, request);
      }
      Matcher eviction = POD_EVICTION.matcher(path);
      if (eviction.matches()) {
        return evict(eviction.group(1), eviction.group(2), request);
      }
    }
    return super.dispatch(request);
  }

  /**
   * A pod's create request with the API server's defaulting applied to the pod (reading a request's
   * body consumes it, so the answer is always a new request).
   */
  private static RecordedRequest defaulted(RecordedRequest request) {
    String body = request.getUtf8Body();
    try {
      Pod pod = Serialization.unmarshal(body, Pod.class);
      if (pod != null && pod.getSpec() != null) {
        PodRequests.defaultRequestsFromLimits(pod);
        body = Serialization.asJson(pod);
      }
    } catch (RuntimeException e) {
      // not a pod: the CRUD dispatcher answers it as it would
    }
    return new RecordedRequest(
        request.getHttpVersion(),
        request.method(),
        request.getPath(),
        request.getHeaders(),
        new Buffer(body.getBytes(StandardCharsets.UTF_8)));
  }

  /**
   * A ResourceSlice created or replaced as the API server's strategy does it ({@code
   * resourceslice/strategy.go}: {@code PrepareForCreate}/{@code PrepareForUpdate} drop the fields
   * of gates that are off, then {@code Validate}/{@code ValidateUpdate}).
   */
  private synchronized MockResponse storeSlice(String path, RecordedRequest request) {
    ResourceSlice slice;
    try {
      slice = Serialization.unmarshal(request.getUtf8Body(), ResourceSlice.class);
    } catch (RuntimeException e) {
      return status(HttpURLConnection.HTTP_BAD_REQUEST, "BadRequest", "not a ResourceSlice");
    }
    ResourceSlice stored = null;
    if (request.method() == HttpMethod.PUT) {
      MockResponse current = handleGet(path);
      if (current.code() == HttpURLConnection.HTTP_OK) {
        stored =
            Serialization.unmarshal(
                current.getBody().readString(StandardCharsets.UTF_8), ResourceSlice.class);
      }
    }
    if (slice.getSpec() != null) {
      ResourceSliceRules.dropDisabledFields(slice, stored, offGates);
    }
    List<String> violations = ResourceSliceRules.violations(slice);
    if (!violations.isEmpty()) {
      String name = slice.getMetadata() == null ? "" : slice.getMetadata().getName();
      return status(
          422,
          "Invalid",
          "ResourceSlice.resource.k8s.io \""
              + name
              + "\" is invalid: "
              + String.join(", ", violations));
    }
    return super.dispatch(
        new RecordedRequest(
            request.getHttpVersion(),
            request.method(),
            request.getPath(),
            request.getHeaders(),
            new Buffer(Serialization.asJson(slice).getBytes(StandardCharsets.UTF_8))));
  }

  /**
   * A list selected by field, as the API server selects it: only the fields that kind offers
   * ({@code fields}, e.g. {@code spec.nodeName}), each {@code name=value}, all of them to match.
   */
  private MockResponse selected(String path, RecordedRequest request, Set<String> fields) {
    Map<String, String> wanted = new HashMap<>();
    String unknown = fieldSelector(request.getPath(), fields, wanted);
    if (unknown != null) {
      return status(HttpURLConnection.HTTP_BAD_REQUEST, "BadRequest", unknown);
    }
    MockResponse all = handleGet(path);
    if (all.code() != HttpURLConnection.HTTP_OK) {
      return all;
    }
    JsonNode list;
    try {
      list = JSON.readTree(all.getBody().readString(StandardCharsets.UTF_8));
    } catch (JsonProcessingException e) {
      return status(HttpURLConnection.HTTP_INTERNAL_ERROR, "InternalError", e.getMessage());
    }
    ArrayNode kept = JsonNodeFactory.instance.arrayNode();
    for (JsonNode item : list.path("items")) {
      boolean match = true;
      for (Map.Entry<String, String> field : wanted.entrySet()) {
        JsonNode value = item.at("/" + field.getKey().replace('.', '/'));
        match &= value.isTextual() && value.asText().equals(field.getValue());
      }
      if (match) {
        kept.add(item);
      }
    }
    ((ObjectNode) list).set("items", kept);
    return new MockResponse().setResponseCode(HttpURLConnection.HTTP_OK).setBody(list.toString());
  }

  /**
   * Reads the field selector of {@code pathAndQuery} into {@code terms}, each {@code name=value};
   * the reason it cannot be served when a term is not {@code name=value} or names a field the kind
   * does not offer ({@code fields}), else null.
   */
  private static String fieldSelector(
      String pathAndQuery, Set<String> fields, Map<String, String> terms) {
    String selector = queryParameter(pathAndQuery, "fieldSelector");
    for (String term : selector == null ? new String[0] : selector.split(",")) {
      String[] pair = term.split("=", 2);
      if (pair.length != 2 || !fields.contains(pair[0])) {
        return "\""
            + term
            + "\" is not a known field selector: only "
            + fields.stream().sorted().map(f -> "\"" + f + "\"").toList();
      }
      terms.put(pair[0], pair[1]);
    }
    return null;
  }

  /**
   * A watch of every namespace's pods selected by {@code spec.nodeName}, as a kubelet opens it
   * ({@link NodePodWatches}); the selector may name nothing else, and no labels.
   */
  private MockResponse nodePodWatch(String path, RecordedRequest request) {
    Map<String, String> terms = new HashMap<>();
    String unknown = fieldSelector(request.getPath(), Set.of("spec.nodeName"), terms);
    if (unknown != null
        || !path.equals("/api/v1/pods")
        || request.getPath().contains("labelSelector=")) {
      return status(
          HttpURLConnection.HTTP_BAD_REQUEST,
          "BadRequest",
          "the sandbox's API server watches pods by node only as a kubelet does: every namespace,"
              + " fieldSelector=spec.nodeName=NODE alone"
              + (unknown == null ? "" : "; " + unknown));
    }
    return nodeWatches.open(
        terms.get("spec.nodeName"), queryParameter(request.getPath(), "resourceVersion"));
  }

  /** The decoded value of the query parameter {@code name} of {@code pathAndQuery}, else null. */
  private static String queryParameter(String pathAndQuery, String name) {
    String[] parts = pathAndQuery.split("\\?", 2);
    for (String parameter : parts.length < 2 ? new String[0] : parts[1].split("&")) {
      if (parameter.startsWith(name + "=")) {
        return URLDecoder.decode(parameter.substring(name.length() + 1), StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  /** The object {@code query} names, found by its last known key; else as the mock finds it. */
  @Override
  public Map.Entry<AttributeSet, String> findResource(AttributeSet query) {
    AttributeSet key = keys.get(query);
    String stored = key == null ? null : map.get(key);
    if (stored != null && key.matches(query)) {
      return new AbstractMap.SimpleImmutableEntry<>(key, stored);
    }
    Map.Entry<AttributeSet, String> found = super.findResource(query);
    if (found != null && query.containsKey(KubernetesAttributesExtractor.NAME)) {
      keys.put(query, found.getKey());
    } else {
      keys.remove(query);
    }
    return found;
  }

  /** A read of one object by name finds it by key ({@link #findResource}), under the read lock. */
  @Override
  public MockResponse handleGet(String path) {
    Lock lock = readLock;
    AttributeSet query = path.contains("?") || lock == null ? null : getKey(path);
    if (query == null || !query.containsKey(KubernetesAttributesExtractor.NAME)) {
      return super.handleGet(path);
    }
    lock.lock();
    try {
      Map.Entry<AttributeSet, String> found = findResource(query);
      return found == null
          ? new MockResponse().setResponseCode(HttpURLConnection.HTTP_NOT_FOUND)
          : new MockResponse().setResponseCode(HttpURLConnection.HTTP_OK).setBody(found.getValue());
    } finally {
      lock.unlock();
    }
  }

  @Override
  protected void locked(Lock lock) {
    if (readLock == null && lock instanceof ReentrantReadWriteLock.ReadLock) {
      readLock = lock;
    }
  }

  /**
   * Every stored change, as the mock's watches see it; the changes of pods also go to the watches
   * by node ({@link NodePodWatches}).
   */
  @Override
  public void processEvent(
      String path,
      AttributeSet pathAttributes,
      AttributeSet oldAttributes,
      GenericKubernetesResource resource,
      String newState) {
    String before = oldAttributes == null ? null : map.get(oldAttributes);
    super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
    if (POD_PATHS.matcher(path).matches()) {
      nodeWatches.changed(before, newState);
    }
  }

  /**
   * {@code pkg/registry/core/pod/storage/storage.go}, {@code setPodHostAndAnnotations}: the node is
   * set and the binding's annotations are merged onto the pod's (Volcano's binder sends the pod's
   * annotations as its cache had them).
   */
  private static String bindingPatch(String node, Pod pod, Map<String, String> annotations) {
    ArrayNode ops = JSON.createArrayNode();
    ops.addObject().put("op", "add").put("path", "/spec/nodeName").put("value", node);
    if (annotations != null && !annotations.isEmpty()) {
      if (pod.getMetadata().getAnnotations() == null) {
        ObjectNode all = ops.addObject().put("op", "add").put("path", "/metadata/annotations");
        all.set("value", JSON.valueToTree(annotations));
      } else {
        annotations.forEach(
            (key, value) ->
                ops.addObject()
                    .put("op", "add")
                    .put(
                        "path",
                        "/metadata/annotations/" + key.replace("~", "~0").replace("/", "~1"))
                    .put("value", value));
      }
    }
    return ops.toString();
  }

  private synchronized MockResponse bind(String namespace, String name, RecordedRequest request) {
    Binding binding;
    try {
      binding = Serialization.unmarshal(request.getUtf8Body(), Binding.class);
    } catch (RuntimeException e) {
      return status(HttpURLConnection.HTTP_BAD_REQUEST, "BadRequest", "binding is not JSON");
    }
    String pod = name != null ? name : binding.getMetadata().getName();
    if (binding.getTarget() == null || binding.getTarget().getName() == null || pod == null) {
      return status(
          HttpURLConnection.HTTP_BAD_REQUEST,
          "BadRequest",
          "binding needs metadata.name and target.name");
    }
    String node = binding.getTarget().getName();
    String podPath = "/api/v1/namespaces/" + namespace + "/pods/" + pod;
    MockResponse current = handleGet(podPath);
    if (current.code() != HttpURLConnection.HTTP_OK) {
      return status(HttpURLConnection.HTTP_NOT_FOUND, "NotFound", "pods \"" + pod + "\" not found");
    }
    Pod existing =
        Serialization.unmarshal(current.getBody().readString(StandardCharsets.UTF_8), Pod.class);
    String boundTo = existing.getSpec() == null ? null : existing.getSpec().getNodeName();
    if (boundTo != null) {
      return status(
          HttpURLConnection.HTTP_CONFLICT,
          "Conflict",
          "pod " + pod + " is already assigned to node \"" + boundTo + "\"");
    }
    String patch = bindingPatch(node, existing, binding.getMetadata().getAnnotations());
    MockResponse patched =
        handlePatch(
            new RecordedRequest(
                "HTTP/1.1",
                HttpMethod.PATCH,
                podPath,
                Headers.builder().add("Content-Type", "application/json-patch+json").build(),
                new Buffer(patch.getBytes(StandardCharsets.UTF_8))));
    if (patched.code() != HttpURLConnection.HTTP_OK) {
      return patched;
    }
    return new MockResponse()
        .setResponseCode(HttpURLConnection.HTTP_CREATED)
        .setBody(
            Serialization.asJson(new StatusBuilder().withStatus("Success").withCode(201).build()));
  }

  /**
   * The eviction subresource, step by step as {@code EvictionREST.Create}
   * (pkg/registry/core/pod/storage/eviction.go): the Eviction must name the pod of the URL; a pod
   * that is terminal, pending or being deleted is deleted without looking at budgets ({@code
   * canIgnorePDB}); otherwise the budgets of the namespace whose selector matches the pod's labels
   * are found ({@code getPodDisruptionBudgets}; an empty selector matches nothing); more than one
   * is a 500; with one, an unready pod of a budget that has its desired healthy pods is deleted
   * without a decrement, else {@code checkAndDecrement}: a budget whose status is older than its
   * generation, or that allows no disruption, refuses with 429, a negative allowance with 403;
   * otherwise the allowance drops by one, the pod is recorded in {@code disruptedPods}, and the pod
   * is deleted.
   */
  private synchronized MockResponse evict(String namespace, String name, RecordedRequest request) {
    Eviction eviction;
    try {
      eviction = Serialization.unmarshal(request.getUtf8Body(), Eviction.class);
    } catch (RuntimeException e) {
      return status(HttpURLConnection.HTTP_BAD_REQUEST, "BadRequest", "eviction is not JSON");
    }
    if (eviction.getMetadata() == null || !name.equals(eviction.getMetadata().getName())) {
      return status(
          HttpURLConnection.HTTP_BAD_REQUEST,
          "BadRequest",
          "name in URL does not match name in Eviction object");
    }
    String podPath = "/api/v1/namespaces/" + namespace + "/pods/" + name;
    MockResponse current = handleGet(podPath);
    if (current.code() != HttpURLConnection.HTTP_OK) {
      return status(
          HttpURLConnection.HTTP_NOT_FOUND, "NotFound", "pods \"" + name + "\" not found");
    }
    Pod pod =
        Serialization.unmarshal(current.getBody().readString(StandardCharsets.UTF_8), Pod.class);
    boolean ignoresBudgets =
        PodPhases.finished(pod)
            || "Pending".equals(PodPhases.of(pod))
            || pod.getMetadata().getDeletionTimestamp() != null;
    if (!ignoresBudgets) {
      List<PodDisruptionBudget> budgets = budgetsOf(pod);
      if (budgets.size() > 1) {
        return status(
            HttpURLConnection.HTTP_INTERNAL_ERROR,
            "InternalError",
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does"
                + " not support.");
      }
      if (budgets.size() == 1 && !(unready(pod) && hasDesiredHealthy(budgets.get(0)))) {
        MockResponse refused = checkAndDecrement(budgets.get(0), name);
        if (refused != null) {
          return refused;
        }
      }
    }
    MockResponse deleted = handleDelete(podPath);
    if (deleted.code() >= 300) {
      return deleted;
    }
    return new MockResponse()
        .setResponseCode(HttpURLConnection.HTTP_CREATED)
        .setBody(
            Serialization.asJson(new StatusBuilder().withStatus("Success").withCode(201).build()));
  }

  /** The budgets of the pod's namespace whose selector matches its labels. */
  private List<PodDisruptionBudget> budgetsOf(Pod pod) {
    MockResponse listed =
        handleGet(
            "/apis/policy/v1/namespaces/"
                + pod.getMetadata().getNamespace()
                + "/poddisruptionbudgets");
    if (listed.code() != HttpURLConnection.HTTP_OK) {
      return List.of();
    }
    PodDisruptionBudgetList list =
        Serialization.unmarshal(
            listed.getBody().readString(StandardCharsets.UTF_8), PodDisruptionBudgetList.class);
    Map<String, String> labels =
        pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    return list.getItems().stream()
        .filter(pdb -> pdb.getSpec() != null && matches(pdb.getSpec().getSelector(), labels))
        .toList();
  }

  /**
   * {@code metav1.LabelSelectorAsSelector(selector).Matches(labels)}, where a nil or empty selector
   * matches nothing (eviction.go: "it should match nothing, not everything").
   */
  private static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    Map<String, String> required =
        selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels();
    List<LabelSelectorRequirement> expressions =
        selector.getMatchExpressions() == null ? List.of() : selector.getMatchExpressions();
    if (required.isEmpty() && expressions.isEmpty()) {
      return false;
    }
    for (Map.Entry<String, String> label : required.entrySet()) {
      if (!label.getValue().equals(labels.get(label.getKey()))) {
        return false;
      }
    }
    for (LabelSelectorRequirement expression : expressions) {
      String value = labels.get(expression.getKey());
      List<String> values = expression.getValues() == null ? List.of() : expression.getValues();
      boolean holds =
          switch (expression.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            default -> false; // an invalid selector matches nothing
          };
      if (!holds) {
        return false;
      }
    }
    return true;
  }

  /** Not ready: no {@code Ready} condition that is {@code True} ({@code podutil.IsPodReady}). */
  private static boolean unready(Pod pod) {
    return pod.getStatus() == null
        || pod.getStatus().getConditions() == null
        || pod.getStatus().getConditions().stream()
            .noneMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static boolean hasDesiredHealthy(PodDisruptionBudget pdb) {
    PodDisruptionBudgetStatus status = pdb.getStatus();
    return status != null
        && status.getDesiredHealthy() != null
        && status.getCurrentHealthy() != null
        && status.getDesiredHealthy() > 0
        && status.getCurrentHealthy() >= status.getDesiredHealthy();
  }

  /** {@code checkAndDecrement}: the refusal, or null when the budget allowed it and was charged. */
  private MockResponse checkAndDecrement(PodDisruptionBudget pdb, String pod) {
    PodDisruptionBudgetStatus status =
        pdb.getStatus() == null ? new PodDisruptionBudgetStatus() : pdb.getStatus();
    long generation =
        pdb.getMetadata().getGeneration() == null ? 0 : pdb.getMetadata().getGeneration();
    long observed = status.getObservedGeneration() == null ? 0 : status.getObservedGeneration();
    int allowed = status.getDisruptionsAllowed() == null ? 0 : status.getDisruptionsAllowed();
    if (observed < generation || allowed == 0) {
      return status(
          429,
          "TooManyRequests",
          "Cannot evict pod as it would violate the pod's disruption budget.");
    }
    if (allowed < 0) {
      return status(
          HttpURLConnection.HTTP_FORBIDDEN,
          "Forbidden",
          "poddisruptionbudget \""
              + pdb.getMetadata().getName()
              + "\": pdb disruptions allowed is negative");
    }
    status.setDisruptionsAllowed(allowed - 1);
    Map<String, String> disrupted =
        status.getDisruptedPods() == null
            ? new HashMap<>()
            : new HashMap<>(status.getDisruptedPods());
    disrupted.put(pod, Instant.now().toString());
    status.setDisruptedPods(disrupted);
    pdb.setStatus(status);
    String path =
        "/apis/policy/v1/namespaces/"
            + pdb.getMetadata().getNamespace()
            + "/poddisruptionbudgets/"
            + pdb.getMetadata().getName()
            + "/status";
    handleUpdate(
        new RecordedRequest(
            "HTTP/1.1",
            HttpMethod.PUT,
            path,
            Headers.builder().add("Content-Type", "application/json").build(),
            new Buffer(Serialization.asJson(pdb).getBytes(StandardCharsets.UTF_8))));
    return null;
  }

  private static MockResponse status(int code, String reason, String message) {
    Status status =
        new StatusBuilder()
            .withStatus("Failure")
            .withCode(code)
            .withReason(reason)
            .withMessage(message)
            .build();
    return new MockResponse().setResponseCode(code).setBody(Serialization.asJson(status));
  }
}
