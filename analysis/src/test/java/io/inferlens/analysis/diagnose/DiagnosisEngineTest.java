package io.inferlens.analysis.diagnose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.target.Target;
import io.inferlens.analysis.target.TargetConfig;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.StoreOptions;
import io.inferlens.storage.TimeSeriesStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToDoubleFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine over a real store: vLLM- and DCGM-shaped series written as a scraper would (15 s
 * apart, cumulative histograms), diagnosed for past ranges — data backfilled now for yesterday
 * included — and model versions compared on one instance; baselines learned from 14 days of
 * 5-minute rollups against the same learned step by step from raw samples.
 */
class DiagnosisEngineTest {

  static final long STEP = 15_000;
  static final long NOW = 1_790_000_000_000L;
  static final long DAY_AGO = NOW - 86_400_000L;
  static final double[] LE = {0.5, 1, 2, 4, 6, 8, 10, 15, 20, 30, 60};
  static final AnalysisConfig CONFIG = AnalysisConfig.defaults()
      .withTiming(STEP, 300_000, 300_000, 1_800_000, 900_000);

  @TempDir Path dir;
  TimeSeriesStore store;
  DiagnosisEngine engine;

  @BeforeEach
  void open() throws Exception {
    Clock clock = Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC);
    store = TimeSeriesStore.open(StoreOptions.defaults(dir), clock);
    engine = new DiagnosisEngine(store, SignalCatalog.load(), TargetConfig.defaults(), CONFIG,
        clock);
  }

  @AfterEach
  void close() {
    store.close();
  }

  /** Writes {@code steps} scrapes of one vLLM engine and its GPU starting at {@code t0}. */
  void scrapeVllm(String host, String model, long t0, int steps, IntToDoubleFunction e2eSeconds,
      IntToDoubleFunction waiting, IntToDoubleFunction gpu, IntToDoubleFunction kv,
      double[] cumulative) throws Exception {
    List<SeriesWrite> w = new ArrayList<>();
    String inst = host + ":8000";
    long[] ts = new long[steps];
    for (int i = 0; i < steps; i++) {
      ts[i] = t0 + i * STEP;
    }
    // 30 requests a scrape, all at the step's latency: cumulative buckets with le >= latency grow.
    double[][] buckets = new double[LE.length + 1][steps];
    double[] count = new double[steps];
    double[] sum = new double[steps];
    double[] success = new double[steps];
    for (int i = 0; i < steps; i++) {
      double lat = e2eSeconds.applyAsDouble(i);
      cumulative[LE.length + 1] += 30;
      cumulative[LE.length + 2] += 30 * lat;
      for (int b = 0; b <= LE.length; b++) {
        if (b == LE.length || lat <= LE[b]) {
          cumulative[b] += 30;
        }
        buckets[b][i] = cumulative[b];
      }
      count[i] = cumulative[LE.length + 1];
      sum[i] = cumulative[LE.length + 2];
      success[i] = count[i];
    }
    for (int b = 0; b <= LE.length; b++) {
      String le = b == LE.length ? "+Inf" : Double.toString(LE[b]);
      w.add(series(ts, buckets[b], "__name__", "vllm:e2e_request_latency_seconds_bucket", "job",
          "vllm", "instance", inst, "model_name", model, "engine", "0", "le", le));
    }
    w.add(series(ts, count, "__name__", "vllm:e2e_request_latency_seconds_count", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0"));
    w.add(series(ts, sum, "__name__", "vllm:e2e_request_latency_seconds_sum", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0"));
    w.add(series(ts, success, "__name__", "vllm:request_success_total", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0", "finished_reason", "stop"));
    w.add(series(ts, fn(steps, waiting), "__name__", "vllm:num_requests_waiting", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0"));
    w.add(series(ts, fn(steps, i -> 40), "__name__", "vllm:num_requests_running", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0"));
    w.add(series(ts, fn(steps, kv), "__name__", "vllm:kv_cache_usage_perc", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0"));
    w.add(series(ts, fn(steps, gpu), "__name__", "DCGM_FI_DEV_GPU_UTIL", "job", "dcgm",
        "instance", host + ":9400", "gpu", "0", "Hostname", host));
    assertThat(store.append(w).rejectedCount()).isZero();
  }

  static double[] fn(int steps, IntToDoubleFunction f) {
    double[] v = new double[steps];
    for (int i = 0; i < steps; i++) {
      v[i] = f.applyAsDouble(i);
    }
    return v;
  }

  static SeriesWrite series(long[] ts, double[] values, String... labels) {
    long[] bits = new long[values.length];
    for (int i = 0; i < bits.length; i++) {
      bits[i] = Double.doubleToRawLongBits(values[i]);
    }
    return new SeriesWrite(LabelSet.of(labels), ts, bits, ts.length);
  }

  @Test
  void backfilledHistoryIsDiagnosedForItsOwnTimeRange() throws Exception {
    // Yesterday: an hour healthy, then an hour saturated. Written now, as a backfill.
    scrapeVllm("a", "m1", DAY_AGO, 480, i -> i < 240 ? 2.5 : 12, i -> i < 240 ? 0 : 20,
        i -> i < 240 ? 50 : 99, i -> i < 240 ? 0.3 : 0.95, new double[LE.length + 3]);
    List<Diagnosis> ds = engine.diagnoses(DAY_AGO, DAY_AGO + 480 * STEP, List.of());
    assertThat(ds).extracting(Diagnosis::cause).containsExactly(Cause.CAPACITY_EXHAUSTED);
    Diagnosis d = ds.get(0);
    assertThat(d.startMs()).isBetween(DAY_AGO + 240 * STEP, DAY_AGO + 280 * STEP);
    assertThat(d.target()).containsEntry("instance", "a:8000").containsEntry("model_name", "m1");
    ChainLayer resource = d.chain().get(2);
    assertThat(resource.verdict()).isEqualTo("saturated");
    assertThat(resource.evidence()).extracting(Evidence::signal).contains("gpu_util",
        "kv_cache_usage");
    // The same range asked today, after more data arrived, gives the same answer; a range that
    // ends before the problem gives none.
    assertThat(engine.diagnoses(DAY_AGO, DAY_AGO + 200 * STEP, List.of())).isEmpty();
  }

  @Test
  void anAnalysisThatKeepsNothingReadsCachedChunksButAddsNone() throws Exception {
    long t0 = NOW - 5 * 86_400_000L; // old enough for its chunks to be cacheable
    double[] cumulative = new double[LE.length + 3];
    scrapeVllm("e", "m1", t0, 240, i -> 2.5, i -> 0, i -> 50, i -> 0.3, cumulative);
    Target target = engine.targets(t0, t0 + 239 * STEP).get(0);
    DiagnosisEngine.TargetAnalysis uncached =
        engine.analyze(target, t0, t0 + 239 * STEP, STEP, false);
    assertThat(engine.cache().bytes()).isZero();
    long misses = engine.cache().misses();
    assertThat(misses).isPositive();
    DiagnosisEngine.TargetAnalysis kept = engine.analyze(target, t0, t0 + 239 * STEP, STEP);
    long bytes = engine.cache().bytes();
    assertThat(bytes).isPositive();
    assertThat(kept.result().diagnoses()).isEqualTo(uncached.result().diagnoses());
    // Read through: the chunks just kept answer it, and nothing more is kept.
    long hits = engine.cache().hits();
    engine.analyze(target, t0, t0 + 239 * STEP, STEP, false);
    assertThat(engine.cache().hits()).isGreaterThan(hits);
    assertThat(engine.cache().bytes()).isEqualTo(bytes);
  }

  @Test
  void cachedChunksGiveTheSameAnswerAndBackfillInvalidatesThem() throws Exception {
    long t0 = NOW - 5 * 86_400_000L; // old enough for its chunk to be cached
    double[] cumulative = new double[LE.length + 3];
    scrapeVllm("d", "m1", t0, 240, i -> 2.5, i -> 0, i -> 50, i -> 0.3, cumulative);
    long firstHour = t0 + 239 * STEP;
    assertThat(engine.diagnoses(t0, firstHour, List.of())).isEmpty();
    long missesAfterFirst = engine.cache().misses();
    assertThat(engine.cache().bytes()).isPositive();
    assertThat(engine.diagnoses(t0, firstHour, List.of())).isEmpty();
    assertThat(engine.cache().misses()).isEqualTo(missesAfterFirst);
    assertThat(engine.cache().hits()).isPositive();
    // The second hour arrives late (backfill): saturated. The cached chunk must not hide it.
    scrapeVllm("d", "m1", t0 + 240 * STEP, 240, i -> 12, i -> 20, i -> 99, i -> 0.95,
        cumulative);
    assertThat(engine.diagnoses(t0, t0 + 479 * STEP, List.of())).extracting(Diagnosis::cause)
        .containsExactly(Cause.CAPACITY_EXHAUSTED);
  }

  @Test
  void explicitStepsOverTheLimitAreRefusedAndUnnamedStepsAreCoarsenedToFit() throws Exception {
    scrapeVllm("a", "m1", DAY_AGO, 40, i -> 2.5, i -> 0, i -> 50, i -> 0.3,
        new double[LE.length + 3]);
    long year = 365 * 86_400_000L;
    Target first = engine.targets(DAY_AGO, NOW).get(0);
    // A year at the 15 s analysis step is 2.1 M steps: it once ran the heap out of memory.
    assertThatThrownBy(() -> engine.analyze(first, NOW - year, NOW, STEP))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("over the limit of " + DiagnosisEngine.MAX_STEPS)
        .hasMessageContaining("/api/v1/trends");
    // Without a step, the smallest multiple of the analysis step that fits: 6 x 15 s = 90 s.
    assertThat(engine.fitStepMs(year)).isEqualTo(6 * STEP);
    assertThat(engine.fitStepMs(86_400_000L)).isEqualTo(STEP);
    assertThat(engine.fitStepMs(0)).isEqualTo(STEP);
    assertThat(engine.diagnoses(NOW - year, NOW, List.of())).isNotNull();
    assertThat(engine.analyze(first, NOW - year, NOW, 0).frame().steps())
        .isLessThanOrEqualTo(DiagnosisEngine.MAX_STEPS + 1);
    Target t = engine.targets(DAY_AGO, NOW).get(0);
    // The same year at a 1 h step is 8,760 steps: evaluated.
    assertThat(engine.analyze(t, NOW - year, NOW, 3_600_000L).frame().steps()).isPositive();
    // Exactly the limit passes.
    long limit = (long) DiagnosisEngine.MAX_STEPS * STEP;
    assertThat(engine.analyze(t, NOW - limit, NOW, STEP).frame().steps()).isPositive();
  }

  @Test
  void matchSelectorsFilterTargets() throws Exception {
    scrapeVllm("a", "m1", DAY_AGO, 480, i -> i < 240 ? 2.5 : 12, i -> i < 240 ? 0 : 20,
        i -> i < 240 ? 50 : 99, i -> 0.5, new double[LE.length + 3]);
    assertThat(engine.diagnoses(DAY_AGO, DAY_AGO + 480 * STEP,
        List.of(List.of(Matcher.eq("model_name", "other"))))).isEmpty();
    assertThat(engine.diagnoses(DAY_AGO, DAY_AGO + 480 * STEP,
        List.of(List.of(Matcher.re("instance", "a:.*"))))).hasSize(1);
  }

  @Test
  void slowerNewModelOnTheSameInstanceIsAVersionRegression() throws Exception {
    double[] cumulative = new double[LE.length + 3];
    scrapeVllm("b", "m1", DAY_AGO, 240, i -> 3, i -> 0, i -> 50, i -> 0.3, cumulative);
    // The new model restarts the engine: counters start again from zero.
    scrapeVllm("b", "m2", DAY_AGO + 240 * STEP, 240, i -> 5.5, i -> 0, i -> 50, i -> 0.3,
        new double[LE.length + 3]);
    List<Target> targets = engine.targets(DAY_AGO, DAY_AGO + 480 * STEP);
    assertThat(targets).hasSize(2);
    List<Diagnosis> ds = engine.diagnoses(DAY_AGO, DAY_AGO + 480 * STEP, List.of());
    assertThat(ds).as(ds.toString()).extracting(Diagnosis::cause)
        .containsExactly(Cause.VERSION_REGRESSION);
    assertThat(ds.get(0).target()).containsEntry("model_name", "m2");
    assertThat(ds.get(0).summary()).contains("m2").contains("slower");
  }

  @Test
  void healthyDayHasNoDiagnosisAndResolvesThresholdsFromBaselines() throws Exception {
    scrapeVllm("c", "m1", DAY_AGO, 480, i -> 2.5 + 0.2 * Math.sin(i), i -> 0, i -> 50,
        i -> 0.3, new double[LE.length + 3]);
    assertThat(engine.diagnoses(DAY_AGO, DAY_AGO + 480 * STEP, List.of())).isEmpty();
    Target t = engine.targets(DAY_AGO, DAY_AGO + 480 * STEP).get(0);
    DiagnosisEngine.TargetAnalysis a = engine.analyze(t, DAY_AGO + 300 * STEP,
        DAY_AGO + 480 * STEP, 0);
    double[] thr = a.result().thresholds().get(Indicator.E2E_P95);
    double[] base = a.result().baselines().get(Indicator.E2E_P95);
    int last = thr.length - 1;
    assertThat(base[last]).isBetween(2.0, 4.0);
    assertThat(thr[last]).isCloseTo(1.5 * base[last], org.assertj.core.data.Offset.offset(1e-9));
  }

  /** E2E latency of scrape {@code i} of a day: 1.5 to 4 s over the day, with jitter. */
  static double dailyE2e(int i) {
    double phase = 2 * Math.PI * i / 5760.0;
    return 1.5 + 2.5 * (0.5 + 0.5 * Math.sin(phase)) + 0.3 * Math.sin(i * 0.37);
  }

  /**
   * Tolerance of the rollup baseline against the step-wise one, relative: one bucket of
   * {@link BaselineHistogram} (2 % wide), the smallest difference it can show. The P95 of
   * 5-minute values at interval ends is that of a 1-in-20 subsample of the 15 s steps' windows,
   * so it may fall one bucket off; on this data both fall in the same bucket at every step of
   * the range (difference 0).
   */
  static final double BASELINE_TOLERANCE = 0.02;

  @Test
  void baselineFromRollupsMatchesTheBaselineFromRawSamples() throws Exception {
    // 15 days of a daily latency cycle; day 5 saturated all day (7 % of the lookback, so it
    // would lift the P95 if it were not left out); the last 2 hours: one healthy, then 30
    // minutes saturated and 30 healthy.
    long t0 = NOW - 15 * 86_400_000L;
    double[] cumulative = new double[LE.length + 3];
    for (int day = 0; day < 15; day++) {
      boolean bad = day == 5;
      int steps = day == 14 ? 5760 - 480 : 5760;
      scrapeVllm("h", "m1", t0 + day * 86_400_000L, steps, i -> bad ? 12 : dailyE2e(i),
          i -> bad ? 20 : 0, i -> bad ? 99 : 50, i -> bad ? 0.95 : 0.3, cumulative);
    }
    long lastHours = t0 + (15 * 5760 - 480) * STEP;
    scrapeVllm("h", "m1", lastHours, 480, i -> i >= 240 && i < 360 ? 12 : dailyE2e(i),
        i -> i >= 240 && i < 360 ? 20 : 0, i -> i >= 240 && i < 360 ? 99 : 50, i -> 0.3,
        cumulative);
    store.flush(); // finalized windows: their rollups are stored, not computed from raw
    long start = lastHours;
    long end = lastHours + 479 * STEP;
    Target t = engine.targets(start, end).get(0);
    DiagnosisEngine.TargetAnalysis a = engine.analyze(t, start, end, 0);
    assertThat(a.history()).isNotNull();
    assertThat(a.history().stepMs()).isEqualTo(300_000);
    // 14 days of 5-minute points, less the 20-minute lead-in evaluated from raw samples.
    assertThat(a.history().steps()).isBetween(14 * 288 - 6, 14 * 288 - 3);
    assertThat(a.frame().startMs()).isBetween(start - 25 * 60_000L, start - 20 * 60_000L);

    // The same range evaluated the step-wise way over the whole lookback.
    long rawStart = Math.floorDiv(start - CONFIG.baselineLookbackMs(), STEP) * STEP;
    IndicatorFrame raw = new IndicatorEvaluator(CONFIG).evaluate(store, a.signals(), rawStart,
        end, STEP, NOW);
    int reportFrom = (int) ((start - rawStart + STEP - 1) / STEP);
    Diagnoser.Result stepwise = new Diagnoser(CONFIG).diagnose(raw, reportFrom, t.id(),
        t.labels());
    double[] want = stepwise.baselines().get(Indicator.E2E_P95);
    double[] got = a.result().baselines().get(Indicator.E2E_P95);
    int offset = (int) ((a.frame().startMs() - rawStart) / STEP);
    double worst = 0;
    for (int i = a.reportFromStep(); i < got.length; i++) {
      worst = Math.max(worst, Math.abs(got[i] / want[i + offset] - 1));
    }
    // Day 5's 12 s stayed out either way: the P95 is that of the cycle's peaks (up to 4.3 s),
    // interpolated in the (4, 6] bucket; day 5 would read near 14.75, in (10, 15].
    assertThat(want[want.length - 1]).isBetween(4.0, 6.0);
    assertThat(got[got.length - 1]).isBetween(4.0, 6.0);
    assertThat(worst).as("largest relative baseline difference in the range")
        .isLessThan(BASELINE_TOLERANCE);
    System.out.printf(java.util.Locale.ROOT,
        "E2E P95 baseline at the end: rollups %.4f s, raw %.4f s; largest difference %.3f %%%n",
        got[got.length - 1], want[want.length - 1], 100 * worst);

    // The saturated half hour is diagnosed the same: cause, start and end.
    List<Diagnosis> ds = engine.diagnoses(start, end, List.of());
    assertThat(ds).extracting(Diagnosis::cause).containsExactly(Cause.CAPACITY_EXHAUSTED);
    assertThat(stepwise.diagnoses()).extracting(Diagnosis::cause, Diagnosis::startMs,
        Diagnosis::endMs).containsExactly(org.assertj.core.groups.Tuple.tuple(
            ds.get(0).cause(), ds.get(0).startMs(), ds.get(0).endMs()));
    assertThat(ds.get(0).startMs()).isBetween(lastHours + 240 * STEP, lastHours + 260 * STEP);
  }

  @Test
  void cachedRollupHistoryGivesTheSameAnswerAndBackfillInvalidatesIt() throws Exception {
    // Healthy days 4 and 3 before now, nothing on day 2, healthy from a day ago to now.
    double[] cumulative = new double[LE.length + 3];
    scrapeVllm("e", "m1", NOW - 4 * 86_400_000L, 2 * 5760, i -> 2.5, i -> 0, i -> 50,
        i -> 0.3, cumulative);
    scrapeVllm("e", "m1", NOW - 86_400_000L, 5760, i -> 2.5, i -> 0, i -> 50, i -> 0.3,
        cumulative);
    long start = NOW - 3_600_000L;
    Target t = engine.targets(start, NOW).get(0);
    DiagnosisEngine.TargetAnalysis first = engine.analyze(t, start, NOW, 0);
    double[] e2e = first.history().get(Indicator.E2E_P95);
    int hole = (int) ((NOW - 1.5 * 86_400_000L - first.history().startMs()) / 300_000);
    assertThat(e2e[hole]).isNaN();
    long misses = engine.cache().misses();
    DiagnosisEngine.TargetAnalysis again = engine.analyze(t, start, NOW, 0);
    assertThat(engine.cache().misses()).isEqualTo(misses);
    assertThat(again.history().get(Indicator.E2E_P95)).containsExactly(e2e);
    // Day 2 arrives late at 3 s: every 5-minute window of it reads the (2, 4] bucket's P95.
    scrapeVllm("e", "m1", NOW - 2 * 86_400_000L, 5760, i -> 3, i -> 0, i -> 50, i -> 0.3,
        new double[LE.length + 3]);
    DiagnosisEngine.TargetAnalysis after = engine.analyze(t, start, NOW, 0);
    assertThat(engine.cache().misses()).isGreaterThan(misses);
    assertThat(after.history().get(Indicator.E2E_P95)[hole]).isCloseTo(3.9,
        org.assertj.core.data.Offset.offset(1e-9));
    DiagnosisEngine fresh = new DiagnosisEngine(store, SignalCatalog.load(),
        TargetConfig.defaults(), CONFIG, Clock.fixed(Instant.ofEpochMilli(NOW), ZoneOffset.UTC));
    assertThat(after.history().get(Indicator.E2E_P95)).containsExactly(
        fresh.analyze(t, start, NOW, 0).history().get(Indicator.E2E_P95));
  }
}
