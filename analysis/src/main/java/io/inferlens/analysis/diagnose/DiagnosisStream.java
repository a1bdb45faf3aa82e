package io.inferlens.analysis.diagnose;

import io.inferlens.analysis.smoothing.Smoothing;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One target's diagnosis state, fed one evaluation step at a time: the smoothing filters, the
 * baseline windows, the steps waiting to join them, the Kafka lag of the last minutes, and the
 * problem period and monitoring gap in progress. The batch {@link Diagnoser} feeds it a whole
 * frame; the always-on evaluator keeps one per target and feeds it only the new steps, so both
 * give the same diagnoses for the same data.
 *
 * <p>Rules (docs/DESIGN.md section 3):
 *
 * <ul>
 *   <li>Thresholds: an SLO when configured; else {@code headroom × P95} of the smoothed indicator
 *       over the lookback (14 d), counting only steps not flagged as a problem and at least
 *       {@code forMs} old (so a slow degradation cannot raise its own threshold); else, with less
 *       than {@code baselineMinHistoryMs} of normal history, the static limit, which is extreme
 *       on purpose ({@link AnalysisConfig#defaultThresholds()}): a default says nothing about a
 *       workload, so only a latency no deployment calls normal may open an incident before a
 *       baseline exists. Each threshold's {@link Evidence#basis()} says which applied.
 *   <li>Per step, when a latency indicator (TTFT, TPOT/ITL or E2E P95) is breached: KV ≥ 90 %
 *       with preemptions (above 0.01/s) and no backlog → KV_CACHE_PRESSURE, and with a backlog
 *       only at one preemption or more per 50 finished requests (then the full cache, not the
 *       batch as a whole, is what evicts); backlog and GPU or KV saturated →
 *       CAPACITY_EXHAUSTED; backlog alone → CONCURRENCY_LIMIT; GPU saturated alone →
 *       GPU_COMPUTE_BOUND; prompt/generation length above ratio × baseline → WORKLOAD_SHIFT;
 *       otherwise PER_REQUEST_SLOWDOWN. Without a latency breach, a Kafka lag above the minimum
 *       and 5 % higher than {@code forMs / 2} earlier → UPSTREAM_BACKLOG.
 *   <li>A period is a run of problem steps, up to two normal steps bridged, lasting at least
 *       {@code forMs} ({@code forMs / 2} for an upstream backlog, whose rise is itself measured
 *       over {@code forMs / 2}: so a backlog opens an incident within {@code forMs} of the lag
 *       reaching the minimum); its cause is the one most of its steps had, except that the
 *       residual causes (PER_REQUEST_SLOWDOWN, WORKLOAD_SHIFT: "no queue, no saturation") give
 *       way to the most frequent other latency cause when most steps had one. The chain's queue
 *       and resource verdicts are read from the steps that had the period's cause, so they are
 *       the reasons for it ({@link RunEvidence#build}). An upstream backlog's
 *       period starts where its lag began to rise (the first step of the uninterrupted run, up to
 *       two steps bridged, of steps whose lag was 5 % and 5 % of the minimum above
 *       {@code forMs / 2} earlier, at any level), not where it reached the minimum: the minimum
 *       only confirms a rise, and a slow consumer group takes many minutes to fall 1000 messages
 *       behind, so its onset would otherwise be reported that much late. Silent steps (a monitoring gap, or no engine
 *       sample at all) neither extend nor end a period: an open period stays open, marked stale,
 *       until data shows recovery. A monitoring gap (the frame marks silences longer than
 *       {@code gapFactor} scrape intervals) is reported on its own, whatever its length.
 * </ul>
 *
 * <p>Not thread safe: one owner feeds it.
 */
public final class DiagnosisStream {

  static final Indicator[] BASELINED = {
      Indicator.TTFT_P95, Indicator.TPOT_P95, Indicator.E2E_P95, Indicator.QUEUE_TIME_P95,
      Indicator.PROMPT_TOKENS, Indicator.GENERATION_TOKENS};
  /** Normal steps bridged inside a period: one or two normal evaluations do not end it. */
  static final int BRIDGE_STEPS = 2;
  /** Growth over {@code forMs / 2}, as a fraction of the minimum lag, that starts a rise. */
  static final double RISE_FRACTION = 0.05;
  private static final int N = Indicator.values().length;
  private static final int LAG = Indicator.UPSTREAM_BACKLOG.ordinal();

  private final AnalysisConfig config;
  private final long stepMs;
  private final String targetId;
  private final Map<String, String> labels;
  private final boolean[] present = new boolean[N];
  private final Map<Indicator, String> queries;
  private final Filter[] filters = new Filter[N];
  private final BaselineWindow[] windows = new BaselineWindow[N];
  private final long joinDelayMs;
  /** Normal steps and history points not yet {@code forMs} old: {t, weight, value per BASELINED}. */
  private final ArrayDeque<double[]> joinQueue = new ArrayDeque<>();
  private long currentBlock = Long.MIN_VALUE;
  private final int riseBack;
  private final double[] lagRing;
  private long fed;
  /** First step of the lag's current rise (any level), ms; {@link Long#MIN_VALUE} if none. */
  private long lagRiseFromMs = Long.MIN_VALUE;
  private int lagRiseBridge;

  private long historyStepMs;
  private final Filter[] historyFilters = new Filter[N];
  private int historyRiseBack;
  private double[] historyLagRing;
  private long historyFed;
  private long historyRunStartMs = Long.MAX_VALUE;
  private long historyLagRiseFromMs = Long.MIN_VALUE;
  /** Whether the last history point's lag was rising (the verdict while the step ring fills). */
  private boolean historyLagRising;
  private int historyLagRiseBridge;
  private final double[] historySmoothed = new double[N];

  private final double[] smoothed = new double[N];
  private final double[] thresholds = new double[N];
  private final double[] baselines = new double[N];

  private long lastStepMs = Long.MIN_VALUE;
  private long reportFromMs = Long.MIN_VALUE;
  private RunEvidence run;
  private long runStartMs;
  /** The period's first problem step (its start unless backdated to a lag's rise), ms. */
  private long runDetectedMs;
  private long runLastMs;
  private int runBridge;
  private boolean runStale;
  private RunEvidence gap;
  private long gapStartMs;
  private long gapLastMs;
  private long lastDataMs = Long.MIN_VALUE;
  private final List<Diagnosis> closed = new ArrayList<>();

  /**
   * @param config thresholds and time scales
   * @param stepMs the step the frames fed are evaluated at, milliseconds, &gt; 0
   * @param targetId stable target id, for diagnosis ids
   * @param targetLabels the target's grouping labels, copied into each diagnosis
   * @param indicators the indicators the target exposes (others are ignored when fed)
   * @param queries the PromQL of each indicator, for evidence rows (may lack some)
   * @throws IllegalArgumentException if the step is not positive
   */
  public DiagnosisStream(AnalysisConfig config, long stepMs, String targetId,
      Map<String, String> targetLabels, Set<Indicator> indicators,
      Map<Indicator, String> queries) {
    if (stepMs <= 0) {
      throw new IllegalArgumentException("step " + stepMs + " ms is not positive");
    }
    this.config = config;
    this.stepMs = stepMs;
    this.targetId = targetId;
    this.labels = targetLabels;
    this.queries = new EnumMap<>(Indicator.class);
    this.queries.putAll(queries);
    for (Indicator ind : indicators) {
      present[ind.ordinal()] = true;
      filters[ind.ordinal()] = new Filter(config, 1);
    }
    for (Indicator ind : BASELINED) {
      if (present[ind.ordinal()]) {
        windows[ind.ordinal()] = new BaselineWindow(config.baselineLookbackMs());
      }
    }
    Arrays.fill(smoothed, Double.NaN);
    Arrays.fill(thresholds, Double.NaN);
    Arrays.fill(baselines, Double.NaN);
    Arrays.fill(historySmoothed, Double.NaN);
    joinDelayMs = Math.max(1, config.forMs() / stepMs) * stepMs;
    riseBack = (int) Math.max(1, config.forMs() / 2 / stepMs);
    lagRing = new double[riseBack + 1];
  }

  /** @param fromMs periods whose last step is before this are not reported, ms */
  public void reportFrom(long fromMs) {
    reportFromMs = fromMs;
  }

  /** @return the step fed, milliseconds */
  public long stepMs() {
    return stepMs;
  }

  /** @return the time of the last step fed, ms; {@link Long#MIN_VALUE} before the first */
  public long lastStepMs() {
    return lastStepMs;
  }

  /** @return the newest step with an engine sample, ms; {@link Long#MIN_VALUE} if none */
  public long lastDataMs() {
    return lastDataMs;
  }

  /** @return the target's grouping labels */
  public Map<String, String> labels() {
    return labels;
  }

  /**
   * Feeds one point of coarse history (5-minute rollup intervals before the frame): it only
   * teaches baselines, smoothed with the frame's smoothing re-expressed in time (EMA factor
   * {@code 1 − (1 − α)^k}, SMA over {@code round(N / k)} points, k = history step / step), joins
   * them with weight k once {@code forMs} old, and stays out when its smoothed TTFT, TPOT/ITL or
   * E2E P95 is above the threshold in force, or the upstream backlog rose.
   *
   * @param timeMs the point's time (its interval's end), ms, after the previous point
   * @param historyStep the history's step, ms, a whole multiple of the step
   * @param raw values by indicator ordinal, NaN where none; not kept
   * @throws IllegalStateException after the first frame step
   * @throws IllegalArgumentException if the history step is not a multiple of the step
   */
  public void history(long timeMs, long historyStep, double[] raw) {
    if (fed > 0) {
      throw new IllegalStateException("history after the frame's first step");
    }
    if (historyStepMs == 0) {
      if (historyStep <= 0 || historyStep % stepMs != 0) {
        throw new IllegalArgumentException("history step " + historyStep
            + " ms is not a whole multiple of the " + stepMs + " ms step");
      }
      historyStepMs = historyStep;
      long k = historyStep / stepMs;
      for (int o = 0; o < N; o++) {
        historyFilters[o] = new Filter(config, k);
      }
      historyRiseBack = (int) Math.max(1, config.forMs() / 2 / historyStep);
      historyLagRing = new double[historyRiseBack + 1];
    }
    long weight = historyStepMs / stepMs;
    timeline(timeMs);
    for (int o = 0; o < N; o++) {
      historySmoothed[o] = historyFilters[o].next(raw[o]);
    }
    historyLagRing[(int) (historyFed % historyLagRing.length)] = historySmoothed[LAG];
    boolean problem = historyProblem();
    boolean lagProblem = problem && !historyLatencyProblem();
    historyLagRising = rising(historyLagRing, historyFed, historyRiseBack);
    if (climbing(historyLagRing, historyFed, historyRiseBack)) {
      historyLagRiseBridge = 0;
      historyLagRiseFromMs = historyLagRiseFromMs == Long.MIN_VALUE ? timeMs
          : historyLagRiseFromMs;
    } else if (++historyLagRiseBridge > BRIDGE_STEPS) {
      historyLagRiseFromMs = Long.MIN_VALUE;
    }
    historyFed++;
    if (!problem) {
      enqueue(timeMs, weight, historySmoothed);
    }
    long from = lagProblem && historyLagRiseFromMs != Long.MIN_VALUE
        ? Math.min(timeMs, historyLagRiseFromMs) : timeMs;
    historyRunStartMs = problem ? Math.min(historyRunStartMs, from) : Long.MAX_VALUE;
  }

  /** @return the last history point's smoothed values by ordinal (NaN where none) */
  double[] historySmoothed() {
    return historySmoothed;
  }

  private boolean historyProblem() {
    return historyLatencyProblem() || rising(historyLagRing, historyFed, historyRiseBack);
  }

  /** Whether the last history point's TTFT, TPOT/ITL or E2E P95 is above its threshold. */
  private boolean historyLatencyProblem() {
    for (Indicator ind : RunEvidence.LATENCY) {
      int o = ind.ordinal();
      double v = historySmoothed[o];
      if (windows[o] == null || Double.isNaN(v)) {
        continue;
      }
      double t = threshold(ind, windows[o].baseline(config.stepMs(),
          config.baselineMinHistoryMs()));
      if (!Double.isNaN(t) && v > t) {
        return true;
      }
    }
    return false;
  }

  /**
   * Feeds the next evaluation step.
   *
   * @param timeMs the step's time, ms: exactly one step after the previous one
   * @param raw values by indicator ordinal, NaN where none; not kept
   * @param monitoringGap whether expected scrapes are missing at this step
   * @return the step's cause, or null when it is normal (or a gap)
   * @throws IllegalArgumentException if the step is not the one after the previous
   */
  public Cause step(long timeMs, double[] raw, boolean monitoringGap) {
    if (lastStepMs != Long.MIN_VALUE && timeMs != lastStepMs + stepMs) {
      throw new IllegalArgumentException("step at " + timeMs + " ms does not follow "
          + lastStepMs + " ms by " + stepMs + " ms");
    }
    boolean first = fed == 0;
    timeline(timeMs);
    boolean engineData = false;
    for (int o = 0; o < N; o++) {
      if (filters[o] == null) {
        continue;
      }
      smoothed[o] = filters[o].next(raw[o]);
      if (!Double.isNaN(raw[o]) && o != LAG && o != Indicator.GPU_UTIL.ordinal()
          && o != Indicator.GPU_MEM.ordinal()) {
        engineData = true;
      }
    }
    for (Indicator ind : BASELINED) {
      int o = ind.ordinal();
      if (windows[o] != null) {
        baselines[o] = windows[o].baseline(config.stepMs(), config.baselineMinHistoryMs());
        thresholds[o] = threshold(ind, baselines[o]);
      }
    }
    lagRing[(int) (fed % lagRing.length)] = smoothed[LAG];
    // Until the ring holds forMs / 2 of steps, the history speaks for the lag: a rise that
    // began in it goes on, and is not cut short while the steps cannot yet tell.
    boolean filling = fed < riseBack && historyFed > 0;
    if (fed == 0 && historyFed > 0 && historyLagRiseFromMs != Long.MIN_VALUE) {
      lagRiseFromMs = historyLagRiseFromMs;
      lagRiseBridge = 0;
    }
    if (climbing(lagRing, fed, riseBack)) {
      lagRiseBridge = 0;
      lagRiseFromMs = lagRiseFromMs == Long.MIN_VALUE ? timeMs : lagRiseFromMs;
    } else if (!filling && ++lagRiseBridge > BRIDGE_STEPS) {
      lagRiseFromMs = Long.MIN_VALUE;
    }
    Cause cause = monitoringGap ? null : classify();
    fed++;
    lastStepMs = timeMs;
    if (engineData) {
      lastDataMs = timeMs;
    }
    if (cause == null && !monitoringGap) {
      enqueue(timeMs, 1, smoothed);
    }
    trackRun(timeMs, cause, monitoringGap || !engineData, first);
    trackGap(timeMs, monitoringGap);
    return cause;
  }

  /** @return the last step's smoothed value of an indicator, NaN where none */
  public double smoothed(Indicator ind) {
    return smoothed[ind.ordinal()];
  }

  /** @return the last step's threshold of a baselined indicator, NaN where none */
  public double threshold(Indicator ind) {
    return thresholds[ind.ordinal()];
  }

  /** @return the last step's learned baseline of an indicator, NaN until one exists */
  public double baseline(Indicator ind) {
    return baselines[ind.ordinal()];
  }

  /** Block boundaries and baseline joins up to {@code t}: shared by history and steps. */
  private void timeline(long t) {
    long block = Math.floorDiv(t, config.baselineBlockMs());
    if (block != currentBlock) {
      for (BaselineWindow w : windows) {
        if (w != null) {
          w.advance(block, config.baselineBlockMs());
        }
      }
      currentBlock = block;
    }
    while (!joinQueue.isEmpty() && joinQueue.peekFirst()[0] <= t - joinDelayMs) {
      double[] e = joinQueue.removeFirst();
      for (int k = 0; k < BASELINED.length; k++) {
        BaselineWindow w = windows[BASELINED[k].ordinal()];
        if (w != null) {
          w.add(e[2 + k], (long) e[1]);
        }
      }
    }
  }

  private void enqueue(long t, long weight, double[] values) {
    double[] e = new double[2 + BASELINED.length];
    e[0] = t;
    e[1] = weight;
    for (int k = 0; k < BASELINED.length; k++) {
      e[2 + k] = values[BASELINED[k].ordinal()];
    }
    joinQueue.addLast(e);
  }

  private void trackRun(long t, Cause cause, boolean silent, boolean first) {
    if (cause != null) {
      if (run == null) {
        run = new RunEvidence();
        // A period from the frame's first step continues the history's trailing problem run.
        runDetectedMs = first ? Math.min(t, historyRunStartMs) : t;
        runStartMs = cause == Cause.UPSTREAM_BACKLOG && lagRiseFromMs != Long.MIN_VALUE
            ? Math.min(runDetectedMs, lagRiseFromMs) : runDetectedMs;
      }
      boolean backlog = backlog();
      run.add(smoothed, thresholds, baselines, backlog, bottleneck(backlog));
      run.commit(cause);
      runLastMs = t;
      runBridge = 0;
      runStale = false;
      return;
    }
    if (run == null) {
      return;
    }
    if (silent) {
      runStale = true;
      return;
    }
    runStale = false;
    if (++runBridge > BRIDGE_STEPS) {
      Diagnosis d = period(false);
      if (d != null) {
        closed.add(d);
      }
      run = null;
    } else {
      boolean backlog = backlog();
      run.add(smoothed, thresholds, baselines, backlog, bottleneck(backlog));
    }
  }

  private void trackGap(long t, boolean monitoringGap) {
    if (monitoringGap) {
      if (gap == null) {
        gap = new RunEvidence();
        gapStartMs = t;
      }
      gap.add(smoothed, thresholds, baselines, false, false);
      gap.commit(Cause.MONITORING_GAP);
      gapLastMs = t;
    } else if (gap != null) {
      if (gapLastMs >= reportFromMs) {
        closed.add(gap.build(Cause.MONITORING_GAP, gapStartMs, gapLastMs, false, false, stepMs,
            config, present, queries, targetId, labels));
      }
      gap = null;
    }
  }

  /** The period in progress as a diagnosis, or null when it is too short or not reported. */
  private Diagnosis period(boolean open) {
    Cause c = run.majority();
    long need = c == Cause.UPSTREAM_BACKLOG ? Math.max(stepMs, config.forMs() / 2)
        : config.forMs();
    // An open period reaches the present, so it overlaps any reported range, even when its
    // target has been silent since before the range began.
    if (runLastMs - runDetectedMs + stepMs < need || !open && runLastMs < reportFromMs) {
      return null;
    }
    return run.build(c, runStartMs, runLastMs, open, open && runStale, stepMs, config, present,
        queries, targetId, labels);
  }

  /**
   * @return the periods and gaps that ended since the last call, oldest first; the list is
   *     emptied
   */
  public List<Diagnosis> drainClosed() {
    List<Diagnosis> out = new ArrayList<>(closed);
    closed.clear();
    return out;
  }

  /**
   * @return what holds at the last step: the open problem period (once it has lasted long
   *     enough) and the open monitoring gap, each with a null end
   */
  public List<Diagnosis> open() {
    List<Diagnosis> out = new ArrayList<>(2);
    if (run != null) {
      Diagnosis d = period(true);
      if (d != null) {
        out.add(d);
      }
    }
    if (gap != null && gapLastMs >= reportFromMs) {
      out.add(gap.build(Cause.MONITORING_GAP, gapStartMs, gapLastMs, true, false, stepMs, config,
          present, queries, targetId, labels));
    }
    return out;
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

  private boolean breached(Indicator ind) {
    double v = smoothed[ind.ordinal()];
    double t = thresholds[ind.ordinal()];
    return !Double.isNaN(v) && !Double.isNaN(t) && v > t;
  }

  private boolean backlog() {
    double waiting = smoothed[Indicator.WAITING.ordinal()];
    double running = smoothed[Indicator.RUNNING.ordinal()];
    boolean queued = waiting >= config.waitingBacklog()
        && (Double.isNaN(running) || waiting >= config.waitingPerRunning() * running);
    // Queue time counts on its own only against an explicit SLO: its learned baseline is near
    // zero on a healthy engine, so any queueing would look like a breach.
    return queued || config.slos().containsKey(Indicator.QUEUE_TIME_P95)
        && breached(Indicator.QUEUE_TIME_P95);
  }

  private boolean gpuSaturated() {
    return smoothed[Indicator.GPU_UTIL.ordinal()] >= config.gpuUtilSaturatedPercent();
  }

  private boolean kvSaturated() {
    return smoothed[Indicator.KV_CACHE_USAGE.ordinal()] >= config.kvSaturatedRatio();
  }

  /**
   * Whether the engine preempts (above {@code preemptionRatePerSecond}): a healthy engine never
   * does, whatever its request rate, since a preemption means the KV cache could not hold the
   * next token of a running request.
   */
  private boolean preempting() {
    return smoothed[Indicator.PREEMPTIONS.ordinal()] > config.preemptionRatePerSecond();
  }

  /**
   * Whether at least {@code preemptionsPerRequest} of the finished requests were preempted (true
   * without a request rate). Only needed to tell KV pressure from exhausted capacity while a
   * queue backs up: then a full batch evicts now and then, and only frequent evictions say the
   * KV cache is the bottleneck. Without a queue any preemption at a full cache is KV pressure.
   */
  private boolean preemptingPerRequest() {
    double rate = smoothed[Indicator.PREEMPTIONS.ordinal()];
    double requests = smoothed[Indicator.REQUEST_RATE.ordinal()];
    return Double.isNaN(requests) || rate >= config.preemptionsPerRequest() * requests;
  }

  /**
   * Whether a resource limits the engine at this step: the GPU saturated, or the KV cache full
   * and either evicting requests or keeping the queue waiting. A full KV cache that neither
   * preempts nor queues holds the batch it has and limits nothing.
   */
  private boolean bottleneck(boolean backlog) {
    return gpuSaturated() || kvSaturated() && (backlog || preempting());
  }

  private boolean workloadShift() {
    for (Indicator ind : new Indicator[] {Indicator.PROMPT_TOKENS, Indicator.GENERATION_TOKENS}) {
      double v = smoothed[ind.ordinal()];
      double b = baselines[ind.ordinal()];
      if (!Double.isNaN(v) && !Double.isNaN(b) && b > 0 && v > config.workloadShiftRatio() * b) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the newest lag in the ring is above the minimum and 5 % above the one {@code back}
   * points before it.
   */
  private boolean rising(double[] ring, long count, int back) {
    if (ring == null || count < back) {
      return false;
    }
    double now = ring[(int) (count % ring.length)];
    double then = ring[(int) ((count - back) % ring.length)];
    return now >= config.upstreamMinLag() && !Double.isNaN(then) && now > then * 1.05;
  }

  /**
   * Whether the newest lag in the ring is 5 % above the one {@code back} points before it and
   * at least {@link #RISE_FRACTION} of the minimum lag above it, at any level: a sustained growth
   * (50 messages per {@code forMs / 2} by default), which the noise of a healthy group's lag of a
   * few messages never is.
   */
  private boolean climbing(double[] ring, long count, int back) {
    if (ring == null || count < back) {
      return false;
    }
    double now = ring[(int) (count % ring.length)];
    double then = ring[(int) ((count - back) % ring.length)];
    return !Double.isNaN(now) && !Double.isNaN(then) && now > then * 1.05
        && now - then >= RISE_FRACTION * config.upstreamMinLag();
  }

  private Cause classify() {
    boolean latency = false;
    for (Indicator ind : RunEvidence.LATENCY) {
      latency |= breached(ind);
    }
    if (!latency) {
      boolean lagUp = fed < riseBack && historyFed > 0 ? historyLagRising
          : rising(lagRing, fed, riseBack);
      return lagUp ? Cause.UPSTREAM_BACKLOG : null;
    }
    boolean backlog = backlog();
    boolean gpu = gpuSaturated();
    boolean kv = kvSaturated();
    // Preemptions are the specific sign of KV pressure: a full KV cache that keeps evicting
    // requests also fills the queue and the GPU, so test it before capacity.
    if (kv && preempting() && (!backlog || preemptingPerRequest())) {
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
    if (workloadShift()) {
      return Cause.WORKLOAD_SHIFT;
    }
    return Cause.PER_REQUEST_SLOWDOWN;
  }

  /** One indicator's smoothing, applied to values {@code k} steps apart. */
  private static final class Filter {
    private final String kind;
    private final double alpha;
    private final double[] ring;
    private long count;
    private double prev = Double.NaN;

    Filter(AnalysisConfig config, long k) {
      kind = config.smoothing();
      int n = config.smoothingN();
      alpha = k == 1 ? Smoothing.alpha(n) : 1 - Math.pow(1 - Smoothing.alpha(n), k);
      ring = "sma".equals(kind)
          ? new double[k == 1 ? n : (int) Math.max(1, Math.round((double) n / k))] : null;
    }

    /** @return the smoothed value at this point: NaN where the raw value is missing */
    double next(double raw) {
      double out;
      switch (kind) {
        case "sma": {
          ring[(int) (count++ % ring.length)] = raw;
          double sum = 0;
          int c = 0;
          for (int j = 0; j < Math.min(count, ring.length); j++) {
            if (!Double.isNaN(ring[j])) {
              sum += ring[j];
              c++;
            }
          }
          out = c == 0 ? Double.NaN : sum / c;
          break;
        }
        case "ema":
          if (!Double.isNaN(raw)) {
            prev = Double.isNaN(prev) ? raw : alpha * raw + (1 - alpha) * prev;
          }
          out = prev;
          break;
        default:
          out = raw;
      }
      // An EMA must not carry a stale value across a gap and make it look like data.
      return Double.isNaN(raw) ? Double.NaN : out;
    }
  }
}
