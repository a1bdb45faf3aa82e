package io.inferlens.analysis.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.function.IntToDoubleFunction;
import org.junit.jupiter.api.Test;

/**
 * The classifier on synthetic frames: 15 s steps, a healthy first hour that teaches the baseline,
 * then a degraded hour shaped like each scenario.
 */
class DiagnoserTest {

  static final long STEP = 15_000;
  static final int HOUR = 240;
  static final long T0 = 1_780_000_000_000L;

  /** Two hours of steps; {@code degraded(i)} is true in the second hour. */
  static final class FrameBuilder {
    final IndicatorFrame f = new IndicatorFrame(T0, STEP, 2 * HOUR);

    FrameBuilder put(Indicator ind, double healthy, double degraded) {
      return put(ind, i -> i < HOUR ? healthy : degraded);
    }

    FrameBuilder put(Indicator ind, IntToDoubleFunction fn) {
      double[] v = new double[f.steps()];
      for (int i = 0; i < v.length; i++) {
        // a little deterministic noise so the baseline P95 is not a single value
        v[i] = fn.applyAsDouble(i) * (1 + 0.02 * Math.sin(i));
      }
      f.put(ind, v);
      return this;
    }

    FrameBuilder healthyEngine() {
      return put(Indicator.E2E_P95, 3.0, 3.0).put(Indicator.TTFT_P95, 0.3, 0.3)
          .put(Indicator.TPOT_P95, 0.035, 0.035).put(Indicator.WAITING, 0, 0)
          .put(Indicator.RUNNING, 20, 20).put(Indicator.KV_CACHE_USAGE, 0.25, 0.25)
          .put(Indicator.GPU_UTIL, 50, 50).put(Indicator.PREEMPTIONS, 0, 0)
          .put(Indicator.PROMPT_TOKENS, 800, 800).put(Indicator.GENERATION_TOKENS, 200, 200);
    }
  }

  /** Defaults, but 30 min of history is enough for a baseline: the healthy phase is 1 h. */
  static final AnalysisConfig CONFIG = AnalysisConfig.defaults()
      .withTiming(STEP, 300_000, 300_000, 1_800_000, 900_000);

  /** Diagnoses a frame; every diagnosis of every test must agree with its own chain. */
  static Diagnoser.Result run(IndicatorFrame f) {
    Diagnoser.Result r = new Diagnoser(CONFIG).diagnose(f, 0, "t1",
        Map.of("job", "vllm", "instance", "a:8000"));
    for (Diagnosis d : r.diagnoses()) {
      assertThat(ChainConsistency.problems(d)).as("%s: %s", d.cause(), d.summary()).isEmpty();
    }
    return r;
  }

  static List<Cause> causes(Diagnoser.Result r) {
    return r.diagnoses().stream().map(Diagnosis::cause).toList();
  }

  @Test
  void healthyTargetHasNoDiagnosis() {
    assertThat(run(new FrameBuilder().healthyEngine().f).diagnoses()).isEmpty();
  }

  @Test
  void peakSaturationIsCapacityExhaustedWithEvidenceOnEveryLayer() {
    FrameBuilder b = new FrameBuilder().healthyEngine()
        .put(Indicator.E2E_P95, 3, 12).put(Indicator.TPOT_P95, 0.035, 0.08)
        .put(Indicator.WAITING, i -> i < HOUR ? 0 : 15 + (i % 16))
        .put(Indicator.GPU_UTIL, 55, 99).put(Indicator.KV_CACHE_USAGE, 0.3, 0.95);
    Diagnoser.Result r = run(b.f);
    assertThat(causes(r)).containsExactly(Cause.CAPACITY_EXHAUSTED);
    Diagnosis d = r.diagnoses().get(0);
    assertThat(d.severity()).isEqualTo("critical");
    assertThat(d.endMs()).isNull();
    assertThat(d.startMs()).isBetween(T0 + HOUR * STEP, T0 + (HOUR + 20) * STEP);
    assertThat(d.chain()).extracting(ChainLayer::layer, ChainLayer::verdict).containsExactly(
        org.assertj.core.groups.Tuple.tuple("latency", "breached"),
        org.assertj.core.groups.Tuple.tuple("queue", "saturated"),
        org.assertj.core.groups.Tuple.tuple("resource", "saturated"));
    Evidence e2e = d.chain().get(0).evidence().stream()
        .filter(e -> e.signal().equals("e2e_p95")).findFirst().orElseThrow();
    // Baseline learned from the healthy hour: P95 of ~3 s; threshold +50 %.
    assertThat(e2e.baseline()).isBetween(2.9, 3.2);
    assertThat(e2e.threshold()).isBetween(4.3, 4.8);
    assertThat(e2e.value()).isGreaterThan(10);
    assertThat(d.summary()).contains("queue at").contains("waiting").contains("GPU")
        .contains("KV cache").contains("max-num-seqs");
    assertThat(d.recommendations()).anyMatch(s -> s.contains("429"));
  }

  @Test
  void slowerTokensWithoutQueueOrSaturationIsPerRequestSlowdown() {
    FrameBuilder b = new FrameBuilder().healthyEngine()
        .put(Indicator.TPOT_P95, 0.035, 0.07).put(Indicator.E2E_P95, 3, 6);
    assertThat(causes(run(b.f))).containsExactly(Cause.PER_REQUEST_SLOWDOWN);
  }

  @Test
  void longerPromptsMakeItAWorkloadShift() {
    FrameBuilder b = new FrameBuilder().healthyEngine()
        .put(Indicator.TTFT_P95, 0.3, 1.5).put(Indicator.E2E_P95, 3, 5)
        .put(Indicator.PROMPT_TOKENS, 800, 3200);
    assertThat(causes(run(b.f))).containsExactly(Cause.WORKLOAD_SHIFT);
  }

  @Test
  void kvFullWithPreemptionsIsKvCachePressure() {
    FrameBuilder b = new FrameBuilder().healthyEngine()
        .put(Indicator.TPOT_P95, 0.035, 0.09).put(Indicator.KV_CACHE_USAGE, 0.4, 0.97)
        .put(Indicator.PREEMPTIONS, 0, 0.5).put(Indicator.GPU_UTIL, 60, 75);
    assertThat(causes(run(b.f))).containsExactly(Cause.KV_CACHE_PRESSURE);
  }

  /**
   * The measured vLLM 0.6 case, in the second model ({@link V0KvTraffic}): KV 0.97–0.98,
   * preemptions 0 → 0.15/s, ITL ×3.5, waiting mostly 0. At 10 and 20 finished requests/s that is
   * fewer than one preemption per 50 requests, which the old rule took for no KV pressure.
   */
  @Test
  void v0KvPressureIsKvCachePressureAtAnyRequestRate() {
    for (double rate : new double[] {0.3, 2, 10, 20}) {
      double demand = 1 / (1 - 0.15 / rate);
      for (boolean gpu : new boolean[] {false, true}) {
        Diagnoser.Result r = run(V0KvTraffic.frame(rate, 0.6, demand, 3.5, gpu));
        assertThat(causes(r)).as("%s requests/s, gpu %s", rate, gpu)
            .containsExactly(Cause.KV_CACHE_PRESSURE);
        Diagnosis d = r.diagnoses().get(0);
        assertThat(d.chain()).extracting(ChainLayer::layer, ChainLayer::verdict).containsExactly(
            org.assertj.core.groups.Tuple.tuple("latency", "breached"),
            org.assertj.core.groups.Tuple.tuple("queue", "normal"),
            org.assertj.core.groups.Tuple.tuple("resource", "saturated"));
        Evidence pre = d.chain().get(2).evidence().stream()
            .filter(e -> e.signal().equals("preemptions")).findFirst().orElseThrow();
        assertThat(pre.high()).as("%s requests/s", rate).isBetween(0.14, 0.16);
        assertThat(d.summary()).startsWith("KV cache full, requests preempted").contains("KV cache 9");
      }
    }
  }

  /** A V0 engine at a high but normal KV usage (0.85, no preemptions) is not a problem. */
  @Test
  void v0AtHighButNormalKvUsageHasNoDiagnosis() {
    for (double rate : new double[] {0.3, 2, 10}) {
      assertThat(run(V0KvTraffic.frame(rate, 0.85, 0.85, 1, true)).diagnoses())
          .as("%s requests/s", rate).isEmpty();
    }
  }

  /** Slower tokens at KV 0.85 without preemptions: no KV pressure, and nothing saturated. */
  @Test
  void v0SlowdownBelowAFullKvCacheIsNotKvPressure() {
    Diagnoser.Result r = run(V0KvTraffic.frame(2, 0.85, 0.85, 3, false));
    assertThat(causes(r)).doesNotContain(Cause.KV_CACHE_PRESSURE).isNotEmpty();
    assertThat(r.diagnoses().get(0).chain().get(2).verdict()).isEqualTo("normal");
  }

  /**
   * A full KV cache that neither preempts nor keeps a queue limits nothing: the period is a
   * slowdown and its resource layer says normal, not saturated under a "no saturation" summary.
   */
  @Test
  void fullKvWithoutPreemptionsOrQueueIsNotASaturatedResource() {
    FrameBuilder b = new FrameBuilder().healthyEngine()
        .put(Indicator.TPOT_P95, 0.035, 0.09).put(Indicator.KV_CACHE_USAGE, 0.4, 0.96);
    Diagnoser.Result r = run(b.f);
    assertThat(causes(r)).containsExactly(Cause.PER_REQUEST_SLOWDOWN);
    assertThat(r.diagnoses().get(0).chain().get(2).verdict()).isEqualTo("normal");
  }

  /**
   * Full KV with a queue and only a trickle of preemptions (one per 100 finished requests) is
   * exhausted capacity, not KV pressure: with a backlog the rate per request decides.
   */
  @Test
  void fullKvWithQueueAndATrickleOfPreemptionsIsCapacityExhausted() {
    FrameBuilder b = new FrameBuilder().healthyEngine()
        .put(Indicator.E2E_P95, 3, 12).put(Indicator.TTFT_P95, 0.3, 3)
        .put(Indicator.WAITING, 0, 20).put(Indicator.KV_CACHE_USAGE, 0.3, 0.95)
        .put(Indicator.REQUEST_RATE, 10, 10).put(Indicator.PREEMPTIONS, 0, 0.1);
    assertThat(causes(run(b.f))).containsExactly(Cause.CAPACITY_EXHAUSTED);
  }

  @Test
  void queueWithoutSaturationIsConcurrencyLimit() {
    FrameBuilder b = new FrameBuilder().healthyEngine()
        .put(Indicator.TTFT_P95, 0.3, 4).put(Indicator.WAITING, 0, 12);
    assertThat(causes(run(b.f))).containsExactly(Cause.CONCURRENCY_LIMIT);
  }

  @Test
  void risingKafkaLagWithHealthyEngineIsUpstreamBacklog() {
    FrameBuilder b = new FrameBuilder().healthyEngine()
        .put(Indicator.UPSTREAM_BACKLOG, i -> i < HOUR ? 50 : 100 + 40.0 * (i - HOUR));
    Diagnoser.Result r = run(b.f);
    assertThat(causes(r)).containsExactly(Cause.UPSTREAM_BACKLOG);
    assertThat(r.diagnoses().get(0).summary()).contains("Kafka lag");
  }

  @Test
  void aSlowKafkaBacklogStartsWhereItsLagBeganToRiseNotWhereItReachedTheMinimum() {
    // A healthy group's lag of 0-8 messages, then one message per second more than the group
    // consumes: the 1000-message minimum is reached about 16 minutes after the onset.
    FrameBuilder b = new FrameBuilder().healthyEngine()
        .put(Indicator.UPSTREAM_BACKLOG, i -> (i * 7919 % 9) + (i < HOUR ? 0 : 15.0 * (i - HOUR)));
    Diagnoser.Result r = run(b.f);
    assertThat(causes(r)).containsExactly(Cause.UPSTREAM_BACKLOG);
    Diagnosis d = r.diagnoses().get(0);
    long onset = T0 + HOUR * STEP;
    assertThat(d.startMs()).as("start, ms after the onset: %d", d.startMs() - onset)
        .isBetween(onset, onset + 5 * 60_000);
    // The same noise without the rise opens nothing (its 5 % rises are not 50 messages).
    FrameBuilder healthy = new FrameBuilder().healthyEngine()
        .put(Indicator.UPSTREAM_BACKLOG, i -> i * 7919 % 9);
    assertThat(run(healthy.f).diagnoses()).isEmpty();
  }

  @Test
  void shortBlipIsNotADiagnosis() {
    // A one-minute spike: with the EMA's tail the smoothed value stays above the threshold for
    // about three minutes, less than the 5 minute "for".
    FrameBuilder b = new FrameBuilder().healthyEngine()
        .put(Indicator.E2E_P95, i -> i >= HOUR && i < HOUR + 4 ? 30 : 3);
    assertThat(run(b.f).diagnoses()).isEmpty();
  }

  @Test
  void gapStepsBecomeAMonitoringGapAndClosedPeriodsHaveAnEnd() {
    FrameBuilder b = new FrameBuilder().healthyEngine();
    for (int i = HOUR; i < HOUR + 6; i++) {
      b.f.markGap(i);
    }
    Diagnoser.Result r = run(b.f);
    assertThat(causes(r)).containsExactly(Cause.MONITORING_GAP);
    assertThat(r.diagnoses().get(0).endMs()).isEqualTo(T0 + (HOUR + 5) * STEP);
  }

  @Test
  void missingSignalsMakeTheirLayerUnknown() {
    IndicatorFrame f = new IndicatorFrame(T0, STEP, 2 * HOUR);
    double[] e2e = new double[2 * HOUR];
    for (int i = 0; i < e2e.length; i++) {
      e2e[i] = i < HOUR ? 3 : 20;
    }
    f.put(Indicator.E2E_P95, e2e);
    Diagnoser.Result r = run(f);
    assertThat(causes(r)).containsExactly(Cause.PER_REQUEST_SLOWDOWN);
    assertThat(r.diagnoses().get(0).chain()).extracting(ChainLayer::verdict)
        .containsExactly("breached", "unknown", "unknown");
  }

  @Test
  void sloOverridesTheBaseline() {
    AnalysisConfig c = CONFIG.withSlos(Map.of(Indicator.E2E_P95, 2.0));
    Diagnoser.Result r = new Diagnoser(c).diagnose(new FrameBuilder().healthyEngine().f, 0, "t1",
        Map.of());
    assertThat(causes(r)).containsOnly(Cause.PER_REQUEST_SLOWDOWN);
    assertThat(r.thresholds().get(Indicator.E2E_P95)[5]).isEqualTo(2.0);
  }

  @Test
  void staticDefaultHoldsUntilEnoughHistory() {
    Diagnoser.Result r = run(new FrameBuilder().healthyEngine().f);
    assertThat(r.thresholds().get(Indicator.E2E_P95)[0]).isEqualTo(600.0);
    assertThat(r.baselines().get(Indicator.E2E_P95)[0]).isNaN();
    assertThat(r.baselines().get(Indicator.E2E_P95)[HOUR + 10]).isBetween(2.9, 3.2);
  }

  /** CONFIG without smoothing, so coarse history and steps can be compared value for value. */
  static final AnalysisConfig UNSMOOTHED = new AnalysisConfig(STEP, 300_000, 300_000, 10, "none",
      14 * 86_400_000L, 1.5, 1_800_000, 900_000, Map.of(), AnalysisConfig.defaultThresholds(),
      1.0, 0.1, 90, 0.90, 0.98, 0.01, 0.02, 1000, 2, 1.5, 1.3);
  static final long FIVE_MIN = 300_000;
  static final int PER_POINT = (int) (FIVE_MIN / STEP);

  /** E2E P95 constant over each 5-minute interval {@code (T0 + (k-1)·5m, T0 + k·5m]}: f(k). */
  static double e2eOfInterval(int k) {
    return 3.0 + 0.1 * (k % 7);
  }

  @Test
  void coarseHistoryTeachesTheSameBaselineAsTheStepsItStandsFor() {
    // Two hours of steps after T0, against the first 90 minutes as 18 five-minute points (each
    // at its interval's end, standing for its 20 steps) followed by the last 30 minutes of steps.
    int steps = 2 * HOUR;
    IndicatorFrame all = new IndicatorFrame(T0 + STEP, STEP, steps);
    double[] v = new double[steps];
    for (int i = 0; i < steps; i++) {
      v[i] = e2eOfInterval(i / PER_POINT + 1);
    }
    all.put(Indicator.E2E_P95, v);
    IndicatorFrame history = new IndicatorFrame(T0 + FIVE_MIN, FIVE_MIN, 18);
    double[] hv = new double[18];
    for (int k = 0; k < 18; k++) {
      hv[k] = e2eOfInterval(k + 1);
    }
    history.put(Indicator.E2E_P95, hv);
    int rawFrom = 18 * PER_POINT;
    IndicatorFrame tail = new IndicatorFrame(T0 + 90 * 60_000L + STEP, STEP, steps - rawFrom);
    tail.put(Indicator.E2E_P95, java.util.Arrays.copyOfRange(v, rawFrom, steps));
    Diagnoser d = new Diagnoser(UNSMOOTHED);
    Diagnoser.Result stepwise = d.diagnose(all, 0, "t1", Map.of());
    Diagnoser.Result coarse = d.diagnose(history, tail, 0, "t1", Map.of());
    // By the last step every value older than `for` has joined either way: the same counts in
    // the same histogram buckets, so the same P95 (f(6) = 3.6 is the largest value).
    double want = stepwise.baselines().get(Indicator.E2E_P95)[steps - 1];
    assertThat(want).isCloseTo(3.6, org.assertj.core.data.Offset.offset(3.6 * 0.01));
    assertThat(coarse.baselines().get(Indicator.E2E_P95)[tail.steps() - 1]).isEqualTo(want);
    assertThat(coarse.thresholds().get(Indicator.E2E_P95)[tail.steps() - 1])
        .isEqualTo(1.5 * want);
    assertThat(coarse.historySmoothed().get(Indicator.E2E_P95)).containsExactly(hv);
    assertThat(stepwise.diagnoses()).isEmpty();
    assertThat(coarse.diagnoses()).isEmpty();
  }

  @Test
  void periodRunningFromTheHistoryIntoTheFrameStartsAtItsFirstHistoryPoint() {
    // 12 five-minute points: 3 s for 45 minutes, then 20 s from the point at T0 + 50 min on; the
    // frame's 10 minutes of steps stay at 20 s.
    IndicatorFrame history = new IndicatorFrame(T0 + FIVE_MIN, FIVE_MIN, 12);
    double[] hv = new double[12];
    for (int k = 0; k < 12; k++) {
      hv[k] = k < 9 ? 3.0 * (1 + 0.02 * Math.sin(k)) : 20;
    }
    history.put(Indicator.E2E_P95, hv);
    IndicatorFrame frame = new IndicatorFrame(T0 + 60 * 60_000L + STEP, STEP, 40);
    double[] v = new double[40];
    java.util.Arrays.fill(v, 20);
    frame.put(Indicator.E2E_P95, v);
    Diagnoser.Result r = new Diagnoser(CONFIG).diagnose(history, frame, 0, "t1", Map.of());
    assertThat(causes(r)).containsExactly(Cause.PER_REQUEST_SLOWDOWN);
    Diagnosis d = r.diagnoses().get(0);
    assertThat(d.startMs()).isEqualTo(T0 + 50 * 60_000L);
    assertThat(d.endMs()).isNull();
    assertThat(d.id()).isEqualTo("t1/per_request_slowdown/" + (T0 + 50 * 60_000L));
    // The 20 s points stayed out of the baseline: P95 of the 3 s ones (each ±2 %), +50 %.
    double base = r.baselines().get(Indicator.E2E_P95)[39];
    assertThat(base).isBetween(2.9, 3.1);
    assertThat(r.thresholds().get(Indicator.E2E_P95)[39]).isEqualTo(1.5 * base);
  }

  @Test
  void historyThatDoesNotFitBeforeTheFrameIsRefused() {
    IndicatorFrame history = new IndicatorFrame(T0, 7_000, 3);
    history.put(Indicator.E2E_P95, new double[] {3, 3, 3});
    IndicatorFrame frame = new IndicatorFrame(T0 + 60_000, STEP, 4);
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> new Diagnoser(CONFIG)
        .diagnose(history, frame, 0, "t1", Map.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("7000 ms");
  }
}
