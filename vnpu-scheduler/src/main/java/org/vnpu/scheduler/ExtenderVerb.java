package org.vnpu.scheduler;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One verb of an extender protocol: its handler, the largest body it reads (0: the body is drained
 * unread), and the parts of the body it reads (null: all of it).
 */
record ExtenderVerb(int maxBody, Handler handler, KeptFields kept) {

  ExtenderVerb(int maxBody, Handler handler) {
    this(maxBody, handler, null);
  }

  /** Memory a byte of its body takes while it is read and parsed ({@link RequestBudget}). */
  int expansion() {
    return kept == null ? RequestBudget.EXPANSION : RequestBudget.FILTERED_EXPANSION;
  }

  /**
   * Where a request may carry whole Node objects (kube-scheduler without nodeCacheCapable) or
   * Volcano's {@code NodeInfo}s, each with every task on its node and that task's whole pod: a node
   * of 110 pods of a few KB each makes one about 1 MB.
   */
  static final int NODE_LISTS = 10 << 20;

  /**
   * Volcano's node lists, of which only names and statuses are parsed ({@link KeptFields}): a
   * thousand nodes of a hundred tasks each send tens of megabytes; the request budget bounds what
   * they hold at once.
   */
  static final int FILTERED_NODE_LISTS = 64 << 20;

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
