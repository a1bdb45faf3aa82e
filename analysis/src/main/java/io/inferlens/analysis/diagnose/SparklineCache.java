package io.inferlens.analysis.diagnose;

import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sparkline values already evaluated ({@link DiagnosisEngine#sparklines}), so a page that
 * refreshes the same range evaluates only its newest steps. One line per target, indicator,
 * resolved metric and step: the values of consecutive steps on the step grid, kept only for steps
 * whose rate window ended before the delivery slack ({@link IndicatorEvaluator#DELIVERY_SLACK_MS})
 * and cut back from where samples are appended later (a backfill, a replayed queue).
 *
 * <p>At most {@value #MAX_LINES} lines of at most {@value #MAX_STEPS} steps (8 KiB each, so at
 * most 40 MiB), least recently used dropped first. Thread safe.
 */
final class SparklineCache {

  static final int MAX_LINES = 5_000;
  static final int MAX_STEPS = 1_000;

  /** Values of steps {@code firstMs, firstMs + step, …} before {@code untilMs}. */
  private static final class Line {
    long firstMs;
    long stepMs;
    long untilMs;
    double[] values;
  }

  private final LinkedHashMap<String, Line> lines = new LinkedHashMap<>(256, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Line> eldest) {
      return size() > MAX_LINES;
    }
  };

  /**
   * The cached values of a line from {@code startMs} on.
   *
   * @param key the line's key (target, indicator, metric, step)
   * @param startMs first step wanted, ms, on the step grid
   * @param stepMs step, ms
   * @return the values of the steps from {@code startMs} that are cached (possibly none), or
   *     null when the line does not reach back to {@code startMs}
   */
  synchronized double[] get(String key, long startMs, long stepMs) {
    Line l = lines.get(key);
    if (l == null || l.stepMs != stepMs || l.firstMs > startMs || l.untilMs <= startMs
        || Math.floorMod(startMs - l.firstMs, stepMs) != 0) {
      return null;
    }
    int from = (int) ((startMs - l.firstMs) / stepMs);
    int to = (int) ((l.untilMs - l.firstMs) / stepMs);
    return Arrays.copyOfRange(l.values, from, to);
  }

  /**
   * Keeps a line's values of the steps before {@code cacheableBeforeMs}, replacing what it held.
   *
   * @param key the line's key
   * @param startMs the first value's step, ms
   * @param stepMs step, ms
   * @param values one per step from {@code startMs}
   * @param cacheableBeforeMs steps at or after this are not kept, ms
   */
  synchronized void put(String key, long startMs, long stepMs, double[] values,
      long cacheableBeforeMs) {
    long end = startMs + values.length * stepMs;
    int n = cacheableBeforeMs >= end ? values.length
        : (int) Math.max(0, Math.floorDiv(cacheableBeforeMs - startMs + stepMs - 1, stepMs));
    int drop = Math.max(0, n - MAX_STEPS);
    if (n - drop <= 0) {
      return;
    }
    Line l = new Line();
    l.firstMs = startMs + drop * stepMs;
    l.stepMs = stepMs;
    l.values = Arrays.copyOfRange(values, drop, n);
    l.untilMs = l.firstMs + l.values.length * stepMs;
    lines.put(key, l);
  }

  /**
   * Samples were appended in {@code [minMs, maxMs]}: steps at or after {@code minMs} may have
   * changed (their windows can hold the new samples), so every line is cut back before it.
   *
   * @param minMs oldest appended sample, ms
   * @param maxMs newest appended sample, ms (unused: a later step's window may reach it too)
   */
  synchronized void invalidate(long minMs, long maxMs) {
    for (Iterator<Line> it = lines.values().iterator(); it.hasNext(); ) {
      Line l = it.next();
      if (l.untilMs <= minMs) {
        continue;
      }
      if (l.firstMs >= minMs) {
        it.remove();
      } else {
        // Steps before minMs keep their windows; the first at or after it is dropped.
        l.untilMs = l.firstMs + Math.floorDiv(minMs - l.firstMs + l.stepMs - 1, l.stepMs)
            * l.stepMs;
      }
    }
  }
}
