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

  static Diagnoser.Result run(IndicatorFrame f) {
    return new Diagnoser(CONFIG).diagnose(f, 0, "t1",
        Map.of("job", "vllm", "instance", "a:8000"), T0 + 2 * HOUR * STEP);
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
        Map.of(), T0 + 2 * HOUR * STEP);
    assertThat(causes(r)).containsOnly(Cause.PER_REQUEST_SLOWDOWN);
    assertThat(r.thresholds().get(Indicator.E2E_P95)[5]).isEqualTo(2.0);
  }

  @Test
  void staticDefaultHoldsUntilEnoughHistory() {
    Diagnoser.Result r = run(new FrameBuilder().healthyEngine().f);
    assertThat(r.thresholds().get(Indicator.E2E_P95)[0]).isEqualTo(10.0);
    assertThat(r.baselines().get(Indicator.E2E_P95)[0]).isNaN();
    assertThat(r.baselines().get(Indicator.E2E_P95)[HOUR + 10]).isBetween(2.9, 3.2);
  }
}
