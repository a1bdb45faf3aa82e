package io.inferlens.analysis.diagnose;

import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.promql.StaleMarker;
import io.inferlens.analysis.promql.ast.Expr;
import io.inferlens.analysis.promql.engine.Engine;
import io.inferlens.analysis.promql.engine.EngineOptions;
import io.inferlens.analysis.promql.engine.PointSeries;
import io.inferlens.analysis.promql.engine.QueryException;
import io.inferlens.analysis.promql.engine.QueryResult;
import io.inferlens.analysis.promql.StepRange;
import io.inferlens.analysis.target.ResolvedSignal;
import io.inferlens.storage.Series;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.Querier;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Evaluates a target's resolved signals into an {@link IndicatorFrame}: each indicator is its
 * one PromQL formula ({@link IndicatorQueries}) evaluated by the PromQL engine as a range query,
 * so the numbers are the ones Prometheus or Grafana give for the same expression. Ranges longer
 * than {@link StepRange#MAX_STEPS} steps are evaluated in chunks.
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
    for (Map.Entry<Signal, ResolvedSignal> e : signals.entrySet()) {
      for (Indicator ind : indicators(e.getKey())) {
        frame.putQuery(ind, IndicatorQueries.text(e.getValue(), ind, config.rateWindowMs()));
      }
    }
    ResolvedSignal heartbeat = signals.containsKey(Signal.WAITING) ? signals.get(Signal.WAITING)
        : signals.containsKey(Signal.RUNNING) ? signals.get(Signal.RUNNING) : null;
    if (heartbeat != null) {
      markGaps(store, heartbeat, frame, Math.max(startMs, gapsFromMs), Math.min(endMs, nowMs));
    }
    return frame;
  }

  /**
   * Every indicator of every signal over one step range (&le; {@link StepRange#MAX_STEPS}), each
   * from its one formula ({@link IndicatorQueries}) evaluated by the PromQL engine.
   */
  private Map<Indicator, double[]> evaluateRange(Querier store,
      Map<Signal, ResolvedSignal> signals, StepRange range) throws StorageException {
    Engine engine = new Engine(store, EngineOptions.DEFAULTS);
    Map<Indicator, double[]> out = new java.util.EnumMap<>(Indicator.class);
    for (Map.Entry<Signal, ResolvedSignal> e : signals.entrySet()) {
      for (Indicator ind : indicators(e.getKey())) {
        out.put(ind, evaluate(engine, IndicatorQueries.of(e.getValue(), ind,
            config.rateWindowMs()), range));
      }
    }
    return out;
  }

  /**
   * @return the expression's single series at each step of {@code range}, NaN where it has no
   *     value
   * @throws StorageException if the store fails under the engine
   */
  static double[] evaluate(Engine engine, Expr expr, StepRange range) throws StorageException {
    double[] v = new double[range.count()];
    Arrays.fill(v, Double.NaN);
    QueryResult r;
    try {
      r = engine.range(expr, range.startMs(), range.endMs(), range.stepMs());
    } catch (QueryException ex) {
      if (ex.kind() == QueryException.Kind.INTERNAL && ex.getCause() instanceof StorageException se) {
        throw se;
      }
      throw new IllegalStateException("indicator query " + expr + " failed: " + ex.getMessage(), ex);
    }
    for (PointSeries s : r.matrix()) {
      for (int i = 0; i < s.size(); i++) {
        int k = (int) ((s.timestampMs(i) - range.startMs()) / range.stepMs());
        v[k] = s.value(i);
      }
    }
    return v;
  }

  /**
   * @param ind an indicator
   * @return the signal that feeds it ({@link #indicators(Signal)} the other way round), or null
   *     for an indicator no signal feeds
   */
  public static Signal signalOf(Indicator ind) {
    for (Signal s : Signal.values()) {
      for (Indicator i : indicators(s)) {
        if (i == ind) {
          return s;
        }
      }
    }
    return null;
  }

  /**
   * The indicators one signal feeds, e.g. TTFT → {@code ttft_p50}, {@code ttft_p95},
   * {@code ttft_p99}.
   *
   * @param s a signal
   * @return its indicators, a fresh array; empty for a signal no indicator reads
   */
  public static Indicator[] indicators(Signal s) {
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

  private void markGaps(Querier store, ResolvedSignal heartbeat, IndicatorFrame frame,
      long fromMs, long untilMs) throws StorageException {
    long lastStep = frame.timeMs(frame.steps() - 1);
    long[] ts = new long[0];
    // Ten minutes before the frame show the scrape interval; a silence longer than that (the
    // evaluator's new steps of a target that stopped) needs the samples from before it began.
    for (long back : GAP_LOOKBACKS_MS) {
      ts = heartbeatTimes(store, heartbeat, fromMs - back, lastStep);
      if (ts.length >= 3) {
        break;
      }
    }
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

  /** How far before a frame's first step its heartbeat samples are looked for, widening. */
  private static final long[] GAP_LOOKBACKS_MS = {
      10 * 60_000L, 3_600_000L, 6 * 3_600_000L, 86_400_000L};

  /** The live (non-stale) sample timestamps of the heartbeat series, merged and sorted. */
  private static long[] heartbeatTimes(Querier store, ResolvedSignal heartbeat, long fromMs,
      long toMs) throws StorageException {
    List<Series> series = store.select(heartbeat.matchers(), fromMs, toMs);
    return series.stream().flatMapToLong(s -> {
      long[] live = new long[s.size()];
      int k = 0;
      for (int i = 0; i < s.size(); i++) {
        if (!StaleMarker.is(s.valueBits()[i])) {
          live[k++] = s.timestampsMs()[i];
        }
      }
      return Arrays.stream(live, 0, k);
    }).sorted().distinct().toArray();
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
