package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
 *       EvictionSubresource}); no controller updates a budget's status here, so the status its
 *       writer gives is what the eviction reads;
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
 *   <li>objects asked for by name found by their last known key ({@link IndexedCrudDispatcher}),
 *       not by a scan of every stored object.
 * </ul>
 */
final class SandboxDispatcher extends IndexedCrudDispatcher implements MockStore {

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

  /**
   * One route: requests of {@code method} whose path (without the query) matches {@code path} and
   * that {@code when} accepts are answered by {@code answer}, given the path's match.
   */
  private record Route(
      HttpMethod method,
      Pattern path,
      Predicate<RecordedRequest> when,
      BiFunction<RecordedRequest, Matcher, MockResponse> answer) {}

  private final Consumer<RecordedRequest> observer;
  private final NodePodWatches nodeWatches =
      new NodePodWatches(WATCHED_CHANGES, this::requestResourceVersion);
  private final List<Route> routes;

  /**
   * @param observer sees every request before it is answered (an audit of who asked for what)
   * @param offGates feature gates that are off, whose fields are dropped as the API server does
   */
  SandboxDispatcher(Consumer<RecordedRequest> observer, Set<String> offGates) {
    this.observer = observer;
    this.routes = routes(offGates);
  }

  /** The routes of what the sandbox adds to the mock, in the order they are tried. */
  private List<Route> routes(Set<String> offGates) {
    FieldSelection selection = new FieldSelection(this, nodeWatches);
    SliceStorage slices = new SliceStorage(this, offGates);
    BindingSubresource bindings = new BindingSubresource(this);
    EvictionSubresource evictions = new EvictionSubresource(this);
    Predicate<RecordedRequest> byNode = r -> r.getPath().contains("fieldSelector=spec.nodeName");
    return List.of(
        new Route(
            HttpMethod.GET,
            Pattern.compile("/api|/api/v1|/apis|/apis/coordination\\.k8s\\.io/v1"),
            r -> true,
            (r, m) -> json(Discovery.DOCUMENTS.get(m.group()))),
        new Route(HttpMethod.POST, PODS, r -> true, (r, m) -> super.dispatch(defaulted(r))),
        new Route(
            HttpMethod.GET,
            POD_LISTS,
            byNode.and(r -> r.getPath().contains("watch=true")),
            (r, m) -> selection.nodePodWatch(m.group(), r)),
        // kube-apiserver pkg/registry/core/pod/strategy.go ToSelectableFields: spec.nodeName among
        // others; the sandbox's clients select by spec.nodeName alone.
        new Route(
            HttpMethod.GET,
            POD_LISTS,
            byNode,
            (r, m) -> selection.selected(m.group(), r, Set.of("spec.nodeName"))),
        new Route(
            HttpMethod.GET,
            SLICES,
            r -> r.getPath().contains("fieldSelector="),
            (r, m) ->
                m.group(1) == null
                    ? selection.selected(m.group(), r, Set.of("spec.nodeName", "spec.driver"))
                    : super.dispatch(r)),
        new Route(
            HttpMethod.POST,
            SLICES,
            r -> true,
            (r, m) -> m.group(1) == null ? slices.store(m.group(), r) : super.dispatch(r)),
        new Route(
            HttpMethod.PUT,
            SLICES,
            r -> true,
            (r, m) -> m.group(1) != null ? slices.store(m.group(), r) : super.dispatch(r)),
        new Route(
            HttpMethod.POST,
            Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)/binding"),
            r -> true,
            (r, m) -> bindings.bind(m.group(1), m.group(2), r)),
        new Route(
            HttpMethod.POST,
            Pattern.compile("/api/v1/namespaces/([^/]+)/bindings"),
            r -> true,
            (r, m) -> bindings.bind(m.group(1), null, r)),
        new Route(
            HttpMethod.POST,
            Pattern.compile("/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction"),
            r -> true,
            (r, m) -> evictions.evict(m.group(1), m.group(2), r)));
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

  /**
   * The answer of the first route that takes the request, else the CRUD mock's. Every answer says
   * it is JSON: clients that also accept protobuf (kubectl describe) otherwise take a body without
   * a content type for protobuf.
   */
  private MockResponse route(RecordedRequest request) {
    String path = request.getPath().split("\\?", 2)[0];
    for (Route route : routes) {
      Matcher matcher = route.path().matcher(path);
      if (request.method() == route.method() && matcher.matches() && route.when().test(request)) {
        return route.answer().apply(request, matcher);
      }
    }
    return super.dispatch(request);
  }

  private static MockResponse json(String body) {
    return new MockResponse()
        .setResponseCode(HttpURLConnection.HTTP_OK)
        .setHeader("Content-Type", "application/json")
        .setBody(body);
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

  // ---- the store, as the routes use it (MockStore) ----

  @Override
  public MockResponse get(String path) {
    return handleGet(path);
  }

  @Override
  public MockResponse store(RecordedRequest request) {
    return super.dispatch(request);
  }

  @Override
  public MockResponse patch(RecordedRequest request) {
    return handlePatch(request);
  }

  @Override
  public MockResponse update(RecordedRequest request) {
    return handleUpdate(request);
  }

  @Override
  public MockResponse delete(String path) {
    return handleDelete(path);
  }

  /** The pods' changes also go to the watches by node ({@link NodePodWatches}). */
  @Override
  void changed(String path, String before, String after) {
    if (POD_PATHS.matcher(path).matches()) {
      nodeWatches.changed(before, after);
    }
  }
}
