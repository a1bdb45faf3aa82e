package io.inferlens.analysis.diagnose;

import io.inferlens.analysis.smoothing.Smoothing;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns one target's {@link IndicatorFrame} into diagnoses: smooths the indicators, learns
 * baselines along time, flags each step layer by layer (latency → queue → resource), classifies
 * it, and keeps the periods whose condition held for {@link AnalysisConfig#forMs()}.
 *
 * <p>Rules (docs/DESIGN.md section 3):
 *
 * <ul>
 *   <li>Thresholds: an SLO when configured; else {@code headroom × P95} of the smoothed indicator
 *       over the lookback (14 d), counting only steps not flagged as a problem and at least
 *       {@code forMs} old (so a slow degradation cannot raise its own threshold); else, with less
 *       than {@code baselineMinHistoryMs} of normal history, the static default. The lookback
 *       may come at a coarser step than the frame (see {@link #diagnose(IndicatorFrame,
 *       IndicatorFrame, int, String, Map, long)}): each coarse point then counts as the frame
 *       steps it spans, so the P95 stays weighted by time.
 *   <li>Per step, when a latency indicator (TTFT, TPOT/ITL or E2E P95) is breached: KV ≥ 90 %
 *       with preemptions (at least one per 50 finished requests) → KV_CACHE_PRESSURE; backlog and GPU or KV saturated →
 *       CAPACITY_EXHAUSTED; backlog alone → CONCURRENCY_LIMIT; GPU
 *       saturated alone → GPU_COMPUTE_BOUND; prompt/generation length above ratio × baseline →
 *       WORKLOAD_SHIFT; otherwise PER_REQUEST_SLOWDOWN. Without a latency breach, a Kafka lag
 *       above the minimum and rising over {@code forMs} → UPSTREAM_BACKLOG.
 *   <li>A period is a run of problem steps (silences of at most two steps bridged) lasting at
 *       least {@code forMs}; its cause is the one most of its steps had. Monitoring gaps are
 *       reported on their own, whatever their length, since the frame marks only silences longer
 *       than {@code gapFactor} scrape intervals.
 * </ul>
 *
 * <p>Stateless and thread safe.
 */
public final class Diagnoser {

  private static final Indicator[] LATENCY = {
      Indicator.TTFT_P95, Indicator.TPOT_P95, Indicator.E2E_P95};
  private static final Indicator[] BASELINED = {
      Indicator.TTFT_P95, Indicator.TPOT_P95, Indicator.E2E_P95, Indicator.QUEUE_TIME_P95,
      Indicator.PROMPT_TOKENS, Indicator.GENERATION_TOKENS};
  /** Problem-free steps bridged inside a run: one or two missed evaluations do not end it. */
  private static final int BRIDGE_STEPS = 2;

  private final AnalysisConfig config;

  /** @param config thresholds and time scales */
  public Diagnoser(AnalysisConfig config) {
    this.config = config;
  }

  /**
   * What {@link #diagnose} computed along the way, for the signals and baselines endpoints.
   *
   * @param smoothed smoothed indicators, same steps as the frame
   * @param thresholds per-step thresholds of baselined indicators (NaN where none)
   * @param baselines per-step learned baseline (P95 of normal history; NaN until enough history)
   * @param diagnoses diagnosed periods overlapping the reported range, oldest first
   * @param historySmoothed the coarse history's indicators smoothed, same points as the history
   *     frame given to {@link #diagnose(IndicatorFrame, IndicatorFrame, int, String, Map, long)};
   *     empty without one
   */
  public record Result(Map<Indicator, double[]> smoothed, Map<Indicator, double[]> thresholds,
      Map<Indicator, double[]> baselines, List<Diagnosis> diagnoses,
      Map<Indicator, double[]> historySmoothed) {}

  /**
   * @param frame the target's raw indicators; steps before {@code reportFromStep} serve only as
   *     baseline history
   * @param reportFromStep first step whose diagnoses are reported, 0 ≤ it ≤ steps
   * @param targetId stable target id, for diagnosis ids
   * @param targetLabels the target's grouping labels, copied into each diagnosis
   * @param dataEndMs time of the newest sample of the target, ms; a period reaching it is open
   *     ({@code end} null)
   * @return smoothed series, thresholds and diagnoses
   */
  public Result diagnose(IndicatorFrame frame, int reportFromStep, String targetId,
      Map<String, String> targetLabels, long dataEndMs) {
    return diagnose(null, frame, reportFromStep, targetId, targetLabels, dataEndMs);
  }

  /**
   * As {@link #diagnose(IndicatorFrame, int, String, Map, long)}, with older history at a coarser
   * step before the frame (the engine passes 5-minute rollup intervals, each value placed at its
   * interval's end, where a step-wise evaluation over the same window would read it).
   *
   * <p>History points only teach baselines, exactly as frame steps do except for these
   * approximations: a point is smoothed with the frame's smoothing re-expressed in time (EMA
   * factor {@code 1 − (1 − α)^k}, SMA over {@code round(N / k)} points, k = history step / frame
   * step); it joins the baseline with weight k, once it is {@code forMs} old like a step; and it
   * is left out as a problem when its smoothed TTFT, TPOT/ITL or E2E P95 is above the threshold
   * in force at its time, or the upstream backlog rose over {@code forMs} — the per-step
   * classification, decided per coarse point instead of per step (so a breach shorter than a
   * point that does not lift the point's value stays in the baseline, and a breached point's
   * normal steps stay out). History has no monitoring gaps: silence is missing data.
   *
   * <p>A problem period that runs from the history into the frame's first step is reported
   * from the earliest point of the unbroken run of problem points that ends with the history's
   * last point (accurate to one history step); its cause, evidence and severity come from the
   * frame's steps alone.
   *
   * @param history indicators before the frame at a coarser step, or null (or no steps) for none;
   *     its step a whole multiple of the frame's, its last point at or before the frame's start
   * @param frame the target's raw indicators; steps before {@code reportFromStep} serve only as
   *     baseline history
   * @param reportFromStep first step whose diagnoses are reported, 0 ≤ it ≤ steps
   * @param targetId stable target id, for diagnosis ids
   * @param targetLabels the target's grouping labels, copied into each diagnosis
   * @param dataEndMs time of the newest sample of the target, ms; a period reaching it is open
   *     ({@code end} null)
   * @return smoothed series, thresholds and diagnoses; thresholds and baselines for the frame's
   *     steps only
   * @throws IllegalArgumentException if the history's step is not a whole multiple of the
   *     frame's, or its last point is after the frame's start
   */
  public Result diagnose(IndicatorFrame history, IndicatorFrame frame, int reportFromStep,
      String targetId, Map<String, String> targetLabels, long dataEndMs) {
    int hn = history == null ? 0 : history.steps();
    if (hn > 0 && (history.stepMs() % frame.stepMs() != 0
        || history.timeMs(hn - 1) > frame.startMs())) {
      throw new IllegalArgumentException("history of " + hn + " points every "
          + history.stepMs() + " ms ending at " + history.timeMs(hn - 1)
          + " ms does not fit before a frame of " + frame.stepMs() + " ms steps starting at "
          + frame.startMs() + " ms");
    }
    long weight = hn == 0 ? 1 : history.stepMs() / frame.stepMs();
    int n = frame.steps();
    Map<Indicator, double[]> smooth = new EnumMap<>(Indicator.class);
    for (Map.Entry<Indicator, double[]> e : frame.all().entrySet()) {
      smooth.put(e.getKey(), smooth(e.getValue(), 1));
    }
    Map<Indicator, double[]> past = new EnumMap<>(Indicator.class);
    if (hn > 0) {
      for (Map.Entry<Indicator, double[]> e : history.all().entrySet()) {
        past.put(e.getKey(), smooth(e.getValue(), weight));
      }
    }
    Map<Indicator, double[]> thresholds = new EnumMap<>(Indicator.class);
    Map<Indicator, double[]> baselines = new EnumMap<>(Indicator.class);
    Map<Indicator, BaselineWindow> windows = new EnumMap<>(Indicator.class);
    for (Indicator ind : BASELINED) {
      if (smooth.containsKey(ind)) {
        thresholds.put(ind, nan(n));
        baselines.put(ind, nan(n));
        windows.put(ind, new BaselineWindow());
      }
    }
    Cause[] cause = new Cause[n];
    boolean[] pastProblem = new boolean[hn];
    long blockMs = config.baselineBlockMs();
    long currentBlock = Long.MIN_VALUE;
    // A step's values join the baseline only once it is `for` old and still not part of a
    // problem: a slow degradation must not drag the baseline up before it is diagnosed.
    long joinDelayMs = Math.max(1, config.forMs() / frame.stepMs()) * frame.stepMs();
    int pastJoined = 0;
    int joined = 0;
    // History points first, then the frame's steps: one timeline, oldest first.
    for (int p = 0; p < hn + n; p++) {
      int i = p - hn;
      long t = i < 0 ? history.timeMs(p) : frame.timeMs(i);
      long block = Math.floorDiv(t, blockMs);
      if (block != currentBlock) {
        for (BaselineWindow w : windows.values()) {
          w.advance(block, blockMs);
        }
        currentBlock = block;
      }
      for (; pastJoined < hn && history.timeMs(pastJoined) <= t - joinDelayMs; pastJoined++) {
        if (!pastProblem[pastJoined]) {
          for (Map.Entry<Indicator, BaselineWindow> e : windows.entrySet()) {
            double[] v = past.get(e.getKey());
            if (v != null) {
              e.getValue().add(v[pastJoined], weight);
            }
          }
        }
      }
      for (; joined < n && frame.timeMs(joined) <= t - joinDelayMs; joined++) {
        if (cause[joined] == null && !frame.isGap(joined)) {
          for (Map.Entry<Indicator, BaselineWindow> e : windows.entrySet()) {
            e.getValue().add(smooth.get(e.getKey())[joined], 1);
          }
        }
      }
      if (i < 0) {
        pastProblem[p] = pastProblem(p, past, windows, history.stepMs());
        continue;
      }
      for (Map.Entry<Indicator, BaselineWindow> e : windows.entrySet()) {
        Indicator ind = e.getKey();
        double base = e.getValue().baseline(config.stepMs(), config.baselineMinHistoryMs());
        baselines.get(ind)[i] = base;
        thresholds.get(ind)[i] = threshold(ind, base);
      }
      if (!frame.isGap(i)) {
        cause[i] = classify(i, smooth, thresholds, baselines, frame);
      }
    }
    // The run of problem points the history ends with, if any: a period crossing into the frame
    // started there.
    long pastRunStartMs = Long.MAX_VALUE;
    for (int p = hn - 1; p >= 0 && pastProblem[p]; p--) {
      pastRunStartMs = history.timeMs(p);
    }
    List<Diagnosis> out = new ArrayList<>();
    collectRuns(frame, cause, reportFromStep, pastRunStartMs, smooth, thresholds, baselines,
        targetId, targetLabels, dataEndMs, out);
    out.sort((a, b) -> Long.compare(a.startMs(), b.startMs()));
    return new Result(smooth, thresholds, baselines, out, past);
  }

  /**
   * Whether history point {@code p} is a problem, so stays out of the baselines: a latency
   * indicator above its threshold in force there, or the upstream backlog rising.
   */
  private boolean pastProblem(int p, Map<Indicator, double[]> past,
      Map<Indicator, BaselineWindow> windows, long pastStepMs) {
    for (Indicator ind : LATENCY) {
      double[] v = past.get(ind);
      BaselineWindow w = windows.get(ind);
      if (v == null || w == null || Double.isNaN(v[p])) {
        continue;
      }
      double t = threshold(ind, w.baseline(config.stepMs(), config.baselineMinHistoryMs()));
      if (!Double.isNaN(t) && v[p] > t) {
        return true;
      }
    }
    return rising(past.get(Indicator.UPSTREAM_BACKLOG), p,
        (int) Math.max(1, config.forMs() / pastStepMs));
  }

  /**
   * The configured smoothing of values {@code stepsPerPoint} frame steps apart, re-expressed in
   * time when that is more than one: EMA factor {@code 1 − (1 − α)^k}, SMA over
   * {@code max(1, round(N / k))} points.
   */
  private double[] smooth(double[] raw, long stepsPerPoint) {
    double[] s;
    int n = config.smoothingN();
    switch (config.smoothing()) {
      case "sma": s = Smoothing.sma(raw, stepsPerPoint == 1 ? n
          : (int) Math.max(1, Math.round((double) n / stepsPerPoint))); break;
      case "ema": s = stepsPerPoint == 1 ? Smoothing.ema(raw, n)
          : Smoothing.emaWithAlpha(raw, 1 - Math.pow(1 - Smoothing.alpha(n), stepsPerPoint));
        break;
      default: s = raw.clone();
    }
    // Where the raw value is missing the smoothed one is too: an EMA must not carry a stale value
    // across a gap and make it look like data.
    for (int i = 0; i < s.length; i++) {
      if (Double.isNaN(raw[i])) {
        s[i] = Double.NaN;
      }
    }
    return s;
  }

  private double threshold(Indicator ind, double baseline) {
    Double slo = config.slos().get(ind);
    if (slo != null) {
      return slo;
    }
    if (!Double.isNaN(baseline)) {
      return config.baselineHeadroom() * baseline;
    }
    Double def = config.staticDefaults().get(ind);
    return def == null ? Double.NaN : def;
  }

  private static double at(Map<Indicator, double[]> m, Indicator ind, int i) {
    double[] v = m.get(ind);
    return v == null ? Double.NaN : v[i];
  }

  private boolean breached(Map<Indicator, double[]> s, Map<Indicator, double[]> thr,
      Indicator ind, int i) {
    double v = at(s, ind, i);
    double t = at(thr, ind, i);
    return !Double.isNaN(v) && !Double.isNaN(t) && v > t;
  }

  private boolean backlog(Map<Indicator, double[]> s, Map<Indicator, double[]> thr, int i) {
    double waiting = at(s, Indicator.WAITING, i);
    double running = at(s, Indicator.RUNNING, i);
    boolean queued = waiting >= config.waitingBacklog()
        && (Double.isNaN(running) || waiting >= config.waitingPerRunning() * running);
    // Queue time counts on its own only against an explicit SLO: its learned baseline is near
    // zero on a healthy engine, so any queueing would look like a breach.
    return queued || config.slos().containsKey(Indicator.QUEUE_TIME_P95)
        && breached(s, thr, Indicator.QUEUE_TIME_P95, i);
  }

  private boolean gpuSaturated(Map<Indicator, double[]> s, int i) {
    return at(s, Indicator.GPU_UTIL, i) >= config.gpuUtilSaturatedPercent();
  }

  private boolean kvSaturated(Map<Indicator, double[]> s, int i) {
    return at(s, Indicator.KV_CACHE_USAGE, i) >= config.kvSaturatedRatio();
  }

  private boolean preempting(Map<Indicator, double[]> s, int i) {
    double rate = at(s, Indicator.PREEMPTIONS, i);
    double requests = at(s, Indicator.REQUEST_RATE, i);
    return rate > config.preemptionRatePerSecond()
        && (Double.isNaN(requests) || rate >= config.preemptionsPerRequest() * requests);
  }

  private boolean workloadShift(Map<Indicator, double[]> s, Map<Indicator, double[]> base,
      int i) {
    for (Indicator ind : new Indicator[] {Indicator.PROMPT_TOKENS, Indicator.GENERATION_TOKENS}) {
      double v = at(s, ind, i);
      double b = at(base, ind, i);
      if (!Double.isNaN(v) && !Double.isNaN(b) && b > 0 && v > config.workloadShiftRatio() * b) {
        return true;
      }
    }
    return false;
  }

  private boolean upstreamRising(Map<Indicator, double[]> s, IndicatorFrame frame, int i) {
    return rising(s.get(Indicator.UPSTREAM_BACKLOG), i,
        (int) Math.max(1, config.forMs() / frame.stepMs()));
  }

  /** Whether the lag at {@code i} is above the minimum and 5 % above {@code back} points ago. */
  private boolean rising(double[] lag, int i, int back) {
    if (lag == null || Double.isNaN(lag[i]) || lag[i] < config.upstreamMinLag()) {
      return false;
    }
    int j = i - back;
    if (j < 0 || Double.isNaN(lag[j])) {
      return false;
    }
    return lag[i] > lag[j] * 1.05;
  }

  private Cause classify(int i, Map<Indicator, double[]> s, Map<Indicator, double[]> thr,
      Map<Indicator, double[]> base, IndicatorFrame frame) {
    boolean latency = false;
    for (Indicator ind : LATENCY) {
      latency |= breached(s, thr, ind, i);
    }
    if (!latency) {
      return upstreamRising(s, frame, i) ? Cause.UPSTREAM_BACKLOG : null;
    }
    boolean backlog = backlog(s, thr, i);
    boolean gpu = gpuSaturated(s, i);
    boolean kv = kvSaturated(s, i);
    // Preemptions are the specific sign of KV pressure: a full KV cache that keeps evicting
    // requests also fills the queue and the GPU, so test it before capacity.
    if (kv && preempting(s, i)) {
      return Cause.KV_CACHE_PRESSURE;
    }
    if (backlog && (gpu || kv)) {
      return Cause.CAPACITY_EXHAUSTED;
    }
    if (backlog) {
      return Cause.CONCURRENCY_LIMIT;
    }
    if (gpu) {
      return Cause.GPU_COMPUTE_BOUND;
    }
    if (workloadShift(s, base, i)) {
      return Cause.WORKLOAD_SHIFT;
    }
    return Cause.PER_REQUEST_SLOWDOWN;
  }

  private void collectRuns(IndicatorFrame frame, Cause[] cause, int reportFrom,
      long pastRunStartMs, Map<Indicator, double[]> s, Map<Indicator, double[]> thr, Map<Indicator, double[]> base,
      String targetId, Map<String, String> labels, long dataEndMs, List<Diagnosis> out) {
    int n = frame.steps();
    long step = frame.stepMs();
    // Problem runs.
    int i = 0;
    while (i < n) {
      if (cause[i] == null) {
        i++;
        continue;
      }
      int start = i;
      int last = i;
      int j = i + 1;
      while (j < n && (cause[j] != null || (j - last <= BRIDGE_STEPS && !frame.isGap(j)))) {
        if (cause[j] != null) {
          last = j;
        }
        j++;
      }
      // A run from the frame's first step continues the history's trailing problem run.
      long startMs = start == 0 ? Math.min(frame.timeMs(0), pastRunStartMs) : frame.timeMs(start);
      long duration = frame.timeMs(last) - startMs + step;
      if (duration >= config.forMs() && last >= reportFrom) {
        Cause c = majority(cause, start, last);
        out.add(build(frame, c, start, last, startMs, s, thr, base, targetId, labels,
            dataEndMs));
      }
      i = last + 1;
    }
    // Monitoring gaps.
    i = 0;
    while (i < n) {
      if (!frame.isGap(i)) {
        i++;
        continue;
      }
      int start = i;
      while (i < n && frame.isGap(i)) {
        i++;
      }
      if (i - 1 >= reportFrom) {
        out.add(build(frame, Cause.MONITORING_GAP, start, i - 1, frame.timeMs(start), s, thr,
            base, targetId, labels, dataEndMs));
      }
    }
  }

  private static Cause majority(Cause[] cause, int from, int to) {
    int[] counts = new int[Cause.values().length];
    for (int k = from; k <= to; k++) {
      if (cause[k] != null) {
        counts[cause[k].ordinal()]++;
      }
    }
    int best = 0;
    for (int c = 1; c < counts.length; c++) {
      if (counts[c] > counts[best]) {
        best = c;
      }
    }
    return Cause.values()[best];
  }

  private Diagnosis build(IndicatorFrame frame, Cause cause, int from, int to, long startMs,
      Map<Indicator, double[]> s, Map<Indicator, double[]> thr, Map<Indicator, double[]> base,
      String targetId, Map<String, String> labels, long dataEndMs) {
    long endMs = frame.timeMs(to);
    boolean open = endMs + Math.max(frame.stepMs(), 2 * config.stepMs()) > dataEndMs
        && cause != Cause.MONITORING_GAP
        || cause == Cause.MONITORING_GAP && to == frame.steps() - 1;
    String window = duration(config.rateWindowMs());
    List<Evidence> latencyEv = new ArrayList<>();
    boolean anyLatency = false;
    boolean latencyBreached = false;
    for (Indicator ind : LATENCY) {
      Evidence e = evidence(ind, from, to, s, thr, base, window, frame);
      if (e != null) {
        anyLatency = true;
        latencyEv.add(e);
        latencyBreached |= e.threshold() != null && e.value() > e.threshold();
      }
    }
    List<Evidence> queueEv = new ArrayList<>();
    for (Indicator ind : new Indicator[] {Indicator.WAITING, Indicator.QUEUE_TIME_P95,
        Indicator.UPSTREAM_BACKLOG}) {
      Evidence e = evidence(ind, from, to, s, thr, base, window, frame);
      if (e != null) {
        queueEv.add(e);
      }
    }
    boolean queueKnown = s.containsKey(Indicator.WAITING)
        || s.containsKey(Indicator.UPSTREAM_BACKLOG);
    boolean queueSat = countSteps(from, to, k -> backlog(s, thr, k)) * 2 > to - from + 1
        || cause == Cause.UPSTREAM_BACKLOG || cause == Cause.CAPACITY_EXHAUSTED
        || cause == Cause.CONCURRENCY_LIMIT;
    List<Evidence> resEv = new ArrayList<>();
    for (Indicator ind : new Indicator[] {Indicator.GPU_UTIL, Indicator.KV_CACHE_USAGE,
        Indicator.PREEMPTIONS, Indicator.GPU_MEM}) {
      Evidence e = evidence(ind, from, to, s, thr, base, window, frame);
      if (e != null) {
        resEv.add(e);
      }
    }
    boolean resKnown = s.containsKey(Indicator.GPU_UTIL) || s.containsKey(Indicator.KV_CACHE_USAGE);
    boolean resSat = countSteps(from, to, k -> gpuSaturated(s, k) || kvSaturated(s, k)) * 2
        > to - from + 1;
    List<ChainLayer> chain = List.of(
        new ChainLayer("latency", !anyLatency ? "unknown" : latencyBreached ? "breached"
            : "normal", latencyEv),
        new ChainLayer("queue", !queueKnown ? "unknown" : queueSat ? "saturated" : "normal",
            queueEv),
        new ChainLayer("resource", !resKnown ? "unknown" : resSat ? "saturated" : "normal",
            resEv));
    String severity = severity(cause, latencyEv);
    String id = targetId + "/" + cause.name().toLowerCase(Locale.ROOT) + "/" + startMs;
    return new Diagnosis(id, cause, severity, labels, startMs, open ? null : endMs,
        Summaries.summary(cause, chain, endMs - startMs + frame.stepMs()), chain,
        cause.recommendations());
  }

  private interface StepTest {
    boolean test(int step);
  }

  private static int countSteps(int from, int to, StepTest t) {
    int c = 0;
    for (int k = from; k <= to; k++) {
      if (t.test(k)) {
        c++;
      }
    }
    return c;
  }

  private static String severity(Cause cause, List<Evidence> latency) {
    if (cause == Cause.CAPACITY_EXHAUSTED || cause == Cause.MONITORING_GAP) {
      return "critical";
    }
    for (Evidence e : latency) {
      if (e.threshold() != null && e.value() >= 2 * e.threshold()) {
        return "critical";
      }
    }
    return "warning";
  }

  private static Evidence evidence(Indicator ind, int from, int to, Map<Indicator, double[]> s,
      Map<Indicator, double[]> thr, Map<Indicator, double[]> base, String window,
      IndicatorFrame frame) {
    double[] v = s.get(ind);
    if (v == null) {
      return null;
    }
    double[] vals = Arrays.stream(Arrays.copyOfRange(v, from, to + 1))
        .filter(d -> !Double.isNaN(d)).sorted().toArray();
    if (vals.length == 0) {
      return null;
    }
    double mean = Arrays.stream(vals).average().orElse(Double.NaN);
    Double threshold = mean(thr.get(ind), from, to);
    Double baseline = mean(base.get(ind), from, to);
    return new Evidence(ind.key(), round(mean), threshold, baseline, ind.unit(),
        ind == Indicator.WAITING || ind == Indicator.RUNNING || ind == Indicator.GPU_UTIL
            || ind == Indicator.KV_CACHE_USAGE || ind == Indicator.GPU_MEM
            || ind == Indicator.UPSTREAM_BACKLOG ? "instant" : window,
        round(vals[(int) Math.floor(0.05 * (vals.length - 1))]),
        round(vals[(int) Math.ceil(0.95 * (vals.length - 1))]), frame.query(ind));
  }

  private static Double mean(double[] v, int from, int to) {
    if (v == null) {
      return null;
    }
    double sum = 0;
    int c = 0;
    for (int k = from; k <= to; k++) {
      if (!Double.isNaN(v[k])) {
        sum += v[k];
        c++;
      }
    }
    return c == 0 ? null : round(sum / c);
  }

  private static double round(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v) || v == 0) {
      return v;
    }
    double scale = Math.pow(10, 3 - Math.ceil(Math.log10(Math.abs(v))));
    return Math.round(v * scale) / scale;
  }

  private static double[] nan(int n) {
    double[] a = new double[n];
    Arrays.fill(a, Double.NaN);
    return a;
  }

  /**
   * @param ms a duration in milliseconds
   * @return Prometheus duration text such as {@code 5m}, {@code 30s}, {@code 1h}
   */
  public static String duration(long ms) {
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }

  /**
   * Sliding baseline: the lookback's blocks plus the current block, values joining as soon as
   * their step is classified normal; whole blocks leave when they fall out of the lookback. The
   * P95 is recomputed when the count has grown by 1 % since the last time (or a block left), so a
   * 44-day frame costs about a thousand histogram scans, not one per step.
   */
  private final class BaselineWindow {
    private final ArrayDeque<long[]> keys = new ArrayDeque<>();
    private final ArrayDeque<BaselineHistogram> blocks = new ArrayDeque<>();
    private final BaselineHistogram window = new BaselineHistogram();
    private BaselineHistogram current;
    private long currentBlock = Long.MIN_VALUE;
    private double cachedP95 = Double.NaN;
    private long countAtP95 = -1;

    void advance(long block, long blockMs) {
      if (current != null) {
        blocks.addLast(current);
        keys.addLast(new long[] {currentBlock});
      }
      current = new BaselineHistogram();
      currentBlock = block;
      long oldest = block - Math.max(1, config.baselineLookbackMs() / blockMs);
      while (!keys.isEmpty() && keys.peekFirst()[0] < oldest) {
        keys.removeFirst();
        window.removeAll(blocks.removeFirst());
        countAtP95 = -1;
      }
    }

    void add(double v, long weight) {
      if (current != null) {
        current.add(v, weight);
        window.add(v, weight);
      }
    }

    double baseline(long stepMs, long minHistoryMs) {
      long n = window.count();
      if (n * stepMs < minHistoryMs) {
        return Double.NaN;
      }
      if (countAtP95 < 0 || n - countAtP95 >= Math.max(1, countAtP95 / 100)
          || n < countAtP95) {
        cachedP95 = window.quantile(0.95);
        countAtP95 = n;
      }
      return cachedP95;
    }
  }
}
