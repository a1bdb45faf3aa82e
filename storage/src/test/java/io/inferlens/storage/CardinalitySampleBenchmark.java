package io.inferlens.storage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The cost of one cardinality sample ({@link TimeSeriesStore#metricCardinality}, taken once a
 * minute by the cardinality watch) on 100,000 active series: 400 vLLM-like targets (job,
 * instance, model_name) of 200 series in 20 metrics of 10 series each (labels {@code le},
 * {@code route}), plus a label bomb of 20,000 {@code user_id} series of one metric on one target.
 *
 * <p>Run: {@code scripts/jmh.sh storage -f 1 -wi 3 -i 5 -w 2s -r 2s CardinalitySampleBenchmark}.
 * Scores are ms per sample.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class CardinalitySampleBenchmark {

  static final long NOW_MS = 1_700_000_000_000L;
  static final List<String> TARGETS = List.of("job", "instance", "model_name");

  private Path dir;
  private TimeSeriesStore store;

  /** Opens a store in a temporary directory and makes 100,000 series active. */
  @Setup
  public void setUp() throws Exception {
    dir = Files.createTempDirectory("cardinality-bench");
    store = TimeSeriesStore.open(StoreOptions.defaults(dir),
        Clock.fixed(Instant.ofEpochMilli(NOW_MS), ZoneOffset.UTC));
    long t = NOW_MS - 1_000;
    for (int target = 0; target < 400; target++) {
      List<SeriesWrite> w = new ArrayList<>();
      for (int m = 0; m < 20; m++) {
        for (int s = 0; s < 10; s++) {
          w.add(write(t, "__name__", "vllm:metric_" + m + "_bucket", "job", "vllm",
              "instance", "gpu-" + target + ":8000", "model_name", "llama-" + (target % 4),
              "le", Integer.toString(s), "route", "/v1/chat"));
        }
      }
      store.append(w);
    }
    List<SeriesWrite> bomb = new ArrayList<>();
    for (int u = 0; u < 20_000; u++) {
      bomb.add(write(t, "__name__", "chat_requests_total", "job", "chat-api", "instance",
          "api-1:8080", "route", "/v1/chat", "user_id", "u" + u));
    }
    store.append(bomb);
    if (store.activeSeriesCount() != 100_000) {
      throw new IllegalStateException("expected 100,000 active series, got "
          + store.activeSeriesCount());
    }
  }

  private static SeriesWrite write(long t, String... kv) {
    return new SeriesWrite(LabelSet.of(kv), new long[] {t},
        new long[] {Double.doubleToRawLongBits(1)}, 1);
  }

  /** Closes the store and deletes its directory. */
  @TearDown
  public void tearDown() throws Exception {
    store.close();
    try (var paths = Files.walk(dir)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  /** @return the sample, so the work is not eliminated */
  @Benchmark
  public List<MetricCardinality> sample() throws StorageException {
    return store.metricCardinality(TARGETS, 10_000);
  }
}
