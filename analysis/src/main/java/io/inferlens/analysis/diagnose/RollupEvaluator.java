package io.inferlens.analysis.diagnose;

import io.inferlens.analysis.catalog.Aggregation;
import io.inferlens.analysis.catalog.MetricSource;
import io.inferlens.analysis.catalog.SourceKind;
import io.inferlens.analysis.promql.HistogramQuantile;
import io.inferlens.analysis.target.ResolvedSignal;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Resolution;
import io.inferlens.storage.RollupColumn;
import io.inferlens.storage.RollupSeries;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.Querier;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Evaluates one indicator of a resolved signal per rollup interval (5 m or 1 h) from the store's
 * rollups instead of raw samples, for long-range trends and for the baseline history of
 * {@link DiagnosisEngine#analyze}: the cost grows with the number of intervals, not with the
 * samples they summarize.
 *
 * <p>Per interval {@code i} of length {@code d} seconds, over a window of the last {@code k}
 * intervals ({@code k = 1} unless asked otherwise, so the window is the interval itself):
 *
 * <ul>
 *   <li>a counter's increase is the sum over the window's intervals of their rollup increase plus
 *       the step from the previous interval's last value to their first (reset-aware,
 *       {@link RollupSeries#counterIncrease}); a rate is that increase / (k × d), as PromQL's
 *       {@code rate} over a window of k × d without extrapolation;
 *   <li>latency quantiles: {@code histogram_quantile(q, sum by (le) (increase per bucket))} over
 *       the window, Prometheus' bucket interpolation ({@link HistogramQuantile#quantile});
 *   <li>histogram means (tokens per request): sum increase / count increase over the window;
 *   <li>gauges ({@link GaugeReading#MEAN}): each series' mean over the interval (sum / count),
 *       combined across series by the source's aggregation; ratios: summed numerator means /
 *       summed denominator means. With {@link GaugeReading#LAST} the interval's last value
 *       stands in for the mean: the instant value at the interval's end, as an instant query
 *       there reads it. Gauges ignore {@code k}.
 * </ul>
 *
 * <p>Thread safety: stateless apart from the store, which is thread safe.
 */
public final class RollupEvaluator {

  /** What counters and histogram buckets need: increases and the values at the boundaries. */
  private static final Set<RollupColumn> COUNTER_COLUMNS =
      EnumSet.of(RollupColumn.FIRST, RollupColumn.LAST, RollupColumn.INCREASE);
  /** What gauge means need (counts always come). */
  private static final Set<RollupColumn> GAUGE_COLUMNS = EnumSet.of(RollupColumn.SUM);
  /** What gauges read at the end of each interval need. */
  private static final Set<RollupColumn> LAST_COLUMNS = EnumSet.of(RollupColumn.LAST);

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
    MetricSource src = rs.source();
    int k = windowIntervals;
    double seconds = k * (resolution.intervalMs() / 1000.0);
    // Start k intervals early: the first window needs k - 1 intervals before it, and its oldest
    // interval's increase needs the previous last value.
    long readFrom = startMs - k * resolution.intervalMs();
    TreeMap<Long, double[]> out = new TreeMap<>();
    if (src.kind() == SourceKind.HISTOGRAM && ind.isLatency()) {
      // Bucket increases per interval in arrays indexed by interval, one row per le; the arrays
      // span the intervals the rollups hold, not the range asked (which may be decades).
      long iv = resolution.intervalMs();
      List<RollupSeries> series = new ArrayList<>();
      List<Double> les = new ArrayList<>();
      long minStart = Long.MAX_VALUE;
      long maxStart = Long.MIN_VALUE;
      for (RollupSeries s : store.selectRollups(rs.selector(src.bucketName()), readFrom, endMs,
          resolution, COUNTER_COLUMNS)) {
        var le = HistogramQuantile.parseUpperBound(s.labels().get(HistogramQuantile.LE));
        if (le.isEmpty() || s.size() == 0) {
          continue;
        }
        series.add(s);
        les.add(le.getAsDouble());
        minStart = Math.min(minStart, s.startsMs()[0]);
        maxStart = Math.max(maxStart, s.startsMs()[s.size() - 1]);
      }
      long base = minStart;
      int n = series.isEmpty() ? 0 : (int) ((maxStart - minStart) / iv + 1);
      TreeMap<Double, double[]> byLe = new TreeMap<>();
      boolean[] any = new boolean[n];
      for (int j = 0; j < series.size(); j++) {
        double[] row = byLe.computeIfAbsent(les.get(j), x -> new double[n]);
        forEachIncrease(series.get(j), resolution, (t, inc) -> {
          int i = (int) ((t - base) / iv);
          row[i] += inc;
          any[i] = true;
        });
      }
      if (k > 1) {
        for (Map.Entry<Double, double[]> e : byLe.entrySet()) {
          e.setValue(trailingSums(e.getValue(), k));
        }
        boolean[] anyInWindow = new boolean[n];
        int last = Integer.MIN_VALUE / 2;
        for (int i = 0; i < n; i++) {
          last = any[i] ? i : last;
          anyInWindow[i] = i - last < k;
        }
        System.arraycopy(anyInWindow, 0, any, 0, n);
      }
      double q = IndicatorEvaluator.quantileOf(ind);
      List<HistogramQuantile.Bucket> buckets = new ArrayList<>(byLe.size());
      for (int i = 0; i < n; i++) {
        if (!any[i]) {
          continue;
        }
        buckets.clear();
        for (Map.Entry<Double, double[]> e : byLe.entrySet()) {
          buckets.add(new HistogramQuantile.Bucket(e.getKey(), e.getValue()[i]));
        }
        out.put(base + i * iv, new double[] {HistogramQuantile.quantile(q, buckets)});
      }
    } else if (src.kind() == SourceKind.HISTOGRAM) {
      TreeMap<Long, Double> sum = trailing(increases(rs.selector(src.sumName()), readFrom, endMs,
          resolution), k, resolution);
      TreeMap<Long, Double> count = trailing(increases(rs.selector(src.countName()), readFrom,
          endMs, resolution), k, resolution);
      sum.forEach((t, v) -> {
        Double c = count.get(t);
        out.put(t, new double[] {c == null || c == 0 ? Double.NaN : v / c});
      });
    } else if (src.kind() == SourceKind.COUNTER) {
      TreeMap<Long, Double> num = trailing(increases(rs.matchers(), readFrom, endMs, resolution),
          k, resolution);
      if (src.denominators().isEmpty()) {
        num.forEach((t, v) -> out.put(t, new double[] {v / seconds}));
      } else {
        TreeMap<Long, Double> den = new TreeMap<>();
        for (List<Matcher> sel : rs.denominatorSelectors()) {
          increases(sel, readFrom, endMs, resolution).forEach((t, v) -> den.merge(t, v,
              Double::sum));
        }
        TreeMap<Long, Double> denWindow = trailing(den, k, resolution);
        num.forEach((t, v) -> {
          Double d = denWindow.get(t);
          out.put(t, new double[] {d == null || d == 0 ? Double.NaN : v / d});
        });
      }
    } else if (src.kind() == SourceKind.GAUGE_RATIO) {
      TreeMap<Long, Double> num = gauges(rs.matchers(), readFrom, endMs, resolution, src,
          Aggregation.SUM, gauges);
      TreeMap<Long, Double> den = new TreeMap<>();
      for (List<Matcher> sel : rs.denominatorSelectors()) {
        gauges(sel, readFrom, endMs, resolution, src, Aggregation.SUM, gauges)
            .forEach((t, v) -> den.merge(t, v, Double::sum));
      }
      num.forEach((t, v) -> {
        Double d = den.get(t);
        out.put(t, new double[] {d == null || d == 0 ? Double.NaN : v / d});
      });
    } else {
      gauges(rs.matchers(), readFrom, endMs, resolution, src, src.aggregation(), gauges)
          .forEach((t, v) -> out.put(t, new double[] {v}));
    }
    long first = Math.floorDiv(startMs, resolution.intervalMs()) * resolution.intervalMs();
    var kept = out.subMap(first, true, endMs, true);
    long[] ts = new long[kept.size()];
    double[] vs = new double[kept.size()];
    int i = 0;
    for (Map.Entry<Long, double[]> e : kept.entrySet()) {
      ts[i] = e.getKey();
      vs[i] = e.getValue()[0] * src.scale();
      i++;
    }
    return new IntervalValues(ts, vs);
  }

  /** Sums of the last {@code k} entries of {@code v} at each index (fewer at the start). */
  private static double[] trailingSums(double[] v, int k) {
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      double s = 0;
      for (int j = Math.max(0, i - k + 1); j <= i; j++) {
        s += v[j];
      }
      out[i] = s;
    }
    return out;
  }

  /**
   * Per interval that has data in its window, the sum of the per-interval values of the last
   * {@code k} intervals ending with it; the map itself when {@code k == 1}.
   */
  private static TreeMap<Long, Double> trailing(TreeMap<Long, Double> perInterval, int k,
      Resolution res) {
    if (k == 1) {
      return perInterval;
    }
    long iv = res.intervalMs();
    TreeMap<Long, Double> out = new TreeMap<>();
    for (Long t : perInterval.keySet()) {
      for (int j = 0; j < k; j++) {
        out.putIfAbsent(t + j * iv, 0.0);
      }
    }
    for (Map.Entry<Long, Double> e : out.entrySet()) {
      double s = 0;
      for (double v : perInterval.subMap(e.getKey() - (k - 1) * iv, true, e.getKey(), true)
          .values()) {
        s += v;
      }
      e.setValue(s);
    }
    return out;
  }

  private interface IncreaseVisitor {
    void accept(long startMs, double increase);
  }

  /** Visits each interval's counter increase, the step in from the previous interval included. */
  private static void forEachIncrease(RollupSeries s, Resolution res, IncreaseVisitor v) {
    for (int i = 0; i < s.size(); i++) {
      double inc = s.increase()[i];
      if (i > 0 && s.startsMs()[i - 1] == s.startsMs()[i] - res.intervalMs()) {
        double step = s.first()[i] - s.last()[i - 1];
        inc += step >= 0 ? step : s.first()[i];
      }
      v.accept(s.startsMs()[i], inc);
    }
  }

  private TreeMap<Long, Double> increases(List<Matcher> selector, long from, long to,
      Resolution res) throws StorageException {
    TreeMap<Long, Double> out = new TreeMap<>();
    for (RollupSeries s : store.selectRollups(selector, from, to, res, COUNTER_COLUMNS)) {
      forEachIncrease(s, res, (t, inc) -> out.merge(t, inc, Double::sum));
    }
    return out;
  }

  private TreeMap<Long, Double> gauges(List<Matcher> selector, long from, long to,
      Resolution res, MetricSource src, Aggregation agg, GaugeReading reading)
      throws StorageException {
    boolean last = reading == GaugeReading.LAST;
    TreeMap<Long, double[]> acc = new TreeMap<>();
    for (RollupSeries s : store.selectRollups(selector, from, to, res,
        last ? LAST_COLUMNS : GAUGE_COLUMNS)) {
      for (int i = 0; i < s.size(); i++) {
        double value = last ? s.last()[i] : s.sum()[i] / s.counts()[i];
        if (Double.isNaN(value) || src.ignoredValues().contains(value)) {
          continue;
        }
        double[] a = acc.computeIfAbsent(s.startsMs()[i], k -> new double[] {Double.NaN, 0});
        if (Double.isNaN(a[0])) {
          a[0] = value;
        } else if (agg == Aggregation.MAX) {
          a[0] = Math.max(a[0], value);
        } else {
          a[0] += value;
        }
        a[1]++;
      }
    }
    TreeMap<Long, Double> out = new TreeMap<>();
    acc.forEach((t, a) -> out.put(t, agg == Aggregation.AVG ? a[0] / a[1] : a[0]));
    return out;
  }
}
