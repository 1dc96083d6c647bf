package org.vnpu.scheduler;

import java.io.InputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * Reads one request's body as it arrives, without holding a thread while the client is silent:
 * Jetty calls back when bytes come ({@code Request.demand}). Every chunk is charged to the port's
 * {@link RequestBudget} before it is kept, a body past its verb's limit stops at that limit, and
 * the whole body must arrive within {@link #deadline}: {@link #GRACE} plus its length at {@link
 * #MIN_BYTES_PER_SECOND}. A client that sends a byte every few seconds is answered 408 when its
 * deadline passes and holds, until then, a connection and the bytes it sent.
 */
final class BodyReader implements Runnable {

  static final Duration GRACE = Duration.ofSeconds(5);
  static final long MIN_BYTES_PER_SECOND = 1L << 20;

  /** How reading ended: with the body, or with a refusal to send. */
  interface Outcome {
    void body(InputStream body);

    void refused(int status, String reason);
  }

  private final Request request;
  private final int maxBody;
  private final boolean keep;
  private final RequestBudget.Charge charge;
  private final Outcome outcome;
  private final AtomicBoolean finished = new AtomicBoolean();
  private final BodyBlocks body = new BodyBlocks();
  private Scheduler.Task timeout;
  private long received;

  /**
   * @param maxBody the most bytes read; past it the reading stops with 413
   * @param keep false to read and drop the body (charging nothing), as for a body refused unread
   */
  private BodyReader(
      Request request, int maxBody, boolean keep, RequestBudget.Charge charge, Outcome outcome) {
    this.request = request;
    this.maxBody = maxBody;
    this.keep = keep;
    this.charge = charge;
    this.outcome = outcome;
  }

  /** Starts reading; {@code outcome} is told once, on a Jetty thread. */
  static void read(
      Request request, int maxBody, boolean keep, RequestBudget.Charge charge, Outcome outcome) {
    BodyReader reader = new BodyReader(request, maxBody, keep, charge, outcome);
    Duration deadline = deadline(request.getLength(), maxBody);
    reader.timeout =
        request
            .getComponents()
            .getScheduler()
            .schedule(reader::expire, deadline.toMillis(), TimeUnit.MILLISECONDS);
    reader.run();
  }

  /** How long a body of {@code declared} bytes (-1: unknown, at most {@code maxBody}) may take. */
  static Duration deadline(long declared, int maxBody) {
    long bytes = declared >= 0 ? Math.min(declared, maxBody) : maxBody;
    return GRACE.plusMillis(bytes * 1000 / MIN_BYTES_PER_SECOND);
  }

  @Override
  public void run() {
    while (!finished.get()) {
      Content.Chunk chunk = request.read();
      if (chunk == null) {
        request.demand(this);
        return;
      }
      if (Content.Chunk.isFailure(chunk)) {
        finish(() -> outcome.refused(400, "the body did not arrive: " + chunk.getFailure()));
        return;
      }
      ByteBuffer bytes = chunk.getByteBuffer();
      int size = bytes.remaining();
      if (received + size > maxBody) {
        chunk.release();
        finish(() -> outcome.refused(413, "request body exceeds " + (maxBody >> 10) + " KiB"));
        return;
      }
      if (keep && !charge.add(size)) {
        chunk.release();
        finish(() -> outcome.refused(503, "too many large requests in flight"));
        return;
      }
      received += size;
      if (keep) {
        body.add(bytes);
      }
      boolean last = chunk.isLast();
      chunk.release();
      if (last) {
        finish(() -> outcome.body(body.stream()));
        return;
      }
    }
  }

  private void expire() {
    finish(
        () ->
            outcome.refused(
                408,
                "the body did not arrive in time: "
                    + received
                    + " of "
                    + request.getLength()
                    + " bytes in "
                    + deadline(request.getLength(), maxBody).toSeconds()
                    + " s (at least "
                    + (MIN_BYTES_PER_SECOND >> 10)
                    + " KiB/s after "
                    + GRACE.toSeconds()
                    + " s)"));
  }

  /** Tells the outcome once, whoever finishes first: the body, a refusal or the deadline. */
  private void finish(Runnable tell) {
    if (finished.compareAndSet(false, true)) {
      timeout.cancel();
      tell.run();
    }
  }
}
