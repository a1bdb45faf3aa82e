package io.inferlens.analysis.bench;

import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.diagnose.Indicator;
import io.inferlens.analysis.diagnose.RollupEvaluator;
import io.inferlens.analysis.target.Target;
import io.inferlens.analysis.target.TargetConfig;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Resolution;
import io.inferlens.storage.RollupColumn;
import io.inferlens.storage.RollupSeries;
import io.inferlens.storage.Series;
import io.inferlens.storage.StoreOptions;
import io.inferlens.storage.TimeSeriesStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The store's two long-range reads over 30 days of one vLLM V1 + DCGM target ({@link BenchData},
 * 145 series, 15 s scrapes, about 25 M samples, head flushed and every window finalized):
 * {@code rawSeries30Days} reads one gauge's 172,801 raw samples (chunks of 30 day partitions);
 * {@code trend30Days} evaluates E2E, TTFT and TPOT P95 per rollup interval (1 h for 30 days), which
 * is what {@code GET /api/v1/trends} does (signal resolution included);
 * {@code bucketRollups30Days} reads one histogram's 5-minute bucket rollups.
 *
 * <p>Run with {@code scripts/jmh.sh analysis QueryBenchmark} (data generation takes minutes).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class QueryBenchmark {

  static final long NOW_MS = DiagnoseBenchmark.NOW_MS;
  static final long DAY_MS = 86_400_000L;

  /** One target, 30 days, in a temporary store deleted at tear-down. */
  @State(Scope.Benchmark)
  public static class Data {
    Path dir;
    TimeSeriesStore store;
    DiagnosisEngine engine;
    Target target;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      dir = Files.createTempDirectory("inferlens-query-bench-");
      Clock clock = Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC);
      store = TimeSeriesStore.open(StoreOptions.defaults(dir).withRetentionMs(45 * DAY_MS), clock);
      BenchData.Stats stats = BenchData.write(store,
          List.of(new BenchData(0, DiagnoseBenchmark.SEED, DiagnoseBenchmark.DEGRADED)),
          NOW_MS - 30 * DAY_MS, NOW_MS);
      store.compact();
      System.out.printf("%n[query] generated %s; %,d bytes on disk, by kind %s%n", stats,
          store.diskSizeBytes(), store.bytesByKind());
      engine = new DiagnosisEngine(store, SignalCatalog.load(), TargetConfig.defaults(),
          AnalysisConfig.defaults(), clock);
      target = engine.targets(NOW_MS - 30 * DAY_MS, NOW_MS).get(0);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      if (store != null) {
        store.close();
      }
      try (Stream<Path> s = Files.walk(dir)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /**
   * @return the series, 172,801 samples
   */
  @Benchmark
  public List<Series> rawSeries30Days(Data d) throws Exception {
    List<Series> s = d.store.select(List.of(Matcher.eq("__name__", "vllm:num_requests_waiting")),
        NOW_MS - 30 * DAY_MS, NOW_MS);
    if (s.size() != 1 || s.get(0).size() < 30 * 5760) {
      throw new IllegalStateException("expected one series of 30 days, got " + s.size());
    }
    return s;
  }

  /**
   * @return the 5-minute rollups (first, last, increase) of one histogram's buckets over 30 days,
   *     the store's part of one latency indicator of {@link #trend30Days}
   */
  @Benchmark
  public List<RollupSeries> bucketRollups30Days(Data d) throws Exception {
    return d.store.selectRollups(
        List.of(Matcher.eq("__name__", "vllm:e2e_request_latency_seconds_bucket")),
        NOW_MS - 30 * DAY_MS, NOW_MS, Resolution.FIVE_MINUTES,
        EnumSet.of(RollupColumn.FIRST, RollupColumn.LAST, RollupColumn.INCREASE));
  }

  /**
   * @return three indicators per hour over 30 days
   */
  @Benchmark
  public Map<Indicator, RollupEvaluator.IntervalValues> trend30Days(Data d) throws Exception {
    Map<Indicator, RollupEvaluator.IntervalValues> v = d.engine.trend(d.target,
        List.of(Indicator.E2E_P95, Indicator.TTFT_P95, Indicator.TPOT_P95),
        NOW_MS - 30 * DAY_MS, NOW_MS, DiagnosisEngine.trendResolution(30 * DAY_MS));
    if (v.get(Indicator.E2E_P95).startsMs().length < 30 * 23) {
      throw new IllegalStateException("expected 30 days of 5-minute values, got "
          + v.get(Indicator.E2E_P95).startsMs().length);
    }
    return v;
  }
}
