package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** What a watch by node is sent, from which version, as the API server's watch cache sends it. */
class NodePodWatchesTest {

  private final AtomicLong version = new AtomicLong(100);
  private final NodePodWatches watches = new NodePodWatches(2, version::incrementAndGet);

  @Test
  void aWatchFromAVersionGetsTheLaterChangesOfItsNodesPodsAsAddedModifiedAndDeleted() {
    watches.changed(null, pod("p", 1, null));
    watches.changed(pod("p", 1, null), pod("p", 2, "n1"));
    Socket n1 = open("n1", "1");
    Socket n2 = open("n2", "1");

    watches.changed(pod("p", 2, "n1"), pod("p", 3, "n1"));
    watches.changed(pod("p", 3, "n1"), null);

    assertThat(n1.sent)
        .containsExactly(
            "ADDED p 2",
            "MODIFIED p 3",
            "DELETED p 101"); // a deletion carries the version the API server gave it
    assertThat(n2.sent).isEmpty();
  }

  @Test
  void aWatchFromNoVersionGetsThePodsAsTheyAre() {
    watches.changed(null, pod("p", 1, null));
    watches.changed(pod("p", 1, null), pod("p", 2, "n1"));
    watches.changed(null, pod("q", 3, "n2"));

    assertThat(open("n1", "0").sent).containsExactly("ADDED p 2");
    assertThat(open("n1", null).sent).containsExactly("ADDED p 2");
  }

  @Test
  void aWatchFromAVersionOlderThanTheChangesKeptIsToldToListAgain() {
    watches.changed(null, pod("p", 1, "n1"));
    watches.changed(pod("p", 1, "n1"), pod("p", 2, "n1"));
    watches.changed(pod("p", 2, "n1"), pod("p", 3, "n1")); // keeps the changes to 2 and 3

    assertThat(open("n1", "1").sent).containsExactly("MODIFIED p 2", "MODIFIED p 3");

    watches.changed(pod("p", 3, "n1"), pod("p", 4, "n1")); // the change to 2 is forgotten
    Socket tooOld = open("n1", "1");
    assertThat(tooOld.sent).containsExactly("ERROR 410");
    assertThat(tooOld.closed).isTrue();
    assertThat(open("n1", "2").sent).containsExactly("MODIFIED p 3", "MODIFIED p 4");

    watches.changed(pod("p", 4, "n1"), pod("p", 5, "n1"));
    assertThat(tooOld.sent).containsExactly("ERROR 410"); // it is no longer a watch
  }

  @Test
  void aVersionThatIsNoNumberIsABadRequest() {
    Socket bad = open("n1", "x");

    assertThat(bad.sent).containsExactly("ERROR 400");
    assertThat(bad.closed).isTrue();
  }

  /** A pod's JSON as the API server stores it. */
  private static String pod(String name, long resourceVersion, String node) {
    return "{\"kind\":\"Pod\",\"metadata\":{\"name\":\""
        + name
        + "\",\"uid\":\"uid-"
        + name
        + "\",\"resourceVersion\":\""
        + resourceVersion
        + "\"},\"spec\":{"
        + (node == null ? "" : "\"nodeName\":\"" + node + "\"")
        + "}}";
  }

  private Socket open(String node, String resourceVersion) {
    Socket socket = new Socket();
    watches.open(node, resourceVersion).getWebSocketListener().onOpen(socket, null);
    return socket;
  }

  /** A client's end: each event as "TYPE name resourceVersion", or "ERROR code". */
  private static final class Socket implements WebSocket {
    final List<String> sent = new ArrayList<>();
    boolean closed;

    @Override
    public RecordedRequest request() {
      return null;
    }

    @Override
    public boolean send(String text) {
      String type = text.replaceAll("^\\{\"type\":\"([A-Z]+)\".*", "$1");
      sent.add(
          type.equals("ERROR")
              ? "ERROR " + text.replaceAll(".*\"code\":(\\d+).*", "$1")
              : type
                  + " "
                  + text.replaceAll(".*\"name\":\"([^\"]+)\".*", "$1")
                  + " "
                  + text.replaceAll(".*\"resourceVersion\":\"(\\d+)\".*", "$1"));
      return true;
    }

    @Override
    public boolean send(byte[] bytes) {
      throw new UnsupportedOperationException();
    }

    @Override
    public boolean close(int code, String reason) {
      closed = true;
      return true;
    }
  }
}
