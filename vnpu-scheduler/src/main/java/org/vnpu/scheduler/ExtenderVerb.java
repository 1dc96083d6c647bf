package org.vnpu.scheduler;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One verb of an extender protocol: its handler, and the largest body it reads (0: the body is
 * drained unread).
 */
record ExtenderVerb(int maxBody, Handler handler) {

  /**
   * Where a request may carry whole Node objects (kube-scheduler without nodeCacheCapable) or
   * Volcano's {@code NodeInfo}s, each with every task on its node and that task's whole pod: a node
   * of 110 pods of a few KB each makes one about 1 MB.
   */
  static final int NODE_LISTS = 10 << 20;

  /** A task and the name of a node. */
  static final int ONE_NODE = 1 << 20;

  /** Names only. */
  static final int SMALL = 64 << 10;

  interface Handler {
    Answer answer(JsonNode request) throws BadRequest;
  }

  /** The protocol's response record, and whether it says no in the protocol's terms. */
  record Answer(Object body, boolean refused) {}

  /** A request the protocol cannot carry out; HTTP 400 with this message. */
  static final class BadRequest extends Exception {
    private static final long serialVersionUID = 1L;

    BadRequest(String message) {
      super(message);
    }
  }
}
