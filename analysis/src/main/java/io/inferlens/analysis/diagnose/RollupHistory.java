package io.inferlens.analysis.diagnose;

import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.target.ResolvedSignal;
import io.inferlens.storage.Resolution;
import io.inferlens.storage.StorageException;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * A target's baseline history read from the store's 5-minute rollups ({@link RollupEvaluator})
 * instead of raw samples: the part of the baseline lookback before the range
 * {@link DiagnosisEngine#analyze} evaluates step by step. 14 days are 4,032 intervals per
 * indicator instead of 80,640 steps of 15 s, each step reading a rate window of raw samples.
 *
 * <p>Each interval's value is placed at the interval's end: a latency quantile over the
 * interval's bucket increases (the rate window's worth of intervals when it is longer, see
 * {@link #applies}) is what a step-wise {@code histogram_quantile} over a 5-minute
 * {@code rate} reads at that time, except that rollups do not extrapolate (which scales every
 * bucket of a histogram alike, so leaves quantiles as they are) and include the rise from the
 * previous interval's last sample (one scrape more of the window). The upstream backlog is the
 * interval's last value (the instant value at its end).
 *
 * <p>Stateless; thread safe as the store.
 */
final class RollupHistory {

  /** The rollups read: the finest kept, so one point stands for twenty 15 s steps. */
  static final Resolution RESOLUTION = Resolution.FIVE_MINUTES;

  /**
   * What the history carries: the baselined indicators (latency P95s and token lengths), the
   * upstream backlog (a rising backlog keeps a point out of the baselines) and the request rate
   * (version comparisons at comparable load read the whole lookback).
   */
  static final Set<Indicator> INDICATORS = EnumSet.of(Indicator.TTFT_P95, Indicator.TPOT_P95,
      Indicator.E2E_P95, Indicator.QUEUE_TIME_P95, Indicator.PROMPT_TOKENS,
      Indicator.GENERATION_TOKENS, Indicator.UPSTREAM_BACKLOG, Indicator.REQUEST_RATE);

  private RollupHistory() {}

  /**
   * Whether rollups can stand in for raw history under a configuration: the rate window must be
   * a whole number of 5-minute intervals (else the rollup signal is a different one: a 10 s
   * window's quantile varies far more than a 5 m one's, so its P95 would be underestimated) and
   * the step must divide 5 minutes (so each interval stands for a whole number of steps).
   *
   * @param config the analysis configuration
   * @param stepMs the evaluation step, milliseconds, &gt; 0
   * @return true when {@link #evaluate} may be used
   */
  static boolean applies(AnalysisConfig config, long stepMs) {
    long iv = RESOLUTION.intervalMs();
    return config.rateWindowMs() % iv == 0 && iv % stepMs == 0;
  }

  /**
   * As {@link #evaluate(RollupEvaluator, Map, AnalysisConfig, long, long, FrameCache, String,
   * long)} without a cache.
   *
   * @param rollups reads the rollups
   * @param signals the target's resolved signals; indicators of missing ones stay absent
   * @param config rate window (intervals per window = rate window / 5 min)
   * @param fromMs history start, milliseconds: the first interval is the one holding it
   * @param toMs history end, milliseconds, a multiple of 5 minutes: the last interval ends here
   * @return as the cached variant
   * @throws IllegalArgumentException if toMs is not a multiple of 5 minutes
   * @throws StorageException if the store fails
   */
  static IndicatorFrame evaluate(RollupEvaluator rollups, Map<Signal, ResolvedSignal> signals,
      AnalysisConfig config, long fromMs, long toMs) throws StorageException {
    return evaluate(rollups, signals, config, fromMs, toMs, null, null, Long.MIN_VALUE);
  }

  /**
   * Reuses chunks of {@value IndicatorEvaluator#CHUNK_STEPS} points (3 1/3 days), aligned on
   * multiples of their length, from the engine's cache under {@code cacheKey + "|rollup5m"};
   * only chunks whose last point is older than {@link IndicatorEvaluator#DELIVERY_SLACK_MS} plus
   * the rate window and one interval are cached. The cache drops a chunk when samples are
   * appended from {@code rate window + 5 min} before its first point on (its dependency
   * margin must be at least that), so backfilled history is read again.
   *
   * @param rollups reads the rollups
   * @param signals the target's resolved signals; indicators of missing ones stay absent
   * @param config rate window (intervals per window = rate window / 5 min)
   * @param fromMs history start, milliseconds: the first interval is the one holding it
   * @param toMs history end, milliseconds, a multiple of 5 minutes: the last interval ends here
   * @param cache the engine's cache, or null to read everything
   * @param cacheKey the target and the metrics its signals resolved to; null disables the cache
   * @param nowMs the present, milliseconds
   * @return one point per interval at its end time ({@code stepMs} 5 minutes), NaN where an
   *     interval has no data; null when no whole interval lies in {@code [fromMs, toMs]}
   * @throws IllegalArgumentException if toMs is not a multiple of 5 minutes
   * @throws StorageException if the store fails
   */
  static IndicatorFrame evaluate(RollupEvaluator rollups, Map<Signal, ResolvedSignal> signals,
      AnalysisConfig config, long fromMs, long toMs, FrameCache cache, String cacheKey,
      long nowMs) throws StorageException {
    long iv = RESOLUTION.intervalMs();
    if (Math.floorMod(toMs, iv) != 0) {
      throw new IllegalArgumentException("history end " + toMs + " ms is not a multiple of "
          + iv + " ms");
    }
    long firstPoint = Math.floorDiv(fromMs, iv) * iv + iv;
    long lastPoint = toMs;
    if (lastPoint < firstPoint) {
      return null;
    }
    int steps = (int) ((lastPoint - firstPoint) / iv) + 1;
    IndicatorFrame frame = new IndicatorFrame(firstPoint, iv, steps);
    Map<Indicator, double[]> all = new EnumMap<>(Indicator.class);
    for (Signal sig : signals.keySet()) {
      for (Indicator ind : IndicatorEvaluator.indicators(sig)) {
        if (INDICATORS.contains(ind)) {
          double[] v = new double[steps];
          Arrays.fill(v, Double.NaN);
          all.put(ind, v);
        }
      }
    }
    long span = IndicatorEvaluator.CHUNK_STEPS * iv;
    long cacheableBefore = nowMs - IndicatorEvaluator.DELIVERY_SLACK_MS - config.rateWindowMs()
        - iv;
    String key = cacheKey == null ? null : cacheKey + "|rollup5m";
    for (long cs = Math.floorDiv(firstPoint, span) * span; cs <= lastPoint; cs += span) {
      long chunkLast = cs + span - iv;
      Map<Indicator, double[]> part;
      long partStart;
      if (cache != null && key != null && chunkLast < cacheableBefore) {
        FrameCache.Chunk c = cache.get(key, iv, cs);
        if (c == null) {
          c = new FrameCache.Chunk(cs, iv, IndicatorEvaluator.CHUNK_STEPS,
              points(rollups, signals, config, cs, chunkLast));
          cache.put(key, c);
        }
        part = c.values();
        partStart = cs;
      } else {
        partStart = Math.max(cs, firstPoint);
        part = points(rollups, signals, config, partStart, Math.min(chunkLast, lastPoint));
      }
      for (Map.Entry<Indicator, double[]> e : part.entrySet()) {
        double[] dst = all.get(e.getKey());
        double[] src = e.getValue();
        for (int k = 0; k < src.length; k++) {
          long t = partStart + k * iv;
          if (t >= firstPoint && t <= lastPoint) {
            dst[(int) ((t - firstPoint) / iv)] = src[k];
          }
        }
      }
    }
    for (Map.Entry<Indicator, double[]> e : all.entrySet()) {
      frame.put(e.getKey(), e.getValue());
    }
    return frame;
  }

  /** The points from {@code firstPointMs} to {@code lastPointMs} (interval ends), every 5 min. */
  private static Map<Indicator, double[]> points(RollupEvaluator rollups,
      Map<Signal, ResolvedSignal> signals, AnalysisConfig config, long firstPointMs,
      long lastPointMs) throws StorageException {
    long iv = RESOLUTION.intervalMs();
    int n = (int) ((lastPointMs - firstPointMs) / iv) + 1;
    int windowIntervals = (int) (config.rateWindowMs() / iv);
    long firstStart = firstPointMs - iv;
    Map<Indicator, double[]> out = new EnumMap<>(Indicator.class);
    for (Map.Entry<Signal, ResolvedSignal> e : signals.entrySet()) {
      for (Indicator ind : IndicatorEvaluator.indicators(e.getKey())) {
        if (!INDICATORS.contains(ind)) {
          continue;
        }
        RollupEvaluator.IntervalValues v = rollups.evaluate(e.getValue(), ind, firstStart,
            lastPointMs - iv, RESOLUTION, windowIntervals, RollupEvaluator.GaugeReading.LAST);
        double[] values = new double[n];
        Arrays.fill(values, Double.NaN);
        for (int k = 0; k < v.startsMs().length; k++) {
          values[(int) ((v.startsMs()[k] - firstStart) / iv)] = v.values()[k];
        }
        out.put(ind, values);
      }
    }
    return out;
  }
}
