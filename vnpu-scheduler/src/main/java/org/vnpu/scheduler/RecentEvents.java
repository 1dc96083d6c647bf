package org.vnpu.scheduler;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The events recorded lately, so that the same message for the same pod is not repeated within
 * {@link #QUIET}. It remembers the last {@value #REMEMBERED} events, as client-go's event
 * correlator does ({@code tools/record/events_cache.go}, {@code maxLruCacheEntries}): each event
 * costs the same however many came before it, and a flood of distinct messages takes bounded
 * memory; an event pushed out by that many newer ones may be repeated. Thread-safe.
 */
final class RecentEvents {

  static final Duration QUIET = Duration.ofMinutes(1);
  static final int REMEMBERED = 4096;

  /** When each event was last recorded, in that order: the eldest goes first. */
  private final Map<String, Instant> recorded =
      new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Instant> eldest) {
          return size() > REMEMBERED;
        }
      };

  /**
   * Whether the event {@code reason} with {@code message} on pod {@code podUid} is to be recorded
   * {@code now}: not when the same was recorded less than {@link #QUIET} ago. When it is, it counts
   * as recorded now.
   */
  synchronized boolean record(String podUid, String reason, String message, Instant now) {
    String key = podUid + "\n" + reason + "\n" + message;
    Instant last = recorded.get(key);
    if (last != null && now.isBefore(last.plus(QUIET))) {
      return false;
    }
    recorded.remove(key); // put back as the newest
    recorded.put(key, now);
    return true;
  }
}
