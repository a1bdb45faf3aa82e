package io.inferlens.api;

import com.linecorp.armeria.common.QueryParams;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the analysis has been asked for recently, so the background warm-up evaluates only that:
 * nothing until a client asks for an analysis route, then only the targets and range lengths
 * asked within {@link #WINDOW_MS}. A pure ingest workload records nothing and costs no analysis
 * CPU. Thread-safe; the request path only puts one map entry.
 */
public final class AnalysisDemand {

  /** How long one request keeps its target and range warm: 1 hour, in milliseconds. */
  public static final long WINDOW_MS = 3_600_000L;
  /** The longest range the warm-up evaluates: 30 days, in milliseconds. */
  public static final long MAX_RANGE_MS = 30 * 86_400_000L;
  /** Most distinct (target, range) pairs remembered; more are dropped, oldest asked first. */
  static final int MAX_ENTRIES = 256;

  /** The routes whose requests count as asking for analysis. */
  static final Set<String> ROUTES = Set.of("/api/v1/diagnoses", "/api/v1/targets",
      "/api/v1/signals", "/api/v1/baselines", "/api/v1/dashboard", "/api/v1/trends",
      "/api/v1/trends/versions");

  /**
   * One thing to keep warm.
   *
   * @param target a target id, or null for every target (a request without {@code target})
   * @param rangeMs the asked range's length in milliseconds, 1 to {@link #MAX_RANGE_MS}
   */
  public record Ask(String target, long rangeMs) {}

  private final Clock clock;
  private final Map<Ask, Long> lastAskedMs = new ConcurrentHashMap<>();

  /** @param clock the present, for the recency window */
  public AnalysisDemand(Clock clock) {
    this.clock = clock;
  }

  /**
   * Records a request if it is to an analysis route; unparseable times are ignored here (the
   * route itself answers them with 400).
   *
   * @param path the request path, e.g. {@code /api/v1/diagnoses}
   * @param params its query parameters ({@code target}, {@code start}, {@code end})
   */
  public void note(String path, QueryParams params) {
    if (!ROUTES.contains(path)) {
      return;
    }
    long range;
    try {
      TimeParams t = TimeParams.parse(params.get("start"), params.get("end"), clock);
      range = t.endMs() - t.startMs();
    } catch (IllegalArgumentException e) {
      return;
    }
    String target = params.get("target");
    record(target == null || target.isEmpty() ? null : target, range);
  }

  /**
   * @param target a target id, or null for every target
   * @param rangeMs the range's length in milliseconds; clamped to 1 ms .. {@link #MAX_RANGE_MS}
   */
  public void record(String target, long rangeMs) {
    long r = Math.min(MAX_RANGE_MS, Math.max(1, rangeMs));
    lastAskedMs.put(new Ask(target, r), clock.millis());
    if (lastAskedMs.size() > MAX_ENTRIES) {
      lastAskedMs.entrySet().stream().min(Map.Entry.comparingByValue())
          .ifPresent(e -> lastAskedMs.remove(e.getKey(), e.getValue()));
    }
  }

  /**
   * Forgets asks older than {@link #WINDOW_MS} and returns the rest.
   *
   * @return the asks of the last hour, in no particular order; empty when nobody asked
   */
  public List<Ask> recent() {
    long cutoff = clock.millis() - WINDOW_MS;
    lastAskedMs.values().removeIf(t -> t < cutoff);
    return new ArrayList<>(lastAskedMs.keySet());
  }
}
