package io.inferlens.analysis.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The period's cause and its chain verdicts, from the steps' causes and flags. */
class RunEvidenceTest {

  private static final int N = Indicator.values().length;

  /** Feeds {@code n} problem steps of one cause with KV and preemption values. */
  private static void steps(RunEvidence run, int n, Cause c, boolean backlog,
      boolean bottleneck, double kv, double preemptions) {
    double[] v = new double[N];
    Arrays.fill(v, Double.NaN);
    v[Indicator.KV_CACHE_USAGE.ordinal()] = kv;
    v[Indicator.PREEMPTIONS.ordinal()] = preemptions;
    v[Indicator.TPOT_P95.ordinal()] = 0.2;
    v[Indicator.WAITING.ordinal()] = backlog ? 5 : 0;
    double[] thr = new double[N];
    Arrays.fill(thr, Double.NaN);
    thr[Indicator.TPOT_P95.ordinal()] = 0.1;
    double[] base = new double[N];
    Arrays.fill(base, Double.NaN);
    for (int i = 0; i < n; i++) {
      run.add(v, thr, base, backlog, bottleneck);
      run.commit(c);
    }
  }

  private static Diagnosis build(RunEvidence run) {
    boolean[] present = new boolean[N];
    Arrays.fill(present, true);
    return run.build(run.majority(), 0, 600_000, false, false, 15_000, DiagnoserTest.CONFIG,
        present, Map.of(), "t", Map.of());
  }

  @Test
  void aSlowdownPluralityGivesWayWhenMostStepsFoundSaturation() {
    RunEvidence run = new RunEvidence();
    steps(run, 45, Cause.PER_REQUEST_SLOWDOWN, false, false, 0.93, 0.05);
    steps(run, 30, Cause.KV_CACHE_PRESSURE, false, true, 0.97, 0.15);
    steps(run, 25, Cause.CAPACITY_EXHAUSTED, true, true, 0.96, 0.02);
    assertThat(run.majority()).isEqualTo(Cause.KV_CACHE_PRESSURE);
    Diagnosis d = build(run);
    assertThat(d.chain()).extracting(ChainLayer::verdict)
        .containsExactly("breached", "normal", "saturated");
    assertThat(ChainConsistency.problems(d)).isEmpty();
  }

  @Test
  void aSlowdownMajorityStaysASlowdownWithNormalLayers() {
    RunEvidence run = new RunEvidence();
    steps(run, 60, Cause.PER_REQUEST_SLOWDOWN, false, false, 0.5, 0);
    steps(run, 40, Cause.KV_CACHE_PRESSURE, false, true, 0.97, 0.15);
    assertThat(run.majority()).isEqualTo(Cause.PER_REQUEST_SLOWDOWN);
    Diagnosis d = build(run);
    assertThat(d.chain()).extracting(ChainLayer::verdict)
        .containsExactly("breached", "normal", "normal");
    assertThat(ChainConsistency.problems(d)).isEmpty();
  }

  @Test
  void theCheckFindsASlowdownOverASaturatedResource() {
    Evidence kv = new Evidence("kv_cache_usage", 0.965, null, null, "ratio", "instant", 0.95,
        0.98, null, null);
    Evidence pre = new Evidence("preemptions", 0.138, null, null, "1/s", "5m", 0.1, 0.15, null,
        null);
    Evidence tpot = new Evidence("tpot_p95", 0.26, 0.08, 0.05, "s", "5m", 0.2, 0.3, null,
        "baseline");
    List<ChainLayer> chain = List.of(new ChainLayer("latency", "breached", List.of(tpot)),
        new ChainLayer("queue", "normal", List.of()),
        new ChainLayer("resource", "saturated", List.of(kv, pre)));
    assertThat(ChainConsistency.problems(Cause.PER_REQUEST_SLOWDOWN, chain,
        Summaries.summary(Cause.PER_REQUEST_SLOWDOWN, chain, 600_000))).hasSize(1)
        .allMatch(s -> s.contains("resource saturated"));
    assertThat(ChainConsistency.problems(Cause.KV_CACHE_PRESSURE, chain,
        Summaries.summary(Cause.KV_CACHE_PRESSURE, chain, 600_000))).isEmpty();
    assertThat(ChainConsistency.problems(Cause.CAPACITY_EXHAUSTED, chain,
        Summaries.summary(Cause.CAPACITY_EXHAUSTED, chain, 600_000))).hasSize(1);
    assertThat(ChainConsistency.problems(Cause.KV_CACHE_PRESSURE, chain,
        "Each request got slower with no queue and no saturation")).hasSize(1);
  }
}
