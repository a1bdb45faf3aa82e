package io.inferlens.analysis.diagnose;

import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.promql.StepRange;
import io.inferlens.analysis.target.ResolvedSignal;
import io.inferlens.analysis.target.SignalResolver;
import io.inferlens.analysis.target.Target;
import io.inferlens.analysis.target.TargetConfig;
import io.inferlens.analysis.target.TargetDiscovery;
import io.inferlens.analysis.target.VersionSpan;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.Querier;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The analysis engine's entry point: from what is stored to targets, indicators and diagnoses,
 * for any requested range — history and backfilled data included, since every call evaluates
 * what the store holds now.
 *
 * <p>Each call evaluates the requested range plus the baseline lookback before it
 * ({@link AnalysisConfig#baselineLookbackMs()}, 14 days by default, from the target's first
 * sample on). The range, and a lead-in before it ({@link #leadInMs}), are evaluated from raw
 * samples at the configured step; the lookback before the lead-in is read from the store's
 * 5-minute rollups ({@link RollupHistory}) when the rate window is a whole number of 5 minutes
 * and the step divides 5 minutes (the defaults, 5 m and 15 s), and from raw samples at the step
 * otherwise. How the baseline learned from 5-minute history differs from one learned step by
 * step is in {@link Diagnoser#diagnose(IndicatorFrame, IndicatorFrame, int, String, Map, long)}.
 * Evaluated chunks older than a few minutes, raw steps and rollup points alike, are cached
 * ({@link FrameCache}) and dropped when samples are appended in their time range, so repeated
 * and long-range requests do not re-read samples or rollups.
 *
 * <p>Thread safe: calls share nothing mutable.
 */
public final class DiagnosisEngine {

  /**
   * Most evaluation steps one target's analysis may span: 400,000, about 69 days at the 15 s
   * analysis step. Frames take a few hundred bytes a step (every indicator raw, smoothed and
   * thresholded), so a year at 15 s (2.1 M steps) ran a 1 GiB heap out of memory, in the process
   * that also takes writes; longer ranges are refused with a message instead.
   */
  public static final int MAX_STEPS = 400_000;

  private final Querier store;
  private final SignalCatalog catalog;
  private final TargetConfig targetConfig;
  private final AnalysisConfig config;
  private final Clock clock;
  private final TargetDiscovery discovery;
  private final SignalResolver resolver;
  private final FrameCache cache;
  /** {@link #cache} read but not filled. */
  private final FrameCache readThrough;
  private final SparklineCache sparklineCache = new SparklineCache();
  private final RollupEvaluator rollups;

  /**
   * @param store the store to read
   * @param catalog signal → metric names
   * @param targetConfig grouping and join labels
   * @param config thresholds and time scales
   * @param clock the present, for open periods and trailing gaps
   */
  public DiagnosisEngine(Querier store, SignalCatalog catalog, TargetConfig targetConfig,
      AnalysisConfig config, Clock clock) {
    this(store, catalog, targetConfig, config, clock, newCache(config, DEFAULT_CACHE_BYTES));
  }

  /**
   * An engine whose evaluated chunks go to {@code cache}, e.g. one tenant's
   * {@link FrameCache#partition(String)} of a cache all tenants' engines share.
   *
   * @param store the store to read
   * @param catalog signal → metric names
   * @param targetConfig grouping and join labels
   * @param config thresholds and time scales
   * @param clock the present, for open periods and trailing gaps
   * @param cache where evaluated chunks are kept, made by {@link #newCache} with the same
   *     {@code config} (its dependency margin); appends to {@code store} invalidate it
   */
  public DiagnosisEngine(Querier store, SignalCatalog catalog, TargetConfig targetConfig,
      AnalysisConfig config, Clock clock, FrameCache cache) {
    this.store = store;
    this.rollups = new RollupEvaluator(store);
    this.catalog = catalog;
    this.targetConfig = targetConfig;
    this.config = config;
    this.clock = clock;
    this.discovery = new TargetDiscovery(catalog);
    this.resolver = new SignalResolver(catalog, targetConfig);
    this.cache = cache;
    this.readThrough = cache.readOnlyView();
    store.addAppendListener(cache::invalidate);
    store.addAppendListener(sparklineCache::invalidate);
  }

  /**
   * @param config the engines' time scales
   * @param budgetBytes the cache's budget in bytes, &gt; 0
   * @return an empty evaluated-chunk cache for engines of {@code config}
   * @throws IllegalArgumentException if {@code budgetBytes} &le; 0
   */
  public static FrameCache newCache(AnalysisConfig config, long budgetBytes) {
    // A chunk depends on samples up to the rate window (or the instant lookback) before its
    // first step; history chunks of rollup points one interval more (the previous interval's
    // last value starts a counter's increase).
    return new FrameCache(budgetBytes,
        Math.max(config.rateWindowMs(),
            io.inferlens.analysis.promql.engine.EngineOptions.DEFAULTS.lookbackDeltaMs())
            + RollupHistory.RESOLUTION.intervalMs());
  }

  /**
   * Budget of the evaluated-chunk cache: 256 MiB holds about 30 days of 15 s indicators for ~15
   * targets (≈ 17 MiB each); older chunks are evaluated again when needed.
   */
  public static final long DEFAULT_CACHE_BYTES = 256L << 20;

  /** @return the cache of evaluated chunks (for metrics and tests) */
  public FrameCache cache() {
    return cache;
  }

  private static String cacheKey(Target target, Map<Signal, ResolvedSignal> signals) {
    StringBuilder sb = new StringBuilder(target.id());
    for (Map.Entry<Signal, ResolvedSignal> e : signals.entrySet()) {
      sb.append('|').append(e.getKey()).append('=').append(e.getValue().metricName())
          .append(e.getValue().scopeMatchers());
    }
    return sb.toString();
  }

  /** @return the analysis configuration in force */
  public AnalysisConfig config() {
    return config;
  }

  /**
   * @param startMs range start, ms
   * @param endMs range end, ms
   * @return targets with engine samples in the range, by id
   * @throws StorageException if the store fails
   */
  public List<Target> targets(long startMs, long endMs) throws StorageException {
    return discovery.discover(store, targetConfig, startMs, endMs);
  }

  /**
   * One target's evaluated indicators and diagnoses over a range.
   *
   * @param target the target
   * @param signals the signals it resolved to (the metric name chosen per signal)
   * @param frame indicators at the step from the start of the raw evaluation (the lead-in before
   *     the range, or the whole lookback when history is not read from rollups) to {@code endMs}
   * @param reportFromStep first step inside the requested range
   * @param history the lookback before {@code frame} at 5-minute points from rollups (baselined
   *     indicators, upstream backlog, request rate), or null when there is none or it was
   *     evaluated at the step inside {@code frame}
   * @param result smoothed values, thresholds, baselines and diagnoses
   */
  public record TargetAnalysis(Target target, Map<Signal, ResolvedSignal> signals,
      IndicatorFrame frame, int reportFromStep, IndicatorFrame history,
      Diagnoser.Result result) {}

  /**
   * Lead-in smoothing spans: the EMA's memory of what came before falls to
   * {@code (1 − α)^(6N)} ≈ 2e-5 of its weight at N = 10 (α = 2/11), so smoothed values in the
   * range are those of an evaluation that started 14 days earlier to about five digits; an SMA
   * needs only N points.
   */
  static final int LEAD_IN_SMOOTHING_SPANS = 6;

  /**
   * How far before the requested range the raw, step-wise evaluation starts when history comes
   * from rollups: {@code forMs} (the upstream backlog is compared with its value that long ago,
   * and a period needs that long to count) plus {@value #LEAD_IN_SMOOTHING_SPANS} smoothing
   * spans of N steps. 20 minutes with the defaults (5 m, N = 10, 15 s).
   *
   * @param stepMs evaluation step, milliseconds, &gt; 0
   * @return the lead-in, milliseconds
   */
  public long leadInMs(long stepMs) {
    return config.forMs() + LEAD_IN_SMOOTHING_SPANS * (long) config.smoothingN() * stepMs;
  }

  /**
   * The rollup resolution a trend over a range reads: the coarsest that still gives each UTC day
   * many points. Ranges over 7 days read 1-hour rollups (24 values a day, 12 times fewer blocks
   * than 5-minute ones, which keeps a 30-day trend of a target near 10 ms of reads), shorter
   * ones 5-minute rollups (288 a day).
   *
   * @param rangeMs the range length, milliseconds
   * @return the resolution
   */
  public static io.inferlens.storage.Resolution trendResolution(long rangeMs) {
    return rangeMs > 7 * 86_400_000L ? io.inferlens.storage.Resolution.ONE_HOUR
        : io.inferlens.storage.Resolution.FIVE_MINUTES;
  }

  /**
   * Indicators of a target per rollup interval, from the store's rollups: the long-range trend
   * path, whose cost grows with the intervals in range rather than the raw samples.
   *
   * @param target the target
   * @param indicators the indicators
   * @param startMs range start, milliseconds
   * @param endMs range end, milliseconds, &ge; startMs
   * @param resolution 5 m or 1 h
   * @return values per interval by indicator, in the given order; empty values when the target
   *     has no series for an indicator
   * @throws StorageException if the store fails
   */
  public Map<Indicator, RollupEvaluator.IntervalValues> trend(Target target,
      List<Indicator> indicators, long startMs, long endMs,
      io.inferlens.storage.Resolution resolution) throws StorageException {
    Map<Signal, ResolvedSignal> signals = resolver.resolveAll(store, target, startMs, endMs);
    Map<Indicator, RollupEvaluator.IntervalValues> out = new java.util.LinkedHashMap<>();
    for (Indicator indicator : indicators) {
      ResolvedSignal rs = signals.get(IndicatorEvaluator.signalOf(indicator));
      out.put(indicator, rs == null
          ? new RollupEvaluator.IntervalValues(new long[0], new double[0])
          : rollups.evaluate(rs, indicator, startMs, endMs, resolution));
    }
    return out;
  }


  /**
   * Raw indicator values of one target at a coarse step, for sparklines: each indicator's one
   * formula ({@link IndicatorQueries}) evaluated by the PromQL engine over the range only, with
   * no baseline lookback, smoothing, thresholds or diagnoses, so it costs a few range queries.
   * Rates are taken over {@code max(rate window, step)}, so every point covers its whole step
   * (as Grafana's {@code $__rate_interval} does) rather than sampling the last rate window.
   * Steps whose window ended before the delivery slack are cached ({@code SparklineCache}) until
   * samples are appended in their range, so a refresh evaluates only the newest steps.
   *
   * @param target the target
   * @param indicators the indicators wanted
   * @param startMs first step, milliseconds
   * @param endMs last step allowed, milliseconds, &ge; startMs
   * @param stepMs step, milliseconds, &gt; 0; at most {@link StepRange#MAX_STEPS} steps
   * @return per indicator, in the given order, one value per step from {@code startMs} (NaN
   *     where there is none); an indicator the target has no series for maps to null
   * @throws StorageException if the store fails
   * @throws IllegalArgumentException if the range has too many steps
   */
  public Map<Indicator, double[]> sparklines(Target target, List<Indicator> indicators,
      long startMs, long endMs, long stepMs) throws StorageException {
    StepRange range = new StepRange(startMs, endMs, stepMs);
    io.inferlens.analysis.promql.engine.Engine promql = new io.inferlens.analysis.promql.engine
        .Engine(store, io.inferlens.analysis.promql.engine.EngineOptions.DEFAULTS);
    long window = Math.max(config.rateWindowMs(), stepMs);
    long cacheableBefore = clock.millis() - IndicatorEvaluator.DELIVERY_SLACK_MS - window;
    Map<Indicator, double[]> out = new java.util.LinkedHashMap<>();
    // Only the signals the indicators read: resolving all of them costs more than the queries.
    Map<Signal, java.util.Optional<ResolvedSignal>> resolved = new java.util.EnumMap<>(Signal.class);
    for (Indicator indicator : indicators) {
      Signal s = IndicatorEvaluator.signalOf(indicator);
      if (s != null && !resolved.containsKey(s)) {
        resolved.put(s, resolver.resolve(store, target, s, startMs, endMs));
      }
      ResolvedSignal rs = s == null ? null : resolved.get(s).orElse(null);
      if (rs == null) {
        out.put(indicator, null);
        continue;
      }
      String key = target.id() + '|' + indicator + '|' + rs.metricName() + rs.scopeMatchers()
          + '|' + stepMs;
      // A refresh of the same range evaluates only the steps the cache does not hold.
      double[] cached = sparklineCache.get(key, startMs, stepMs);
      int have = cached == null ? 0 : Math.min(cached.length, range.count());
      double[] v = new double[range.count()];
      if (have > 0) {
        System.arraycopy(cached, 0, v, 0, have);
      }
      if (have < v.length) {
        double[] fresh = IndicatorEvaluator.evaluate(promql,
            IndicatorQueries.of(rs, indicator, window),
            new StepRange(startMs + have * stepMs, endMs, stepMs));
        System.arraycopy(fresh, 0, v, have, fresh.length);
      }
      sparklineCache.put(key, startMs, stepMs, v, cacheableBefore);
      out.put(indicator, v);
    }
    return out;
  }

  /**
   * @param target the target
   * @param startMs requested range start, ms
   * @param endMs requested range end, ms, ≥ startMs
   * @param stepMs evaluation step, ms; when ≤ 0, {@link #fitStepMs} of the range (the analysis
   *     step, coarsened for long ranges)
   * @return the analysis
   * @throws StorageException if the store fails
   * @throws IllegalArgumentException if end &lt; start, or the range holds more than
   *     {@link #MAX_STEPS} steps (the message names the range, the step and the limit)
   */
  public TargetAnalysis analyze(Target target, long startMs, long endMs, long stepMs)
      throws StorageException {
    return analyze(target, startMs, endMs, stepMs, true);
  }

  /**
   * As {@link #analyze(Target, long, long, long)}; with {@code keepInCache} false the evaluated
   * chunks are read from the cache where it holds them but not kept in it: the always-on
   * evaluator's analyses, each of which it keeps the outcome of itself (its stream), and which
   * for hundreds of targets would push every reader's chunks out and fill the whole budget.
   *
   * @param keepInCache whether chunks evaluated here are kept for later analyses
   * @return the analysis
   * @throws StorageException if the store fails
   * @throws IllegalArgumentException as {@link #analyze(Target, long, long, long)}
   */
  public TargetAnalysis analyze(Target target, long startMs, long endMs, long stepMs,
      boolean keepInCache) throws StorageException {
    FrameCache cache = keepInCache ? this.cache : readThrough;
    if (endMs < startMs) {
      throw new IllegalArgumentException("end " + endMs + " ms is before start " + startMs + " ms");
    }
    long step = stepMs > 0 ? stepMs : fitStepMs(endMs - startMs);
    long steps = (endMs - startMs) / step;
    if (steps > MAX_STEPS || steps < 0) {
      throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
          "range of %.1f days at a %s s step is %d steps, over the limit of %d (%.0f days at"
              + " this step); ask for a shorter range, a coarser step where the endpoint takes"
              + " one, or /api/v1/trends for long-range review from rollups",
          (endMs - startMs) / 86_400_000.0, step / 1000.0, steps, MAX_STEPS,
          MAX_STEPS * (double) step / 86_400_000.0));
    }
    long historyStart = startMs - config.baselineLookbackMs();
    Map<Signal, ResolvedSignal> signals = resolver.resolveAll(store, target, historyStart, endMs);
    // History only from the target's first sample: a new target has no 14 days to evaluate.
    long first = firstSampleMs(signals, historyStart, startMs);
    historyStart = Math.max(historyStart, Math.min(startMs, first));
    // Steps on the absolute grid (multiples of the step), so cached chunks serve every request.
    long evalStart = Math.floorDiv(historyStart, step) * step;
    IndicatorFrame history = null;
    if (RollupHistory.applies(config, step)) {
      // Raw from the lead-in on, on the 5-minute grid (so also on the step's); rollups before.
      long iv = RollupHistory.RESOLUTION.intervalMs();
      long rawStart = Math.floorDiv(startMs - leadInMs(step), iv) * iv;
      if (rawStart > evalStart) {
        history = RollupHistory.evaluate(rollups, signals, config, historyStart, rawStart,
            cache, cacheKey(target, signals), clock.millis());
        evalStart = rawStart;
      }
    }
    long now = clock.millis();
    IndicatorFrame frame = new IndicatorEvaluator(config).evaluate(store, signals, evalStart,
        endMs, step, now, cache, cacheKey(target, signals), startMs);
    int reportFrom = (int) Math.min(frame.steps(), (startMs - evalStart + step - 1) / step);
    Diagnoser.Result result = new Diagnoser(config).diagnose(history, frame, reportFrom,
        target.id(), target.labels());
    return new TargetAnalysis(target, signals, frame, reportFrom, history, result);
  }

  /**
   * The first sample of the target's engine heartbeat (waiting or running requests) in
   * {@code [fromMs, untilMs]}, or {@code untilMs} when there is none.
   */
  private long firstSampleMs(Map<Signal, ResolvedSignal> signals, long fromMs, long untilMs)
      throws StorageException {
    ResolvedSignal hb = signals.getOrDefault(Signal.WAITING, signals.get(Signal.RUNNING));
    if (hb == null) {
      return fromMs;
    }
    long first = untilMs;
    // Day by day from the oldest: stop at the first day that has samples.
    for (long from = fromMs; from < untilMs; from += 86_400_000L) {
      long to = Math.min(untilMs, from + 86_400_000L - 1);
      for (io.inferlens.storage.Series s : store.select(hb.matchers(), from, to)) {
        if (s.size() > 0) {
          first = Math.min(first, s.timestampsMs()[0]);
        }
      }
      if (first < untilMs) {
        break;
      }
    }
    return first;
  }

  /** The last step with engine data: GPU and Kafka series are shared by the host's targets. */
  private static long dataEnd(IndicatorFrame frame) {
    long end = frame.startMs();
    for (Map.Entry<Indicator, double[]> e : frame.all().entrySet()) {
      Indicator ind = e.getKey();
      if (ind == Indicator.GPU_UTIL || ind == Indicator.GPU_MEM
          || ind == Indicator.UPSTREAM_BACKLOG) {
        continue;
      }
      double[] v = e.getValue();
      for (int i = v.length - 1; i >= 0; i--) {
        if (!Double.isNaN(v[i])) {
          end = Math.max(end, frame.timeMs(i));
          break;
        }
      }
    }
    return end;
  }

  /**
   * The step a range is evaluated at when the caller names none: the analysis step when the
   * range fits in {@link #MAX_STEPS} steps at it, else the smallest multiple of the analysis step
   * that fits (as dashboards coarsen), so no range is refused for its length.
   *
   * @param rangeMs the range's length in milliseconds, &ge; 0
   * @return the step in milliseconds, a positive multiple of {@link AnalysisConfig#stepMs()}
   */
  public long fitStepMs(long rangeMs) {
    long base = config.stepMs();
    long min = (Math.max(0, rangeMs) + MAX_STEPS - 1) / MAX_STEPS; // rangeMs / step <= MAX_STEPS
    return Math.max(1, (min + base - 1) / base) * base;
  }

  /**
   * Diagnoses of every target (or those whose labels satisfy one of the selectors) overlapping
   * a range, oldest first, evaluated at {@link #fitStepMs} of the range, including
   * VERSION_REGRESSION between consecutive models of an instance.
   *
   * @param startMs range start, ms
   * @param endMs range end, ms
   * @param selectors target filters: a target is kept when all matchers of at least one selector
   *     match its grouping labels ({@code __name__} matchers are ignored); empty keeps all
   * @return diagnoses
   * @throws StorageException if the store fails
   */
  public List<Diagnosis> diagnoses(long startMs, long endMs, List<List<Matcher>> selectors)
      throws StorageException {
    return diagnoses(startMs, endMs, selectors, t -> endMs);
  }

  /**
   * As {@link #diagnoses(long, long, List)}, each target evaluated only up to its own end: the
   * part of the range an {@code IncidentJournal} does not cover differs per target (one seen
   * later by the evaluator, one never seen). The step is that of the whole range, so the result
   * is the one the whole range would give.
   *
   * @param startMs range start, ms
   * @param endMs range end, ms
   * @param selectors as for {@link #diagnoses(long, long, List)}
   * @param untilOf a target's last time to evaluate, ms; a target whose end is at or before
   *     {@code startMs} is skipped, one after {@code endMs} ends at {@code endMs}
   * @return diagnoses
   * @throws StorageException if the store fails
   */
  public List<Diagnosis> diagnoses(long startMs, long endMs, List<List<Matcher>> selectors,
      java.util.function.ToLongFunction<Target> untilOf) throws StorageException {
    List<Diagnosis> out = new ArrayList<>();
    List<TargetAnalysis> analyses = new ArrayList<>();
    long step = fitStepMs(endMs - startMs);
    for (Target t : targets(startMs, endMs)) {
      if (!selected(t, selectors)) {
        continue;
      }
      long until = Math.min(endMs, untilOf.applyAsLong(t));
      if (until <= startMs) {
        continue;
      }
      TargetAnalysis a = analyze(t, startMs, until, step);
      analyses.add(a);
      out.addAll(a.result().diagnoses());
    }
    dropReplacedModelGaps(analyses, out);
    out.addAll(versionRegressions(analyses, startMs, endMs));
    List<Map<String, String>> reporting = new ArrayList<>();
    for (TargetAnalysis a : analyses) {
      reporting.add(a.target().labels());
    }
    return IncidentMerge.merge(out, reporting, silenceGraceMs());
  }

  /**
   * Prometheus's remote-write {@code batch_send_deadline} default, 5 s: the longest a sample
   * waits in a sender's queue before it is sent (Prometheus docs, remote_write queue_config).
   */
  public static final long DEFAULT_BATCH_DEADLINE_MS = 5_000;

  /**
   * How long the newest samples may still be on their way: twice the remote-write batch deadline
   * plus one scrape interval (the analysis step stands for it): 25 s by default. The always-on
   * evaluator stays that far behind the clock, and gaps of several targets starting within it of
   * each other are one silence of their sender.
   *
   * @return the grace, milliseconds
   */
  public long silenceGraceMs() {
    return 2 * DEFAULT_BATCH_DEADLINE_MS + config.stepMs();
  }

  /**
   * @param t a target
   * @param selectors as for {@link #diagnoses}
   * @return whether the target passes the filter
   */
  public static boolean selected(Target t, List<List<Matcher>> selectors) {
    if (selectors.isEmpty()) {
      return true;
    }
    for (List<Matcher> sel : selectors) {
      boolean all = true;
      for (Matcher m : sel) {
        if (!m.name().equals("__name__") && !m.matches(t.get(m.name()))) {
          all = false;
        }
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  /**
   * Consecutive models on the same instance compared at comparable load: the newer one's median
   * E2E P95 (TPOT P95 when E2E is missing) against the older one's, over steps where the request
   * rate lies within the middle half of the other's. A ratio at or above
   * {@link AnalysisConfig#versionRegressionRatio()} is a regression.
   */
  private List<Diagnosis> versionRegressions(List<TargetAnalysis> analyses, long startMs,
      long endMs) throws StorageException {
    List<Diagnosis> out = new ArrayList<>();
    String modelLabel = targetConfig.modelLabel();
    Map<String, List<TargetAnalysis>> byInstance = new LinkedHashMap<>();
    for (TargetAnalysis a : analyses) {
      byInstance.computeIfAbsent(a.target().without(modelLabel).id(), k -> new ArrayList<>())
          .add(a);
    }
    long newest = store.newestSampleMs();
    long dataPresent = Math.min(endMs, newest == Long.MIN_VALUE ? clock.millis() : newest);
    for (List<TargetAnalysis> group : byInstance.values()) {
      if (group.size() < 2) {
        continue;
      }
      List<VersionSpan> spans = discovery.versionHistory(store, targetConfig,
          group.get(0).target().without(modelLabel), startMs - config.baselineLookbackMs(), endMs);
      for (int k = 1; k < spans.size(); k++) {
        TargetAnalysis prev = find(group, modelLabel, spans.get(k - 1).model());
        TargetAnalysis next = find(group, modelLabel, spans.get(k).model());
        if (prev == null || next == null || prev == next) {
          continue;
        }
        Diagnosis d = compare(prev, next, spans.get(k), dataPresent);
        if (d != null && (d.endMs() == null || d.endMs() >= startMs)) {
          out.add(d);
        }
      }
    }
    return out;
  }

  /**
   * A model replaced by another on the same instance stops reporting: that silence is a
   * deployment, not a monitoring gap. Drops the still-open gap of every target whose instance has
   * a target with newer data.
   */
  private void dropReplacedModelGaps(List<TargetAnalysis> analyses, List<Diagnosis> out) {
    String modelLabel = targetConfig.modelLabel();
    Map<String, Long> newestByInstance = new LinkedHashMap<>();
    Map<String, Long> newestByTarget = new LinkedHashMap<>();
    for (TargetAnalysis a : analyses) {
      long end = dataEnd(a.frame());
      newestByTarget.put(a.target().id(), end);
      newestByInstance.merge(a.target().without(modelLabel).id(), end, Math::max);
    }
    out.removeIf(d -> {
      if (d.cause() != Cause.MONITORING_GAP || d.endMs() != null) {
        return false;
      }
      for (TargetAnalysis a : analyses) {
        if (a.target().labels().equals(d.target())) {
          long own = newestByTarget.get(a.target().id());
          long instance = newestByInstance.get(a.target().without(modelLabel).id());
          return instance > own;
        }
      }
      return false;
    });
  }

  /** @return the PromQL of the indicator for the analysed target, or null if it has no source */
  private String query(TargetAnalysis a, Indicator ind) {
    for (Map.Entry<Signal, ResolvedSignal> e : a.signals().entrySet()) {
      for (Indicator i : IndicatorEvaluator.indicators(e.getKey())) {
        if (i == ind) {
          return IndicatorQueries.text(e.getValue(), ind, config.rateWindowMs());
        }
      }
    }
    return null;
  }

  private static TargetAnalysis find(List<TargetAnalysis> group, String label, String model) {
    for (TargetAnalysis a : group) {
      if (a.target().get(label).equals(model)) {
        return a;
      }
    }
    return null;
  }

  private Diagnosis compare(TargetAnalysis prev, TargetAnalysis next, VersionSpan nextSpan,
      long presentMs) {
    Indicator ind = prev.result().smoothed().containsKey(Indicator.E2E_P95)
        && next.result().smoothed().containsKey(Indicator.E2E_P95)
        ? Indicator.E2E_P95 : Indicator.TPOT_P95;
    Weighted pv = Weighted.of(prev, ind);
    Weighted nv = Weighted.of(next, ind);
    Weighted pr = Weighted.of(prev, Indicator.REQUEST_RATE);
    Weighted nr = Weighted.of(next, Indicator.REQUEST_RATE);
    if (pv == null || nv == null) {
      return null;
    }
    double lo = pr == null || pr.finiteWeight() == 0 ? Double.NEGATIVE_INFINITY
        : pr.rank(0.25) * 0.8;
    double hi = pr == null || pr.finiteWeight() == 0 ? Double.POSITIVE_INFINITY
        : pr.rank(0.75) * 1.25;
    Weighted nextVals = nv.where(nr, lo, hi);
    if (nextVals.finiteWeight() < 3 || pv.finiteWeight() < 3) {
      return null;
    }
    double prevMedian = pv.rank(0.5);
    double nextMedian = nextVals.rank(0.5);
    if (!(prevMedian > 0) || nextMedian < config.versionRegressionRatio() * prevMedian) {
      return null;
    }
    String model = nextSpan.model() + (nextSpan.version().isEmpty() ? "" : " " + nextSpan.version());
    Evidence e = new Evidence(ind.key(), nextMedian, config.versionRegressionRatio() * prevMedian,
        prevMedian, ind.unit(), Diagnoser.duration(config.rateWindowMs()), nextMedian, nextMedian,
        query(next, ind), "ratio");
    List<ChainLayer> chain = List.of(
        new ChainLayer("latency", "breached", List.of(e)),
        new ChainLayer("queue", "unknown", List.of()),
        new ChainLayer("resource", "unknown", List.of()));
    String summary = String.format(Locale.ROOT,
        "%s: %s is %.1fx slower (%s median %.3g s vs %.3g s) at comparable load; %s.",
        Summaries.lead(Cause.VERSION_REGRESSION), model, nextMedian / prevMedian, ind.key(), nextMedian, prevMedian,
        Cause.VERSION_REGRESSION.recommendations().get(0));
    return new Diagnosis(next.target().id() + "/version_regression/" + nextSpan.firstMs(),
        Cause.VERSION_REGRESSION, "warning", next.target().labels(), nextSpan.firstMs(),
        // Open while the new model serves at the end of the data evaluated (the data's present,
        // not the clock's: a replay or a silent sender does not end it).
        nextSpan.lastMs() + 2 * config.stepMs() >= presentMs ? null : nextSpan.lastMs(),
        summary, chain, Cause.VERSION_REGRESSION.recommendations(), false);
  }

  /**
   * One smoothed indicator of a target over its 5-minute history points and its frame's steps,
   * each value with the number of steps it stands for (a history point: 5 min / step; a step: 1),
   * so medians and quartiles over both stay weighted by time.
   */
  private record Weighted(double[] values, long[] weights) {

    /** @return the indicator over history and frame, or null when the frame lacks it */
    static Weighted of(TargetAnalysis a, Indicator ind) {
      double[] raw = a.result().smoothed().get(ind);
      if (raw == null) {
        return null;
      }
      double[] past = a.history() == null ? null : a.result().historySmoothed().get(ind);
      int hn = past == null ? 0 : past.length;
      long w = hn == 0 ? 1 : a.history().stepMs() / a.frame().stepMs();
      double[] v = new double[hn + raw.length];
      long[] weights = new long[v.length];
      for (int i = 0; i < v.length; i++) {
        v[i] = i < hn ? past[i] : raw[i - hn];
        weights[i] = i < hn ? w : 1;
      }
      return new Weighted(v, weights);
    }

    /** @return the summed weight of the non-NaN values */
    long finiteWeight() {
      long t = 0;
      for (int i = 0; i < values.length; i++) {
        t += Double.isNaN(values[i]) ? 0 : weights[i];
      }
      return t;
    }

    /**
     * The values whose rate, at the same point, lies in {@code [lo, hi]}; all values when
     * {@code rates} is null (no request rate exposed), none where the rate is NaN.
     */
    Weighted where(Weighted rates, double lo, double hi) {
      double[] v = values.clone();
      for (int i = 0; i < v.length; i++) {
        if (rates != null && !(rates.values[i] >= lo && rates.values[i] <= hi)) {
          v[i] = Double.NaN;
        }
      }
      return new Weighted(v, weights);
    }

    /**
     * The non-NaN value at weighted rank {@code f}: the smallest value whose cumulative weight
     * exceeds {@code f ×} the total; with unit weights the element {@code floor(f × n)} of the
     * sorted values.
     *
     * @param f rank fraction in [0, 1)
     * @return the value, NaN when there is none
     */
    double rank(double f) {
      Integer[] order = new Integer[values.length];
      int n = 0;
      for (int i = 0; i < values.length; i++) {
        if (!Double.isNaN(values[i])) {
          order[n++] = i;
        }
      }
      Arrays.sort(order, 0, n, (a, b) -> Double.compare(values[a], values[b]));
      double target = f * finiteWeight();
      long seen = 0;
      for (int k = 0; k < n; k++) {
        seen += weights[order[k]];
        if (seen > target) {
          return values[order[k]];
        }
      }
      return Double.NaN;
    }
  }

  /** @return the grouping and join labels in use */
  public TargetConfig targetConfig() {
    return targetConfig;
  }

  /** @return the catalog in use */
  public SignalCatalog catalog() {
    return catalog;
  }
}
