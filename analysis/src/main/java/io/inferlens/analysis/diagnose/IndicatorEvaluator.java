package io.inferlens.analysis.diagnose;

import io.inferlens.analysis.catalog.MetricSource;
import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.catalog.SourceKind;
import io.inferlens.analysis.promql.HistogramQuantile;
import io.inferlens.analysis.promql.InstantSelection;
import io.inferlens.analysis.promql.RangeFunctions;
import io.inferlens.analysis.promql.StaleMarker;
import io.inferlens.analysis.promql.StepRange;
import io.inferlens.analysis.promql.StepSeries;
import io.inferlens.analysis.target.ResolvedSignal;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Series;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.Querier;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Evaluates a target's resolved signals into an {@link IndicatorFrame} with PromQL semantics:
 * latency quantiles as {@code histogram_quantile(q, sum by (le) (rate(x_bucket[w])))}, means as
 * {@code rate(x_sum[w]) / rate(x_count[w])}, counters as {@code sum(rate(x[w]))}, gauges as the
 * instant value (5 min lookback) aggregated per the catalog, ratios of gauges as
 * {@code sum(num) / sum(den)}. Ranges longer than {@link StepRange#MAX_STEPS} steps are evaluated
 * in chunks.
 *
 * <p>Also marks monitoring gaps: steps where the engine's scrapes are missing for more than
 * {@code gapFactor} scrape intervals (the interval is the median spacing of its samples).
 *
 * <p>Thread safe (stateless besides the config).
 */
public final class IndicatorEvaluator {

  /**
   * Silence at the end of the data counts as a gap only past this slack, in milliseconds:
   * remote write delivers in batches (Prometheus's batch_send_deadline is 5 s) and retries, so
   * the newest scrapes are often not stored yet.
   */
  static final long DELIVERY_SLACK_MS = 30_000;

  /**
   * Chunk length in steps: 960 steps are 4 h at the default 15 s step, so the newest, not yet
   * cacheable chunk re-reads at most 4 h of samples per request, while 30 days are ~180 cached
   * chunks per target. Under StepRange's 11,000-point limit.
   */
  static final int CHUNK_STEPS = 960;

  private final AnalysisConfig config;

  /** @param config step, rate window and gap factor */
  public IndicatorEvaluator(AnalysisConfig config) {
    this.config = config;
  }

  /**
   * @param store the store
   * @param signals the target's resolved signals (missing ones stay absent from the frame)
   * @param startMs first step, ms
   * @param endMs last step allowed, ms, ≥ startMs
   * @param stepMs step, ms, &gt; 0
   * @param nowMs the present, ms: silence from the last sample up to it also counts as a gap
   * @return the frame
   * @throws StorageException if the store fails
   */
  public IndicatorFrame evaluate(Querier store, Map<Signal, ResolvedSignal> signals,
      long startMs, long endMs, long stepMs, long nowMs) throws StorageException {
    return evaluate(store, signals, startMs, endMs, stepMs, nowMs, null, null, startMs);
  }

  /**
   * As {@link #evaluate(Querier, Map, long, long, long, long)}, reusing chunks of
   * {@value #CHUNK_STEPS} steps aligned on multiples of {@code CHUNK_STEPS × stepMs} from a cache.
   * Only chunks that ended more than {@link #DELIVERY_SLACK_MS} plus the rate window ago are
   * cached, so recent data is always evaluated afresh.
   *
   * @param cache the cache, or null to evaluate everything
   * @param cacheKey identifies the target and the metrics its signals resolved to; null disables
   *     the cache
   * @param gapsFromMs monitoring gaps are looked for from here on, ms (the reported range: gaps
   *     in older history only matter as missing data, which the frame has anyway)
   * @return the frame
   * @throws StorageException if the store fails
   */
  public IndicatorFrame evaluate(Querier store, Map<Signal, ResolvedSignal> signals,
      long startMs, long endMs, long stepMs, long nowMs, FrameCache cache, String cacheKey,
      long gapsFromMs) throws StorageException {
    int steps = (int) ((endMs - startMs) / stepMs) + 1;
    IndicatorFrame frame = new IndicatorFrame(startMs, stepMs, steps);
    Map<Indicator, double[]> all = new java.util.EnumMap<>(Indicator.class);
    for (Signal s : signals.keySet()) {
      for (Indicator ind : indicators(s)) {
        double[] v = new double[steps];
        Arrays.fill(v, Double.NaN);
        all.put(ind, v);
      }
    }
    long span = CHUNK_STEPS * stepMs;
    long lastStep = startMs + (steps - 1) * stepMs;
    long cacheableBefore = nowMs - DELIVERY_SLACK_MS - config.rateWindowMs();
    for (long cs = Math.floorDiv(startMs, span) * span; cs <= lastStep; cs += span) {
      long chunkLast = cs + span - stepMs;
      boolean aligned = Math.floorMod(cs - startMs, stepMs) == 0;
      Map<Indicator, double[]> part;
      long partStart;
      if (cache != null && cacheKey != null && aligned && chunkLast < cacheableBefore) {
        FrameCache.Chunk c = cache.get(cacheKey, stepMs, cs);
        if (c == null) {
          c = new FrameCache.Chunk(cs, stepMs, CHUNK_STEPS,
              evaluateRange(store, signals, new StepRange(cs, chunkLast, stepMs)));
          cache.put(cacheKey, c);
        }
        part = c.values();
        partStart = cs;
      } else {
        partStart = Math.max(cs, startMs);
        long partEnd = Math.min(chunkLast, lastStep);
        // Keep the request's step grid when the chunk grid is not aligned to it.
        partStart = startMs + ((partStart - startMs + stepMs - 1) / stepMs) * stepMs;
        if (partStart > partEnd) {
          continue;
        }
        part = evaluateRange(store, signals, new StepRange(partStart, partEnd, stepMs));
      }
      for (Map.Entry<Indicator, double[]> e : part.entrySet()) {
        double[] dst = all.get(e.getKey());
        double[] src = e.getValue();
        for (int k = 0; k < src.length; k++) {
          long t = partStart + k * stepMs;
          if (t < startMs || t > lastStep) {
            continue;
          }
          dst[(int) ((t - startMs) / stepMs)] = src[k];
        }
      }
    }
    for (Map.Entry<Indicator, double[]> e : all.entrySet()) {
      frame.put(e.getKey(), e.getValue());
    }
    ResolvedSignal heartbeat = signals.containsKey(Signal.WAITING) ? signals.get(Signal.WAITING)
        : signals.containsKey(Signal.RUNNING) ? signals.get(Signal.RUNNING) : null;
    if (heartbeat != null) {
      markGaps(store, heartbeat, frame, Math.max(startMs, gapsFromMs), Math.min(endMs, nowMs));
    }
    return frame;
  }

  /** Every indicator of every signal over one step range (≤ {@link StepRange#MAX_STEPS}). */
  private Map<Indicator, double[]> evaluateRange(Querier store,
      Map<Signal, ResolvedSignal> signals, StepRange range) throws StorageException {
    Map<Indicator, double[]> out = new java.util.EnumMap<>(Indicator.class);
    for (Map.Entry<Signal, ResolvedSignal> e : signals.entrySet()) {
      Indicator[] inds = indicators(e.getKey());
      ResolvedSignal rs = e.getValue();
      if (rs.source().kind() == SourceKind.HISTOGRAM && inds.length > 0 && inds[0].isLatency()) {
        // Rates of the buckets once, quantiles for each indicator from them.
        long readFrom = range.startMs() - config.rateWindowMs();
        List<Series> buckets = store.select(rs.selector(rs.source().bucketName()), readFrom,
            range.endMs());
        java.util.TreeMap<Double, double[]> sums = summedBucketRates(buckets, range);
        for (Indicator ind : inds) {
          double[] v = quantiles(quantileOf(ind), sums, range.count());
          scale(v, rs.source().scale());
          out.put(ind, v);
        }
      } else {
        for (Indicator ind : inds) {
          out.put(ind, evaluate(store, rs, ind, range));
        }
      }
    }
    return out;
  }

  private java.util.TreeMap<Double, double[]> summedBucketRates(List<Series> buckets,
      StepRange range) {
    java.util.TreeMap<Double, double[]> sums = new java.util.TreeMap<>();
    for (Series s : buckets) {
      java.util.OptionalDouble le = HistogramQuantile.parseUpperBound(
          s.labels().get(HistogramQuantile.LE));
      if (le.isEmpty()) {
        continue;
      }
      double[] r = RangeFunctions.rate(s, config.rateWindowMs(), range).values();
      double[] sum = sums.computeIfAbsent(le.getAsDouble(), k -> {
        double[] a = new double[range.count()];
        Arrays.fill(a, Double.NaN);
        return a;
      });
      for (int i = 0; i < sum.length; i++) {
        if (!Double.isNaN(r[i])) {
          sum[i] = Double.isNaN(sum[i]) ? r[i] : sum[i] + r[i];
        }
      }
    }
    return sums;
  }

  /** As {@link HistogramQuantile#ofSummedRates}, from rates already summed by {@code le}. */
  private static double[] quantiles(double q, java.util.TreeMap<Double, double[]> sums, int n) {
    double[] out = new double[n];
    List<HistogramQuantile.Bucket> buckets = new java.util.ArrayList<>(sums.size());
    for (int i = 0; i < n; i++) {
      buckets.clear();
      for (Map.Entry<Double, double[]> e : sums.entrySet()) {
        double c = e.getValue()[i];
        if (!Double.isNaN(c)) {
          buckets.add(new HistogramQuantile.Bucket(e.getKey(), c));
        }
      }
      out[i] = buckets.isEmpty() ? Double.NaN : HistogramQuantile.quantile(q, buckets);
    }
    return out;
  }

  private static void scale(double[] v, double factor) {
    if (factor != 1.0) {
      for (int i = 0; i < v.length; i++) {
        v[i] *= factor;
      }
    }
  }

  /** The indicators one signal feeds. */
  static Indicator[] indicators(Signal s) {
    switch (s) {
      case TTFT: return new Indicator[] {Indicator.TTFT_P50, Indicator.TTFT_P95, Indicator.TTFT_P99};
      case TPOT: return new Indicator[] {Indicator.TPOT_P50, Indicator.TPOT_P95, Indicator.TPOT_P99};
      case E2E: return new Indicator[] {Indicator.E2E_P50, Indicator.E2E_P95, Indicator.E2E_P99};
      case QUEUE_TIME: return new Indicator[] {Indicator.QUEUE_TIME_P95};
      case WAITING: return new Indicator[] {Indicator.WAITING};
      case RUNNING: return new Indicator[] {Indicator.RUNNING};
      case KV_CACHE_USAGE: return new Indicator[] {Indicator.KV_CACHE_USAGE};
      case PREEMPTIONS: return new Indicator[] {Indicator.PREEMPTIONS};
      case GPU_UTIL: return new Indicator[] {Indicator.GPU_UTIL};
      case GPU_MEM: return new Indicator[] {Indicator.GPU_MEM};
      case UPSTREAM_BACKLOG: return new Indicator[] {Indicator.UPSTREAM_BACKLOG};
      case REQUEST_RATE: return new Indicator[] {Indicator.REQUEST_RATE};
      case PROMPT_TOKENS: return new Indicator[] {Indicator.PROMPT_TOKENS};
      case GENERATION_TOKENS: return new Indicator[] {Indicator.GENERATION_TOKENS};
      default: return new Indicator[0];
    }
  }

  /** @return the quantile an indicator names: 0.5, 0.95 (default) or 0.99 */
  static double quantileOf(Indicator ind) {
    String k = ind.key();
    if (k.endsWith("_p50")) {
      return 0.5;
    }
    if (k.endsWith("_p99")) {
      return 0.99;
    }
    return 0.95;
  }

  private double[] evaluate(Querier store, ResolvedSignal rs, Indicator ind,
      StepRange range) throws StorageException {
    MetricSource src = rs.source();
    long window = config.rateWindowMs();
    long readFrom = range.startMs() - Math.max(window, InstantSelection.DEFAULT_LOOKBACK_MS);
    int n = range.count();
    double[] out;
    if (src.kind() == SourceKind.HISTOGRAM) {
      if (ind.isLatency()) {
        List<Series> buckets = store.select(rs.selector(src.bucketName()), readFrom,
            range.endMs());
        out = HistogramQuantile.ofSummedRates(quantileOf(ind), buckets, window, range).values();
      } else {
        double[] sum = sumRates(store.select(rs.selector(src.sumName()), readFrom, range.endMs()),
            window, range);
        double[] count = sumRates(store.select(rs.selector(src.countName()), readFrom,
            range.endMs()), window, range);
        out = divide(sum, count);
      }
    } else if (src.kind() == SourceKind.COUNTER) {
      out = sumRates(store.select(rs.matchers(), readFrom, range.endMs()), window, range);
      if (!src.denominators().isEmpty()) {
        double[] den = new double[n];
        Arrays.fill(den, Double.NaN);
        for (List<Matcher> sel : rs.denominatorSelectors()) {
          den = add(den, sumRates(store.select(sel, readFrom, range.endMs()), window, range));
        }
        out = divide(out, den);
      }
    } else if (src.kind() == SourceKind.GAUGE_RATIO) {
      double[] num = instant(store.select(rs.matchers(), readFrom, range.endMs()), range, src,
          io.inferlens.analysis.catalog.Aggregation.SUM);
      double[] den = new double[n];
      Arrays.fill(den, Double.NaN);
      for (List<Matcher> sel : rs.denominatorSelectors()) {
        den = add(den, instant(store.select(sel, readFrom, range.endMs()), range, src,
            io.inferlens.analysis.catalog.Aggregation.SUM));
      }
      out = divide(num, den);
    } else {
      out = instant(store.select(rs.matchers(), readFrom, range.endMs()), range, src,
          src.aggregation());
    }
    scale(out, src.scale());
    return out;
  }

  private static double[] sumRates(List<Series> series, long window, StepRange range) {
    double[] out = new double[range.count()];
    Arrays.fill(out, Double.NaN);
    for (Series s : series) {
      out = add(out, RangeFunctions.rate(s, window, range).values());
    }
    return out;
  }

  private static double[] instant(List<Series> series, StepRange range, MetricSource src,
      io.inferlens.analysis.catalog.Aggregation agg) {
    int n = range.count();
    double[] out = new double[n];
    int[] count = new int[n];
    Arrays.fill(out, Double.NaN);
    for (Series s : series) {
      StepSeries v = InstantSelection.select(s, range);
      for (int i = 0; i < n; i++) {
        double x = v.values()[i];
        if (Double.isNaN(x) || src.ignoredValues().contains(x)) {
          continue;
        }
        if (Double.isNaN(out[i])) {
          out[i] = x;
        } else if (agg == io.inferlens.analysis.catalog.Aggregation.MAX) {
          out[i] = Math.max(out[i], x);
        } else {
          out[i] += x;
        }
        count[i]++;
      }
    }
    if (agg == io.inferlens.analysis.catalog.Aggregation.AVG) {
      for (int i = 0; i < n; i++) {
        if (count[i] > 0) {
          out[i] /= count[i];
        }
      }
    }
    return out;
  }

  private static double[] add(double[] a, double[] b) {
    double[] out = a.clone();
    for (int i = 0; i < out.length; i++) {
      if (!Double.isNaN(b[i])) {
        out[i] = Double.isNaN(out[i]) ? b[i] : out[i] + b[i];
      }
    }
    return out;
  }

  private static double[] divide(double[] num, double[] den) {
    double[] out = new double[num.length];
    for (int i = 0; i < out.length; i++) {
      out[i] = den[i] > 0 ? num[i] / den[i] : Double.NaN;
    }
    return out;
  }

  private void markGaps(Querier store, ResolvedSignal heartbeat, IndicatorFrame frame,
      long fromMs, long untilMs) throws StorageException {
    long lastStep = frame.timeMs(frame.steps() - 1);
    List<Series> series = store.select(heartbeat.matchers(), fromMs - 10 * 60_000L, lastStep);
    // Merge all live (non-stale) sample timestamps of the heartbeat series.
    long[] ts = series.stream().flatMapToLong(s -> {
      long[] live = new long[s.size()];
      int k = 0;
      for (int i = 0; i < s.size(); i++) {
        if (!StaleMarker.is(s.valueBits()[i])) {
          live[k++] = s.timestampsMs()[i];
        }
      }
      return Arrays.stream(live, 0, k);
    }).sorted().distinct().toArray();
    if (ts.length < 3) {
      return;
    }
    long[] diffs = new long[ts.length - 1];
    for (int i = 1; i < ts.length; i++) {
      diffs[i - 1] = ts[i] - ts[i - 1];
    }
    long[] sorted = diffs.clone();
    Arrays.sort(sorted);
    long interval = Math.max(1, sorted[sorted.length / 2]);
    long allowed = (long) (config.gapFactor() * interval);
    for (int i = 1; i < ts.length; i++) {
      if (ts[i] - ts[i - 1] > allowed) {
        mark(frame, ts[i - 1] + interval, ts[i] - 1);
      }
    }
    long last = ts[ts.length - 1];
    if (untilMs - last > allowed + DELIVERY_SLACK_MS) {
      mark(frame, last + interval, untilMs);
    }
  }

  private static void mark(IndicatorFrame frame, long fromMs, long toMs) {
    for (int i = 0; i < frame.steps(); i++) {
      long t = frame.timeMs(i);
      if (t >= fromMs && t <= toMs) {
        frame.markGap(i);
      }
    }
  }
}
