package io.inferlens.analysis.diagnose;

import java.util.EnumMap;
import java.util.Map;

/**
 * Tunables of the analysis engine, with the defaults of docs/DESIGN.md section 3. All durations are in
 * milliseconds.
 *
 * @param stepMs evaluation step (default 15 s)
 * @param rateWindowMs window of {@code rate}/{@code histogram_quantile} (default 5 min)
 * @param forMs how long a condition must hold before it is a diagnosis (default 5 min)
 * @param smoothingN points of the SMA/EMA applied to latency indicators (default 10, so the EMA's
 *     α = 2/(N+1) ≈ 0.18)
 * @param smoothing {@code ema}, {@code sma} or {@code none}
 * @param baselineLookbackMs history a baseline is learned from (default 14 days)
 * @param baselineHeadroom threshold = headroom × baseline P95 (default 1.5, i.e. +50 %)
 * @param baselineMinHistoryMs normal history needed before a baseline replaces the static default
 *     (default 1 h)
 * @param baselineBlockMs how often the baseline is recomputed along time (default 15 min)
 * @param slos explicit thresholds that override baselines, by indicator, in the indicator's unit
 * @param staticDefaults thresholds used until enough history exists, by indicator
 * @param waitingBacklog smoothed waiting requests at or above which the engine queue may be
 *     backed up (default 1)
 * @param waitingPerRunning the queue is backed up only when waiting is also at least this share
 *     of the running batch (default 0.1): a queue a tenth of the batch drains within a few
 *     iterations, a larger one adds its wait to every request's TTFT
 * @param gpuUtilSaturatedPercent GPU utilisation at or above which compute is saturated (90)
 * @param kvSaturatedRatio KV-cache usage at or above which it is saturated (0.90)
 * @param gpuMemFullRatio framebuffer use at or above which GPU memory is full (0.98; vLLM
 *     preallocates up to {@code --gpu-memory-utilization} 0.9, so 90 % is normal)
 * @param preemptionRatePerSecond preemption rate above which preemptions are "rising" (0.01/s)
 * @param preemptionsPerRequest preemptions per finished request at or above which the KV cache,
 *     not the batch, is the bottleneck while the queue is backed up (default 0.02: one request
 *     in 50 recomputed); without a queue any preemption rate above the floor is KV pressure
 * @param upstreamMinLag Kafka lag (messages) below which a rising lag is not a backlog (1000)
 * @param gapFactor a monitoring gap is a silence longer than this many scrape intervals (2)
 * @param workloadShiftRatio prompt/generation length above ratio × baseline is a shift (1.5)
 * @param versionRegressionRatio a new model version this much slower at comparable load is a
 *     regression (1.3)
 */
public record AnalysisConfig(
    long stepMs,
    long rateWindowMs,
    long forMs,
    int smoothingN,
    String smoothing,
    long baselineLookbackMs,
    double baselineHeadroom,
    long baselineMinHistoryMs,
    long baselineBlockMs,
    Map<Indicator, Double> slos,
    Map<Indicator, Double> staticDefaults,
    double waitingBacklog,
    double waitingPerRunning,
    double gpuUtilSaturatedPercent,
    double kvSaturatedRatio,
    double gpuMemFullRatio,
    double preemptionRatePerSecond,
    double preemptionsPerRequest,
    double upstreamMinLag,
    double gapFactor,
    double workloadShiftRatio,
    double versionRegressionRatio) {

  /**
   * @throws IllegalArgumentException if a duration or count is not positive, naming it
   */
  public AnalysisConfig {
    positive("stepMs", stepMs);
    positive("rateWindowMs", rateWindowMs);
    positive("forMs", forMs);
    positive("smoothingN", smoothingN);
    positive("baselineLookbackMs", baselineLookbackMs);
    positive("baselineBlockMs", baselineBlockMs);
    if (!smoothing.equals("ema") && !smoothing.equals("sma") && !smoothing.equals("none")) {
      throw new IllegalArgumentException("smoothing must be ema, sma or none, got " + smoothing);
    }
    slos = Map.copyOf(slos);
    staticDefaults = Map.copyOf(staticDefaults);
  }

  private static void positive(String name, long v) {
    if (v <= 0) {
      throw new IllegalArgumentException(name + " must be > 0, got " + v);
    }
  }

  /**
   * Static limits in force until a baseline exists: TTFT P95 30 s, TPOT/ITL P95 1 s, E2E P95
   * 600 s, queue time P95 60 s. Extreme on purpose: a default knows nothing of the workload (a
   * steady 10 s E2E is normal for long generations), so before a baseline only a latency no
   * serving deployment calls normal, or an explicit {@code --slo}, may open an incident.
   */
  public static Map<Indicator, Double> defaultThresholds() {
    Map<Indicator, Double> m = new EnumMap<>(Indicator.class);
    m.put(Indicator.TTFT_P95, 30.0);
    m.put(Indicator.TPOT_P95, 1.0);
    m.put(Indicator.E2E_P95, 600.0);
    m.put(Indicator.QUEUE_TIME_P95, 60.0);
    return m;
  }

  /** @return the documented defaults */
  public static AnalysisConfig defaults() {
    return new AnalysisConfig(15_000, 300_000, 300_000, 10, "ema", 14 * 86_400_000L, 1.5,
        3_600_000, 900_000, Map.of(), defaultThresholds(), 1.0, 0.1, 90, 0.90, 0.98, 0.01, 0.02,
        1000, 2, 1.5, 1.3);
  }

  /**
   * @return a copy with the time scales changed; the rest kept (tests and the simulator demo
   *     compress an hour into minutes)
   */
  public AnalysisConfig withTiming(long stepMs, long rateWindowMs, long forMs,
      long baselineMinHistoryMs, long baselineBlockMs) {
    return new AnalysisConfig(stepMs, rateWindowMs, forMs, smoothingN, smoothing,
        baselineLookbackMs, baselineHeadroom, baselineMinHistoryMs, baselineBlockMs, slos,
        staticDefaults, waitingBacklog, waitingPerRunning, gpuUtilSaturatedPercent, kvSaturatedRatio,
        gpuMemFullRatio, preemptionRatePerSecond, preemptionsPerRequest, upstreamMinLag, gapFactor, workloadShiftRatio,
        versionRegressionRatio);
  }

  /** @return a copy with these explicit SLO thresholds */
  public AnalysisConfig withSlos(Map<Indicator, Double> newSlos) {
    return new AnalysisConfig(stepMs, rateWindowMs, forMs, smoothingN, smoothing,
        baselineLookbackMs, baselineHeadroom, baselineMinHistoryMs, baselineBlockMs, newSlos,
        staticDefaults, waitingBacklog, waitingPerRunning, gpuUtilSaturatedPercent, kvSaturatedRatio,
        gpuMemFullRatio, preemptionRatePerSecond, preemptionsPerRequest, upstreamMinLag, gapFactor, workloadShiftRatio,
        versionRegressionRatio);
  }
}
