package io.inferlens.analysis.diagnose;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.analysis.catalog.MetricSource;
import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.catalog.SourceKind;
import io.inferlens.analysis.promql.HistogramQuantile;
import io.inferlens.analysis.target.ResolvedSignal;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Resolution;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.StoreOptions;
import io.inferlens.storage.TimeSeriesStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Indicators per rollup interval against hand-computed values: a latency histogram with a
 * counter reset between intervals, a counter rate and a gauge mean, from a real store whose
 * windows are finalized (stored rollups) and from one whose samples are still in the head
 * (rollups computed from raw): both must give the same values. Also over windows of two intervals
 * and with gauges read as their last value, as the baseline history reads them.
 */
class RollupEvaluatorTest {

  private static final long T0 = 1_700_006_400_000L; // a multiple of 2 h
  private static final long STEP = 15_000;
  private static final String[] LE = {"0.5", "1", "+Inf"};

  @TempDir Path dir;

  /** Cumulative count of bucket b at scrape i: per scrape +2 under 0.5 s, +1 in (0.5, 1], +1 above. */
  private static double bucket(int b, int i) {
    int n = i < 40 ? i : i - 40; // the engine restarted at scrape 40 (counters reset)
    return switch (b) {
      case 0 -> 2.0 * n;
      case 1 -> 3.0 * n;
      default -> 4.0 * n;
    };
  }

  private static List<SeriesWrite> samples(int scrapes) {
    List<SeriesWrite> w = new ArrayList<>();
    for (int b = 0; b < LE.length; b++) {
      long[] ts = new long[scrapes];
      long[] vs = new long[scrapes];
      for (int i = 0; i < scrapes; i++) {
        ts[i] = T0 + i * STEP;
        vs[i] = Double.doubleToRawLongBits(bucket(b, i));
      }
      w.add(new SeriesWrite(LabelSet.of("__name__", "lat_seconds_bucket", "job", "x", "le", LE[b]),
          ts, vs, scrapes));
    }
    long[] ts = new long[scrapes];
    long[] g = new long[scrapes];
    for (int i = 0; i < scrapes; i++) {
      ts[i] = T0 + i * STEP;
      g[i] = Double.doubleToRawLongBits(i % 2 == 0 ? 4 : 6);
    }
    w.add(new SeriesWrite(LabelSet.of("__name__", "waiting", "job", "x"), ts, g, scrapes));
    return w;
  }

  @Test
  void latencyQuantileRateAndGaugeMeanPerInterval() throws Exception {
    for (boolean finalized : new boolean[] {true, false}) {
      Path d = dir.resolve(Boolean.toString(finalized));
      Clock clock = Clock.fixed(Instant.ofEpochMilli(T0 + 3_600_000), ZoneOffset.UTC);
      try (TimeSeriesStore store = TimeSeriesStore.open(StoreOptions.defaults(d), clock)) {
        store.append(samples(80)); // 20 minutes: intervals 0..3
        if (finalized) {
          store.flush();
        }
        RollupEvaluator ev = new RollupEvaluator(store);
        List<Matcher> scope = List.of(Matcher.eq("job", "x"));
        ResolvedSignal e2e = new ResolvedSignal(Signal.E2E,
            MetricSource.of("lat_seconds", SourceKind.HISTOGRAM, "vllm"), scope);
        RollupEvaluator.IntervalValues p95 = ev.evaluate(e2e, Indicator.E2E_P95, T0,
            T0 + 20 * 60_000 - 1, Resolution.FIVE_MINUTES);
        assertThat(p95.startsMs()).containsExactly(T0, T0 + 300_000, T0 + 600_000, T0 + 900_000);
        // Every interval: 2 of 4 observations per scrape under 0.5 s, 3 of 4 under 1 s.
        double want = HistogramQuantile.quantile(0.95, List.of(
            new HistogramQuantile.Bucket(0.5, 2), new HistogramQuantile.Bucket(1, 3),
            new HistogramQuantile.Bucket(Double.POSITIVE_INFINITY, 4)));
        assertThat(p95.values()).as("finalized " + finalized).containsOnly(want);

        ResolvedSignal waiting = new ResolvedSignal(Signal.WAITING,
            MetricSource.of("waiting", SourceKind.GAUGE, "vllm"), scope);
        RollupEvaluator.IntervalValues w = ev.evaluate(waiting, Indicator.WAITING, T0,
            T0 + 20 * 60_000 - 1, Resolution.FIVE_MINUTES);
        assertThat(w.values()).containsOnly(5.0);

        ResolvedSignal rate = new ResolvedSignal(Signal.REQUEST_RATE,
            MetricSource.of("lat_seconds_bucket", SourceKind.COUNTER, "vllm"),
            List.of(Matcher.eq("le", "+Inf")));
        RollupEvaluator.IntervalValues r = ev.evaluate(rate, Indicator.REQUEST_RATE, T0,
            T0 + 20 * 60_000 - 1, Resolution.FIVE_MINUTES);
        // +4 per 15 s scrape; the first interval lacks the step in from before T0, and at the
        // reset (scrape 40, first of interval 2) the counter restarts at 0, which adds 0, as
        // PromQL's increase counts a reset.
        assertThat(r.values()[0]).isEqualTo(19 * 4 / 300.0);
        assertThat(r.values()[1]).isEqualTo(20 * 4 / 300.0);
        assertThat(r.values()[2]).isEqualTo(19 * 4 / 300.0);
        assertThat(r.values()[3]).isEqualTo(20 * 4 / 300.0);
      }
    }
  }

  @Test
  void twoIntervalWindowsAndLastGaugeValues() throws Exception {
    Clock clock = Clock.fixed(Instant.ofEpochMilli(T0 + 3_600_000), ZoneOffset.UTC);
    try (TimeSeriesStore store = TimeSeriesStore.open(StoreOptions.defaults(dir), clock)) {
      store.append(samples(80));
      store.flush();
      RollupEvaluator ev = new RollupEvaluator(store);
      List<Matcher> scope = List.of(Matcher.eq("job", "x"));
      long end = T0 + 20 * 60_000 - 1;
      ResolvedSignal rate = new ResolvedSignal(Signal.REQUEST_RATE,
          MetricSource.of("lat_seconds_bucket", SourceKind.COUNTER, "vllm"),
          List.of(Matcher.eq("le", "+Inf")));
      RollupEvaluator.IntervalValues r = ev.evaluate(rate, Indicator.REQUEST_RATE, T0, end,
          Resolution.FIVE_MINUTES, 2, RollupEvaluator.GaugeReading.MEAN);
      assertThat(r.startsMs()).containsExactly(T0, T0 + 300_000, T0 + 600_000, T0 + 900_000);
      // Rate over the interval and the one before it (none before T0), per second of 10 min;
      // per-interval increases 76, 80, 76 (reset), 80 as in the test above.
      assertThat(r.values()).containsExactly(76 / 600.0, (76 + 80) / 600.0, (80 + 76) / 600.0,
          (76 + 80) / 600.0);

      ResolvedSignal e2e = new ResolvedSignal(Signal.E2E,
          MetricSource.of("lat_seconds", SourceKind.HISTOGRAM, "vllm"), scope);
      RollupEvaluator.IntervalValues p50 = ev.evaluate(e2e, Indicator.E2E_P50, T0, end,
          Resolution.FIVE_MINUTES, 2, RollupEvaluator.GaugeReading.MEAN);
      // Interval 1's window: the rises of 19 + 20 scrapes (2, 3 and 4 per scrape, cumulative)
      // summed, 78, 117 and 156; the median's rank 78 is the 0.5 bucket's count: its bound.
      double want = HistogramQuantile.quantile(0.5, List.of(
          new HistogramQuantile.Bucket(0.5, 78), new HistogramQuantile.Bucket(1, 117),
          new HistogramQuantile.Bucket(Double.POSITIVE_INFINITY, 156)));
      assertThat(want).isEqualTo(0.5);
      assertThat(p50.values()[1]).isEqualTo(want);

      ResolvedSignal waiting = new ResolvedSignal(Signal.WAITING,
          MetricSource.of("waiting", SourceKind.GAUGE, "vllm"), scope);
      // 4 and 6 alternate; each interval's 20th (last) scrape has an odd index: 6.
      assertThat(ev.evaluate(waiting, Indicator.WAITING, T0, end, Resolution.FIVE_MINUTES, 1,
          RollupEvaluator.GaugeReading.LAST).values()).containsExactly(6.0, 6.0, 6.0, 6.0);
      assertThat(ev.evaluate(waiting, Indicator.WAITING, T0, end, Resolution.FIVE_MINUTES, 1,
          RollupEvaluator.GaugeReading.MEAN).values()).containsExactly(5.0, 5.0, 5.0, 5.0);
    }
  }
}
