package io.inferlens.api;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The catch-up benchmark of issue 34 against a running server (start it with the README's run
 * command): {@code HOURS} hours of the {@link DeliveryEndToEndTest#addFleet} fleet (a dozen
 * targets on every stack) remote-written as fast as the server takes them, in time order, as a
 * Prometheus replays its WAL. Meanwhile and for {@code AFTER_S} seconds after the last write it
 * asks {@code GET /api/v1/diagnoses} over the whole range every 250 ms, one request at a time.
 *
 * <p>usage: {@code java -cp api/target/test-classes:api/target/classes:$(cat
 * api/target/jmh.classpath) io.inferlens.api.CatchUpLoad URL [HOURS] [AFTER_S]} (the classpath
 * file is written by {@code scripts/jmh.sh api -l}). Prints the replay's samples and seconds,
 * the diagnoses latency (ms: p50, p99, max) during the replay and after it, and when the
 * evaluator had caught up: the first moment after the last write at which
 * {@code inferlens_evaluator_lag_seconds} was within 45 s of the data's end (the 25 s delivery
 * grace plus one step plus slack).
 */
public final class CatchUpLoad {

  private static final HttpClient HTTP = HttpClient.newBuilder()
      .connectTimeout(Duration.ofSeconds(5)).build();
  private static final Pattern LAG = Pattern.compile(
      "(?m)^inferlens_evaluator_lag_seconds(?:\\{[^}]*\\})? ([0-9.eE+-]+)$");

  private CatchUpLoad() {}

  /**
   * @param args URL, hours (default 26), seconds to keep asking after the last write (60)
   * @throws Exception if the server cannot be reached
   */
  public static void main(String[] args) throws Exception {
    URI base = URI.create(args[0]);
    double hours = args.length > 1 ? Double.parseDouble(args[1]) : 26;
    long afterS = args.length > 2 ? Long.parseLong(args[2]) : 60;
    long endMs = System.currentTimeMillis() / 15_000 * 15_000;
    long startMs = endMs - Math.round(hours * 3_600_000L);
    SimulatedWrites w = new SimulatedWrites(base);
    DeliveryEndToEndTest.addFleet(w, endMs, hours * 3600 - DeliveryEndToEndTest.DURATION_S, 17);
    URI diagnoses = base.resolve("/api/v1/diagnoses?start=" + startMs / 1000 + "&end="
        + (endMs / 1000 + 3600));
    List<Long> during = Collections.synchronizedList(new ArrayList<>());
    List<Long> after = Collections.synchronizedList(new ArrayList<>());
    AtomicBoolean replaying = new AtomicBoolean(true);
    AtomicBoolean stop = new AtomicBoolean(false);
    long[] caughtUpAt = {0};
    long startedAt = System.currentTimeMillis();
    long[] replayEnd = {0};
    Thread asker = new Thread(() -> {
      while (!stop.get()) {
        try {
          long t0 = System.nanoTime();
          HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(diagnoses).build(),
              HttpResponse.BodyHandlers.ofString());
          long ms = (System.nanoTime() - t0) / 1_000_000;
          if (r.statusCode() == 200) {
            (replaying.get() ? during : after).add(ms);
          }
          if (ms > 200) {
            System.out.printf("slow: %d ms at %.1f s%n", ms,
                (System.currentTimeMillis() - startedAt) / 1e3);
          }
          if (!replaying.get() && caughtUpAt[0] == 0) {
            String m = HTTP.send(HttpRequest.newBuilder(base.resolve("/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
            Matcher lag = LAG.matcher(m);
            if (lag.find() && Double.parseDouble(lag.group(1)) * 1000
                <= System.currentTimeMillis() - endMs + 45_000) {
              caughtUpAt[0] = System.currentTimeMillis();
            }
          }
          Thread.sleep(250);
        } catch (Exception e) {
          if (e instanceof InterruptedException) {
            return;
          }
        }
      }
    }, "asker");
    asker.start();
    long t0 = System.currentTimeMillis();
    for (long t = startMs + 300_000L; ; t = Math.min(endMs, t + 300_000L)) {
      w.catchUp(t);
      if (t == endMs) {
        break;
      }
    }
    replayEnd[0] = System.currentTimeMillis();
    replaying.set(false);
    Thread.sleep(afterS * 1000);
    stop.set(true);
    asker.join();
    System.out.printf("replayed %.1f h: %d samples in %.1f s (%.0f samples/s)%n", hours,
        w.samplesWritten, (replayEnd[0] - t0) / 1e3,
        w.samplesWritten / ((replayEnd[0] - t0) / 1e3));
    System.out.println("GET /api/v1/diagnoses during the replay, ms: " + stats(during));
    System.out.println("GET /api/v1/diagnoses after the last write, ms: " + stats(after));
    System.out.println(caughtUpAt[0] == 0 ? "evaluator not caught up within " + afterS + " s"
        : String.format("evaluator caught up %.1f s after the last write",
            (caughtUpAt[0] - replayEnd[0]) / 1e3));
  }

  private static String stats(List<Long> ms) {
    if (ms.isEmpty()) {
      return "none";
    }
    List<Long> s = new ArrayList<>(ms);
    Collections.sort(s);
    return String.format("n=%d p50=%d p99=%d max=%d", s.size(), s.get(s.size() / 2),
        s.get(Math.min(s.size() - 1, (int) Math.ceil(s.size() * 0.99) - 1)),
        s.get(s.size() - 1));
  }
}
