package io.inferlens.analysis.incident;

import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.ChainLayer;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.diagnose.Evidence;
import io.inferlens.analysis.target.TargetConfig;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.StoreOptions;
import io.inferlens.storage.TimeSeriesStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
 * The always-on path's two costs.
 *
 * <ul>
 *   <li>{@code diagnoses500x30d}: {@link DiagnosisHistory#diagnoses} for 500 targets over 30
 *       days from a journal of 30,000 incidents (two per target per day, evidence on every
 *       layer), every target covered, their heartbeat series in the store so the targets are
 *       discovered: what {@code GET /api/v1/diagnoses} costs before JSON.
 *   <li>{@code evaluatorCycle500}: one {@link IncidentEvaluator#evaluate()} of 500 vLLM targets
 *       (18 series each, 15 s scrapes, 2 h of history) after 15 s of new samples were written
 *       (the write is set-up, not measured): divide by 15 s for the evaluator's share of a core.
 *   <li>{@code evaluatorCycle500WhileIngesting}: the same while another thread appends
 *       {@value #INGEST_SERIES} other series once a second ({@value #INGEST_SERIES} samples/s, a
 *       large fleet's remote write), so the cycle competes with ingest for the cores, the head
 *       and RocksDB. Its wall time over 15 s bounds the evaluator's share of a core under load.
 * </ul>
 *
 * <p>Run with {@code scripts/jmh.sh analysis IncidentBenchmark} (docs/BENCHMARKS.md).
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx2g"})
@Warmup(iterations = 10)
@Measurement(iterations = 20)
public class IncidentBenchmark {

  static final long NOW = 1_790_000_000_000L / 3_600_000L * 3_600_000L;
  static final long DAY = 86_400_000L;
  static final int TARGETS = 500;

  static Path tempDir(String name) throws Exception {
    return Files.createTempDirectory("inferlens-bench-" + name + "-");
  }

  static void delete(Path dir) throws Exception {
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }

  /** A journal of 30 days of incidents of 500 targets. */
  @State(Scope.Benchmark)
  public static class Journal {
    Path dir;
    TimeSeriesStore store;
    DiagnosisHistory history;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      dir = tempDir("journal");
      MutableClock clock = new MutableClock(NOW);
      store = TimeSeriesStore.open(StoreOptions.defaults(dir), clock);
      DiagnosisEngine engine = new DiagnosisEngine(store, SignalCatalog.load(),
          TargetConfig.defaults(), AnalysisConfig.defaults(), clock);
      IncidentJournal journal = IncidentJournal.open(store.journal());
      Map<String, long[]> cover = new HashMap<>();
      for (int t = 0; t < TARGETS; t++) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("job", "vllm");
        labels.put("instance", "host" + t + ":8000");
        labels.put("model_name", "m" + (t % 7));
        String id = new io.inferlens.analysis.target.Target(labels).id();
        cover.put(id, new long[] {NOW - 31 * DAY, NOW});
        // The engine's heartbeat, hourly: target discovery (which reads series, not samples)
        // finds all 500, as it would in a store holding their 30 days.
        long[] ts = new long[30 * 24];
        long[] bits = new long[ts.length];
        for (int i = 0; i < ts.length; i++) {
          ts[i] = NOW - 30 * DAY + (i + 1) * 3_600_000L;
        }
        if (store.append(List.of(new SeriesWrite(LabelSet.of(
            "__name__", "vllm:num_requests_waiting", "job", "vllm", "instance",
            "host" + t + ":8000", "model_name", "m" + (t % 7), "engine", "0"), ts, bits,
            ts.length))).rejectedCount() != 0) {
          throw new IllegalStateException("heartbeat samples rejected");
        }
        for (int d = 0; d < 60; d++) {
          long start = NOW - 30 * DAY + d * (DAY / 2) + t * 1000L;
          Evidence e = new Evidence("e2e_p95", 12, 4.5, 3.0, "s", "5m", 10, 14, "q", "baseline");
          Evidence w = new Evidence("waiting", 20, null, null, "requests", "instant", 15, 25,
              "q", null);
          Diagnosis diag = new Diagnosis(id + "/capacity_exhausted/" + start,
              Cause.CAPACITY_EXHAUSTED, "critical", labels, start, start + 1_800_000L,
              "Capacity exhausted: queue at 15–25 waiting, GPU 99%, E2E P95 12.0 s vs threshold"
                  + " 4.5 s for 30m; lower --max-num-seqs.",
              List.of(new ChainLayer("latency", "breached", List.of(e)),
                  new ChainLayer("queue", "saturated", List.of(w)),
                  new ChainLayer("resource", "saturated", List.of())),
              Cause.CAPACITY_EXHAUSTED.recommendations(), false);
          journal.record(diag, start + 1_800_000L);
        }
      }
      journal.setCoverage(cover);
      // As the server builds it: targets with samples in the last 15 minutes are left to the
      // evaluator, which costs a target discovery per request.
      history = new DiagnosisHistory(engine, journal, () -> NOW - 15 * 60_000L);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      store.close();
      delete(dir);
    }
  }

  /** 500 live targets and an evaluator that has caught up with them. */
  @State(Scope.Benchmark)
  public static class Live {
    Path dir;
    TimeSeriesStore store;
    IncidentEvaluator evaluator;
    MutableClock clock;
    final List<SimulatedEngine> engines = new ArrayList<>();

    @Setup(Level.Trial)
    public void setUp() throws Exception {
      dir = tempDir("live");
      clock = new MutableClock(NOW);
      store = TimeSeriesStore.open(StoreOptions.defaults(dir), clock);
      DiagnosisEngine engine = new DiagnosisEngine(store, SignalCatalog.load(),
          TargetConfig.defaults(), AnalysisConfig.defaults(), clock);
      evaluator = new IncidentEvaluator(engine, store, IncidentJournal.open(store.journal()),
          clock, null);
      for (int t = 0; t < TARGETS; t++) {
        SimulatedEngine e = new SimulatedEngine("host" + t, "m" + (t % 7));
        e.write(store, NOW - 2 * 3_600_000L, NOW);
        engines.add(e);
      }
      evaluator.evaluate(); // bootstrap every target
    }

    /** 15 s of new scrapes of every target, then the clock moves on. */
    @Setup(Level.Invocation)
    public void newSamples() throws Exception {
      long from = clock.ms;
      for (SimulatedEngine e : engines) {
        e.write(store, from, from + 15_000);
      }
      clock.ms = from + 15_000;
    }

    /** Called before the store closes (stops {@link LiveIngesting}'s writer). */
    void beforeClose() throws Exception {}

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
      beforeClose();
      store.close();
      delete(dir);
    }
  }

  /** Samples per second the background writer of {@link LiveIngesting} appends. */
  static final int INGEST_SERIES = 100_000;

  /** {@link Live} with a background writer appending {@value #INGEST_SERIES} samples/s. */
  @State(Scope.Benchmark)
  public static class LiveIngesting extends Live {
    Thread writer;
    volatile boolean stop;
    volatile long written;
    long startedNs;

    @Setup(Level.Trial)
    public void startWriter() {
      List<io.inferlens.storage.LabelSet> series = new ArrayList<>();
      for (int i = 0; i < INGEST_SERIES; i++) {
        series.add(io.inferlens.storage.LabelSet.of("__name__", "node_cpu_seconds_total", "job",
            "node", "instance", "node" + (i / 100) + ":9100", "cpu", Integer.toString(i % 100)));
      }
      writer = new Thread(() -> {
        long last = 0;
        double v = 0;
        while (!stop) {
          long t0 = System.nanoTime();
          long ts = Math.max(last + 1000, clock.ms);
          last = ts;
          v += 1;
          List<io.inferlens.storage.SeriesWrite> batch = new ArrayList<>();
          try {
            for (io.inferlens.storage.LabelSet l : series) {
              batch.add(new io.inferlens.storage.SeriesWrite(l, new long[] {ts},
                  new long[] {Double.doubleToRawLongBits(v)}, 1));
              if (batch.size() == 5_000) {
                store.append(batch);
                written += batch.size();
                batch = new ArrayList<>();
              }
            }
            Thread.sleep(Math.max(0, 1000 - (System.nanoTime() - t0) / 1_000_000));
          } catch (InterruptedException e) {
            return;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }
      }, "bench-writer");
      writer.setDaemon(true);
      startedNs = System.nanoTime();
      writer.start();
    }

    @Override
    void beforeClose() throws Exception {
      stop = true;
      writer.interrupt();
      writer.join(10_000);
      System.out.printf("%nbackground writer: %d samples in %.1f s = %.0f samples/s%n", written,
          (System.nanoTime() - startedNs) / 1e9,
          written / ((System.nanoTime() - startedNs) / 1e9));
    }
  }

  /** @return steps evaluated in one cycle of 500 targets while another thread ingests */
  @Benchmark
  public long evaluatorCycle500WhileIngesting(LiveIngesting l) throws Exception {
    return l.evaluator.evaluate().steps();
  }

  /** @return the diagnoses of 500 targets over 30 days, from the journal */
  @Benchmark
  public int diagnoses500x30d(Journal j) throws Exception {
    return j.history.diagnoses(NOW - 30 * DAY, NOW, List.of()).size();
  }

  /** @return steps evaluated in one cycle of 500 targets */
  @Benchmark
  public long evaluatorCycle500(Live l) throws Exception {
    return l.evaluator.evaluate().steps();
  }
}
