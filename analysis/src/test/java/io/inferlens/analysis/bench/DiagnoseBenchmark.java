package io.inferlens.analysis.bench;

import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.target.TargetConfig;
import io.inferlens.storage.StoreOptions;
import io.inferlens.storage.TimeSeriesStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
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
 * {@link DiagnosisEngine#diagnoses} over stored vLLM V1 + DCGM data ({@link BenchData}, 145 series
 * per target, 15 s scrapes): one target over 30 days, 100 targets over 1 day, and one target over
 * its last day with the 14 days of baseline history before it stored too. Each state
 * generates its data once per fork into a temporary RocksDB store (deleted at tear-down), with a
 * 2-hour degraded period 6 h before "now" that every call must diagnose. The plain benchmarks reuse
 * one engine (after set-up's first call, its cache of evaluated chunks is warm); the
 * {@code ...Cold} ones build a new engine per call.
 *
 * <p>Heavy: single-shot calls, 1 fork. Run with {@code scripts/jmh.sh analysis DiagnoseBenchmark}
 * (data generation takes minutes; see docs/BENCHMARKS.md).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
@Warmup(iterations = 3)
@Measurement(iterations = 5)
public class DiagnoseBenchmark {

  /** The fixed present: 2026-11-01T00:00:00Z. */
  static final long NOW_MS = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();
  static final long DAY_MS = 86_400_000L;
  static final long SEED = 42;
  /** Degraded 6 h to 4 h before now (inside both ranges). */
  static final BenchData.Degraded DEGRADED =
      new BenchData.Degraded(NOW_MS - 6 * 3_600_000L, NOW_MS - 4 * 3_600_000L);

  /** A store with generated data and an engine over it. */
  abstract static class Data {
    Path dir;
    TimeSeriesStore store;
    DiagnosisEngine engine;
    Clock clock;

    void open(String name, int targets, long days) throws Exception {
      try {
        generate(name, targets, days);
      } catch (Exception | Error e) {
        close(); // JMH skips the trial tear-down when set-up fails
        throw e;
      }
    }

    private void generate(String name, int targets, long days) throws Exception {
      dir = Files.createTempDirectory("inferlens-bench-" + name + "-");
      clock = Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC);
      StoreOptions options = StoreOptions.defaults(dir).withRetentionMs(45 * DAY_MS);
      store = TimeSeriesStore.open(options, clock);
      List<BenchData> gens = new ArrayList<>();
      for (int i = 0; i < targets; i++) {
        gens.add(new BenchData(i, SEED, DEGRADED));
      }
      // First scrape on the 15 s grid so the range [now - days, now] holds days × 5,760 + 1.
      BenchData.Stats stats = BenchData.write(store, gens, NOW_MS - days * DAY_MS, NOW_MS);
      store.flush();
      System.out.println();
      System.out.println("[" + name + "] generated " + stats);
      System.out.printf("[%s] store: %d series, ~%,d samples (estimate), %,d bytes on disk%n", name,
          store.seriesCount(), store.sampleCountEstimate(), store.diskSizeBytes());
      engine = new DiagnosisEngine(store, SignalCatalog.load(), TargetConfig.defaults(),
          AnalysisConfig.defaults(), clock);
      List<Diagnosis> d = diagnose(days);
      check(d, targets);
      System.out.printf("[%s] %d diagnoses, e.g. %s%n", name, d.size(),
          d.isEmpty() ? "-" : d.get(0).cause() + ": " + d.get(0).summary());
    }

    List<Diagnosis> diagnose(long days) throws Exception {
      return engine.diagnoses(NOW_MS - days * DAY_MS, NOW_MS, List.of());
    }

    /**
     * A call on a new engine, so nothing evaluated by earlier calls is reused (the engine caches
     * evaluated chunks since commit 3eae137). Each new engine adds an append listener to the store;
     * harmless here since nothing is appended after set-up.
     */
    List<Diagnosis> diagnoseCold(long days) throws Exception {
      DiagnosisEngine fresh = new DiagnosisEngine(store, SignalCatalog.load(),
          TargetConfig.defaults(), AnalysisConfig.defaults(), clock);
      return fresh.diagnoses(NOW_MS - days * DAY_MS, NOW_MS, List.of());
    }

    /** Every target was degraded: each must have a diagnosis overlapping the degraded period. */
    static void check(List<Diagnosis> diagnoses, int targets) {
      long hit = diagnoses.stream()
          .filter(x -> x.startMs() < DEGRADED.toMs()
              && (x.endMs() == null || x.endMs() >= DEGRADED.fromMs()))
          .map(x -> x.target().get("instance"))
          .distinct().count();
      if (hit < targets) {
        throw new IllegalStateException("expected diagnoses of the degraded period for " + targets
            + " targets, got " + hit + ": " + diagnoses);
      }
    }

    void close() throws IOException {
      if (store != null) {
        store.close();
      }
      if (dir != null) {
        try (Stream<Path> s = Files.walk(dir)) {
          for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
      }
    }
  }

  /** One target, 30 days. */
  @State(Scope.Benchmark)
  public static class OneTarget30Days extends Data {
    @Setup(Level.Trial)
    public void setUp() throws Exception {
      open("oneTarget30Days", 1, 30);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      close();
    }
  }

  /** One target, 15 days: a 1-day range and the 14-day baseline lookback before it. */
  @State(Scope.Benchmark)
  public static class OneTarget15Days extends Data {
    @Setup(Level.Trial)
    public void setUp() throws Exception {
      open("oneTarget15Days", 1, 15);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      close();
    }
  }

  /** 100 targets, 1 day. */
  @State(Scope.Benchmark)
  public static class HundredTargets1Day extends Data {
    @Setup(Level.Trial)
    public void setUp() throws Exception {
      open("hundredTargets1Day", 100, 1);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws IOException {
      close();
    }
  }

  /**
   * @return the diagnoses, checked
   */
  @Benchmark
  public List<Diagnosis> oneTarget30Days(OneTarget30Days s) throws Exception {
    List<Diagnosis> d = s.diagnose(30);
    Data.check(d, 1);
    return d;
  }

  /**
   * @return the diagnoses of a new engine (no evaluated chunks cached), checked
   */
  @Benchmark
  public List<Diagnosis> oneTarget30DaysCold(OneTarget30Days s) throws Exception {
    List<Diagnosis> d = s.diagnoseCold(30);
    Data.check(d, 1);
    return d;
  }

  /**
   * @return the diagnoses of a new engine (no evaluated chunks cached), checked
   */
  @Benchmark
  public List<Diagnosis> hundredTargets1DayCold(HundredTargets1Day s) throws Exception {
    List<Diagnosis> d = s.diagnoseCold(1);
    Data.check(d, 100);
    return d;
  }

  /**
   * @return the diagnoses, checked
   */
  @Benchmark
  public List<Diagnosis> hundredTargets1Day(HundredTargets1Day s) throws Exception {
    List<Diagnosis> d = s.diagnose(1);
    Data.check(d, 100);
    return d;
  }

  /**
   * The last day of a target with 14 days of history before it: what the baseline lookback costs
   * on top of the day itself.
   *
   * @return the diagnoses, checked
   */
  @Benchmark
  public List<Diagnosis> oneDayAfter14DaysHistory(OneTarget15Days s) throws Exception {
    List<Diagnosis> d = s.diagnose(1);
    Data.check(d, 1);
    return d;
  }

  /**
   * As {@link #oneDayAfter14DaysHistory} on a new engine (no evaluated chunks cached).
   *
   * @return the diagnoses, checked
   */
  @Benchmark
  public List<Diagnosis> oneDayAfter14DaysHistoryCold(OneTarget15Days s) throws Exception {
    List<Diagnosis> d = s.diagnoseCold(1);
    Data.check(d, 1);
    return d;
  }
}
