package io.inferlens.analysis.diagnose;

import io.inferlens.analysis.promql.ast.Expr;
import io.inferlens.analysis.promql.engine.Engine;
import io.inferlens.analysis.promql.engine.EngineOptions;
import io.inferlens.analysis.promql.engine.PointSeries;
import io.inferlens.analysis.promql.engine.QueryException;
import io.inferlens.analysis.promql.engine.QueryResult;
import io.inferlens.analysis.target.ResolvedSignal;
import io.inferlens.storage.Querier;
import io.inferlens.storage.Resolution;
import io.inferlens.storage.StorageException;
import java.util.Arrays;

/**
 * Evaluates one indicator of a resolved signal per rollup interval (5 m or 1 h) from the store's
 * rollups instead of raw samples, for long-range trends and for the baseline history of
 * {@link DiagnosisEngine#analyze}: the cost grows with the number of intervals, not with the
 * samples they summarize.
 *
 * <p>The formula is the indicator's one PromQL formula ({@link IndicatorQueries#ofRollups}),
 * evaluated by the PromQL engine with {@code max_source_resolution} set to the resolution, at
 * steps on the interval grid. The value of interval {@code i} (start {@code s}, length
 * {@code d}) over a window of the last {@code k} intervals is the engine's value at
 * {@code s + d}, whose window is the intervals starting in {@code [s - (k - 1) d, s]}:
 *
 * <ul>
 *   <li>counters: {@code sum(rate(x[k d]))}, the reset-aware increase of those intervals (the
 *       step in from the interval before included) over {@code k d} seconds, without
 *       extrapolation;
 *   <li>latency quantiles: {@code histogram_quantile(q, sum by (le) (rate(x_bucket[k d])))};
 *   <li>histogram means: summed {@code _sum} rates over summed {@code _count} rates;
 *   <li>gauges ({@link GaugeReading#MEAN}): {@code agg(avg_over_time(x[d]))}, each series' mean
 *       over the interval combined by the source's aggregation; with {@link GaugeReading#LAST}
 *       {@code agg(last_over_time(x[d]))}, the instant value at the interval's end. Gauges
 *       ignore {@code k}.
 * </ul>
 *
 * <p>Thread safety: stateless apart from the store, which is thread safe.
 */
public final class RollupEvaluator {

  /** How a gauge's interval is summarized into one value. */
  public enum GaugeReading {
    /** The mean of the interval's samples (sum / count): what a trend of the day charts. */
    MEAN,
    /**
     * The interval's newest sample: the instant value at its end, which is what the step-wise
     * evaluation ({@link IndicatorEvaluator}, an instant query) reads at that time.
     */
    LAST
  }

  private final Querier store;

  /** @param store the store to read rollups from */
  public RollupEvaluator(Querier store) {
    this.store = store;
  }

  /**
   * One indicator per rollup interval.
   *
   * @param startsMs interval starts in milliseconds, ascending, multiples of the resolution
   * @param values the indicator in its unit ({@link Indicator#unit()}), NaN where undefined
   */
  public record IntervalValues(long[] startsMs, double[] values) {}

  /**
   * Per interval over the interval itself, gauges as means: the trend reading.
   *
   * @param rs the signal as resolved for a target
   * @param ind an indicator this signal feeds
   * @param startMs range start, milliseconds (the interval holding it is the first)
   * @param endMs range end, milliseconds, &ge; startMs
   * @param resolution 5 m or 1 h
   * @return one value per interval that has data, ascending
   * @throws StorageException if the store fails
   */
  public IntervalValues evaluate(ResolvedSignal rs, Indicator ind, long startMs, long endMs,
      Resolution resolution) throws StorageException {
    return evaluate(rs, ind, startMs, endMs, resolution, 1, GaugeReading.MEAN);
  }

  /**
   * Per interval over a trailing window of {@code windowIntervals} intervals ending with it (the
   * rollup analogue of a rate window of {@code windowIntervals × resolution}), gauges read as
   * asked.
   *
   * @param rs the signal as resolved for a target
   * @param ind an indicator this signal feeds
   * @param startMs range start, milliseconds (the interval holding it is the first)
   * @param endMs range end, milliseconds, &ge; startMs
   * @param resolution 5 m or 1 h
   * @param windowIntervals intervals per window, &ge; 1; earlier intervals are read as needed
   * @param gauges how gauges and gauge ratios summarize an interval
   * @return one value per interval that has data (in its window, for counters and histograms),
   *     ascending
   * @throws IllegalArgumentException if windowIntervals &lt; 1
   * @throws StorageException if the store fails
   */
  public IntervalValues evaluate(ResolvedSignal rs, Indicator ind, long startMs, long endMs,
      Resolution resolution, int windowIntervals, GaugeReading gauges) throws StorageException {
    if (windowIntervals < 1) {
      throw new IllegalArgumentException("windowIntervals must be >= 1, got " + windowIntervals);
    }
    long iv = resolution.intervalMs();
    Expr expr = IndicatorQueries.ofRollups(rs, ind, windowIntervals * iv, gauges, iv);
    Engine engine = new Engine(store, EngineOptions.DEFAULTS);
    long first = Math.floorDiv(startMs, iv) * iv;
    long last = Math.floorDiv(endMs, iv) * iv;
    long[] ts = new long[0];
    double[] vs = new double[0];
    int n = 0;
    // The engine's value at s + d belongs to the interval starting at s.
    for (long from = first; from <= last; from += MAX_STEPS * iv) {
      long to = Math.min(last, from + (MAX_STEPS - 1) * iv);
      QueryResult r;
      try {
        r = engine.range(expr, from + iv, to + iv, iv, EngineOptions.DEFAULTS.timeoutMs(),
            resolution);
      } catch (QueryException e) {
        if (e.getCause() instanceof StorageException se) {
          throw se;
        }
        throw new IllegalStateException("rollup query " + expr + " failed: " + e.getMessage(), e);
      }
      if (r.matrix().isEmpty()) {
        continue;
      }
      PointSeries p = r.matrix().get(0);
      if (n + p.size() > ts.length) {
        ts = Arrays.copyOf(ts, Math.max(2 * ts.length, n + p.size()));
        vs = Arrays.copyOf(vs, ts.length);
      }
      for (int i = 0; i < p.size(); i++) {
        ts[n] = p.timestampMs(i) - iv;
        vs[n] = p.value(i);
        n++;
      }
    }
    return new IntervalValues(Arrays.copyOf(ts, n), Arrays.copyOf(vs, n));
  }

  /** Steps per engine query: under its 11,000-point limit. */
  private static final int MAX_STEPS = 10_000;
}
