package io.inferlens.analysis.diagnose;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * What one problem period (or monitoring gap) has shown so far, accumulated step by step so that
 * a {@link DiagnosisStream} needs no arrays of past steps: per evidence indicator its smoothed
 * values (for the mean and the 5th/95th percentiles), the thresholds and baselines in force, and,
 * per cause, how many of its steps showed a backlog or a resource bottleneck.
 *
 * <p>Steps after the period's last problem step are held apart ({@code pending}) until the next
 * problem step confirms them as bridged; a period that ends drops them, so its evidence covers
 * its first to its last problem step, as a batch scan would.
 *
 * <p>Values per indicator are kept exactly up to {@value #MAX_VALUES}; past that every other one is
 * dropped and only every second one kept from then on (and so on), so a period of weeks costs a
 * bounded 256 KiB per indicator while the percentiles stay those of an even sample of it. Means
 * stay exact.
 *
 * <p>Not thread safe.
 */
final class RunEvidence {

  /** Indicators with evidence rows, by layer: latency, queue, resource. */
  static final Indicator[] LATENCY = {Indicator.TTFT_P95, Indicator.TPOT_P95, Indicator.E2E_P95};
  static final Indicator[] QUEUE = {
      Indicator.WAITING, Indicator.QUEUE_TIME_P95, Indicator.UPSTREAM_BACKLOG};
  static final Indicator[] RESOURCE = {
      Indicator.GPU_UTIL, Indicator.KV_CACHE_USAGE, Indicator.PREEMPTIONS, Indicator.GPU_MEM};

  static final int MAX_VALUES = 1 << 15;
  /** Latency causes that rest on a queue backlog or a saturated resource. */
  private static final Cause[] SPECIFIC = {Cause.KV_CACHE_PRESSURE, Cause.CAPACITY_EXHAUSTED,
      Cause.CONCURRENCY_LIMIT, Cause.GPU_COMPUTE_BOUND};
  private static final int N = Indicator.values().length;

  /** Sums and values of some steps. */
  private static final class Acc {
    final double[][] values = new double[N][];
    final int[] sizes = new int[N];
    final int[] strides = new int[N];
    final long[] seen = new long[N];
    final double[] sum = new double[N];
    final long[] count = new long[N];
    final double[] thrSum = new double[N];
    final long[] thrCount = new long[N];
    final double[] baseSum = new double[N];
    final long[] baseCount = new long[N];
    long steps;

    void add(int o, double v) {
      if (Double.isNaN(v)) {
        return;
      }
      sum[o] += v;
      count[o]++;
      if (strides[o] == 0) {
        strides[o] = 1;
        values[o] = new double[16];
      }
      if (seen[o]++ % strides[o] != 0) {
        return;
      }
      if (sizes[o] == values[o].length) {
        if (sizes[o] >= MAX_VALUES) {
          // Keep every other value and sample half as often from now on.
          for (int k = 0; k < sizes[o] / 2; k++) {
            values[o][k] = values[o][2 * k];
          }
          sizes[o] /= 2;
          strides[o] *= 2;
          return;
        }
        values[o] = Arrays.copyOf(values[o], values[o].length * 2);
      }
      values[o][sizes[o]++] = v;
    }

    void clear() {
      Arrays.fill(sizes, 0);
      Arrays.fill(strides, 0);
      Arrays.fill(seen, 0);
      Arrays.fill(sum, 0);
      Arrays.fill(count, 0);
      Arrays.fill(thrSum, 0);
      Arrays.fill(thrCount, 0);
      Arrays.fill(baseSum, 0);
      Arrays.fill(baseCount, 0);
      Arrays.fill(values, null);
      steps = 0;
    }

    void addAll(Acc o) {
      for (int i = 0; i < N; i++) {
        for (int k = 0; k < o.sizes[i]; k++) {
          add(i, o.values[i][k]);
        }
        thrSum[i] += o.thrSum[i];
        thrCount[i] += o.thrCount[i];
        baseSum[i] += o.baseSum[i];
        baseCount[i] += o.baseCount[i];
      }
      steps += o.steps;
    }
  }

  private final Acc committed = new Acc();
  private final Acc pending = new Acc();
  private final int[] causeCounts = new int[Cause.values().length];
  /** Per cause, its steps that showed a queue backlog, and a resource bottleneck. */
  private final int[] backlogByCause = new int[Cause.values().length];
  private final int[] bottleneckByCause = new int[Cause.values().length];
  private boolean lastBacklog;
  private boolean lastBottleneck;

  /**
   * Adds one step not yet confirmed as part of the period (the period's problem steps call
   * {@link #commit} right after).
   *
   * @param smoothed smoothed values by indicator ordinal, NaN where none
   * @param thresholds thresholds in force by ordinal, NaN where none
   * @param baselines learned baselines by ordinal, NaN where none
   * @param backlog whether the step showed a queue backlog
   * @param bottleneck whether a resource limited the engine: the GPU saturated, or the KV cache
   *     full and preempting or keeping a queue
   */
  void add(double[] smoothed, double[] thresholds, double[] baselines, boolean backlog,
      boolean bottleneck) {
    Acc a = pending;
    for (int o = 0; o < N; o++) {
      a.add(o, smoothed[o]);
      if (!Double.isNaN(thresholds[o])) {
        a.thrSum[o] += thresholds[o];
        a.thrCount[o]++;
      }
      if (!Double.isNaN(baselines[o])) {
        a.baseSum[o] += baselines[o];
        a.baseCount[o]++;
      }
    }
    a.steps++;
    lastBacklog = backlog;
    lastBottleneck = bottleneck;
  }

  /**
   * Confirms the pending steps as part of the period, the newest with cause {@code c} and the
   * backlog and bottleneck flags of the last {@link #add}.
   */
  void commit(Cause c) {
    committed.addAll(pending);
    pending.clear();
    if (c != null) {
      causeCounts[c.ordinal()]++;
      backlogByCause[c.ordinal()] += lastBacklog ? 1 : 0;
      bottleneckByCause[c.ordinal()] += lastBottleneck ? 1 : 0;
    }
  }

  /**
   * The period's cause: the one most of its problem steps had (the first such on a tie), except
   * that PER_REQUEST_SLOWDOWN and WORKLOAD_SHIFT, which say "no queue, no saturation", give way
   * when most problem steps had a cause that found a queue or a saturated resource
   * (KV_CACHE_PRESSURE, CAPACITY_EXHAUSTED, CONCURRENCY_LIMIT, GPU_COMPUTE_BOUND): then the most
   * frequent of those. A ramp of a few residual steps and a sawtooth across a threshold must not
   * name a period "no saturation" when saturation is what most of it showed.
   *
   * @return the cause; the first cause code when no step was committed
   */
  Cause majority() {
    int best = mostFrequent(Cause.values());
    Cause c = Cause.values()[best];
    if (c != Cause.PER_REQUEST_SLOWDOWN && c != Cause.WORKLOAD_SHIFT) {
      return c;
    }
    int problem = 0;
    for (int n : causeCounts) {
      problem += n;
    }
    int specific = 0;
    for (Cause s : SPECIFIC) {
      specific += causeCounts[s.ordinal()];
    }
    return specific * 2 > problem ? Cause.values()[mostFrequent(SPECIFIC)] : c;
  }

  /** @return the ordinal of the cause of {@code among} with most steps (the first on a tie) */
  private int mostFrequent(Cause[] among) {
    int best = among[0].ordinal();
    for (Cause c : among) {
      if (causeCounts[c.ordinal()] > causeCounts[best]) {
        best = c.ordinal();
      }
    }
    return best;
  }

  /** @return whether more than half of the steps with cause {@code c} showed a backlog */
  boolean mostlyBacklog(Cause c) {
    return backlogByCause[c.ordinal()] * 2 > causeCounts[c.ordinal()];
  }

  /** @return whether more than half of the steps with cause {@code c} showed a bottleneck */
  boolean mostlyBottleneck(Cause c) {
    return bottleneckByCause[c.ordinal()] * 2 > causeCounts[c.ordinal()];
  }

  /**
   * @param ind an indicator
   * @param window the window text of rate-based indicators, e.g. {@code 5m}
   * @param promql the indicator's PromQL, or null
   * @param basis where its threshold came from ({@code slo}, {@code baseline}, {@code static}),
   *     or null where it has none
   * @return the evidence row of the indicator over the period, or null when it had no value
   */
  Evidence evidence(Indicator ind, String window, String promql, String basis) {
    int o = ind.ordinal();
    Acc a = committed;
    if (a.sizes[o] == 0) {
      return null;
    }
    double[] vals = Arrays.copyOf(a.values[o], a.sizes[o]);
    Arrays.sort(vals);
    Double threshold = a.thrCount[o] == 0 ? null : round(a.thrSum[o] / a.thrCount[o]);
    Double baseline = a.baseCount[o] == 0 ? null : round(a.baseSum[o] / a.baseCount[o]);
    boolean instant = ind == Indicator.WAITING || ind == Indicator.RUNNING
        || ind == Indicator.GPU_UTIL || ind == Indicator.KV_CACHE_USAGE
        || ind == Indicator.GPU_MEM || ind == Indicator.UPSTREAM_BACKLOG;
    return new Evidence(ind.key(), round(a.sum[o] / a.count[o]), threshold, baseline, ind.unit(),
        instant ? "instant" : window, round(vals[(int) Math.floor(0.05 * (vals.length - 1))]),
        round(vals[(int) Math.ceil(0.95 * (vals.length - 1))]), promql,
        threshold == null ? null : basis == null ? (baseline != null ? "baseline" : "static")
            : basis);
  }

  /**
   * Builds the diagnosis of the period. The queue and resource verdicts are read from the
   * period's steps that had {@code cause} (the ones it was chosen by), so they never contradict
   * it; the evidence rows describe the whole period.
   *
   * @param cause its cause
   * @param startMs first step, ms
   * @param endMs last problem step, ms
   * @param open whether the period still holds (end reported as null)
   * @param stale whether its target has been silent since its last step
   * @param stepMs the evaluation step, ms (a period's duration counts its last step)
   * @param config the configuration (SLOs, rate window)
   * @param present which indicators the target exposes, by ordinal
   * @param queries PromQL per indicator
   * @param targetId the target's id
   * @param labels the target's grouping labels
   * @return the diagnosis
   */
  Diagnosis build(Cause cause, long startMs, long endMs, boolean open, boolean stale,
      long stepMs, AnalysisConfig config, boolean[] present, Map<Indicator, String> queries,
      String targetId, Map<String, String> labels) {
    String window = Diagnoser.duration(config.rateWindowMs());
    List<Evidence> latencyEv = new ArrayList<>();
    boolean anyLatency = false;
    boolean latencyBreached = false;
    for (Indicator ind : LATENCY) {
      Evidence e = evidence(ind, window, queries.get(ind),
          config.slos().containsKey(ind) ? "slo" : null);
      if (e != null) {
        anyLatency = true;
        latencyEv.add(e);
        latencyBreached |= e.threshold() != null && e.value() > e.threshold();
      }
    }
    List<Evidence> queueEv = rows(QUEUE, window, queries, config);
    boolean queueKnown = present[Indicator.WAITING.ordinal()]
        || present[Indicator.UPSTREAM_BACKLOG.ordinal()];
    boolean queueSat = mostlyBacklog(cause) || cause == Cause.UPSTREAM_BACKLOG;
    List<Evidence> resEv = rows(RESOURCE, window, queries, config);
    boolean resKnown = present[Indicator.GPU_UTIL.ordinal()]
        || present[Indicator.KV_CACHE_USAGE.ordinal()];
    List<ChainLayer> chain = List.of(
        new ChainLayer("latency", !anyLatency ? "unknown" : latencyBreached ? "breached"
            : "normal", latencyEv),
        new ChainLayer("queue", !queueKnown ? "unknown" : queueSat ? "saturated" : "normal",
            queueEv),
        new ChainLayer("resource", !resKnown ? "unknown" : mostlyBottleneck(cause) ? "saturated"
            : "normal", resEv));
    String severity = severity(cause, latencyEv);
    String id = targetId + "/" + cause.name().toLowerCase(java.util.Locale.ROOT) + "/" + startMs;
    return new Diagnosis(id, cause, severity, labels, startMs, open ? null : endMs,
        Summaries.summary(cause, chain, endMs - startMs + stepMs), chain,
        cause.recommendations(), open && stale);
  }

  private List<Evidence> rows(Indicator[] inds, String window, Map<Indicator, String> queries,
      AnalysisConfig config) {
    List<Evidence> out = new ArrayList<>();
    for (Indicator ind : inds) {
      Evidence e = evidence(ind, window, queries.get(ind),
          config.slos().containsKey(ind) ? "slo" : null);
      if (e != null) {
        out.add(e);
      }
    }
    return out;
  }

  private static String severity(Cause cause, List<Evidence> latency) {
    // A silence is not an outage of the service: a gap is a warning, never a page by itself.
    if (cause == Cause.CAPACITY_EXHAUSTED) {
      return "critical";
    }
    for (Evidence e : latency) {
      if (e.threshold() != null && e.value() >= 2 * e.threshold()) {
        return "critical";
      }
    }
    return "warning";
  }

  /** Three significant digits: evidence is for people, and stable across re-evaluations. */
  static double round(double v) {
    if (Double.isNaN(v) || Double.isInfinite(v) || v == 0) {
      return v;
    }
    double scale = Math.pow(10, 3 - Math.ceil(Math.log10(Math.abs(v))));
    return Math.round(v * scale) / scale;
  }
}
