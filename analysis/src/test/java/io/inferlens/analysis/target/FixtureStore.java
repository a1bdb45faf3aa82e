package io.inferlens.analysis.target;

import io.inferlens.analysis.catalog.ExpositionParser;
import io.inferlens.analysis.catalog.ExpositionParser.Sample;
import io.inferlens.analysis.catalog.ExpositionParser.Type;
import io.inferlens.storage.AppendResult;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.StoreOptions;
import io.inferlens.storage.TimeSeriesStore;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Test helper: opens a real RocksDB store and ingests the fixture files as a Prometheus
 * server would scrape them — several scrapes {@link #SCRAPE_INTERVAL_MS} apart, {@code job} and
 * {@code instance} target labels added (an exposed {@code job}/{@code instance} becomes
 * {@code exported_job}/{@code exported_instance}, honor_labels=false), counters and histogram
 * series growing by a deterministic amount per scrape, gauges dipping by up to 4 %.
 */
public final class FixtureStore {

  /** First scrape time: 2026-01-08T00:00:00Z, in milliseconds. */
  public static final long T0_MS = 1_767_830_400_000L;
  /** Prometheus' default scrape interval used here: 15 s. */
  static final long SCRAPE_INTERVAL_MS = 15_000;
  /** Scrapes per ingest. */
  static final int SCRAPES = 5;
  /** A range covering every ingest of the tests (two hours from T0). */
  static final long END_MS = T0_MS + 2 * 3_600_000L;

  private FixtureStore() {}

  /**
   * @param dir an empty directory
   * @return a store whose retention check runs at {@link #END_MS}
   * @throws StorageException if RocksDB cannot open
   */
  static TimeSeriesStore open(Path dir) throws StorageException {
    return TimeSeriesStore.open(StoreOptions.defaults(dir),
        Clock.fixed(Instant.ofEpochMilli(END_MS), ZoneOffset.UTC));
  }

  /**
   * A fixture file's text, from the test classpath: the files of {@code fixtures/} at the
   * repository root (see {@code fixtures/README.md}), which the parent {@code pom.xml} puts on every
   * module's test classpath under {@code fixtures/}.
   *
   * @param file a file name such as {@code vllm-0.13-v1.prom}
   * @return its text
   */
  static String read(String file) {
    String resource = "/fixtures/" + file;
    try (InputStream in = FixtureStore.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("fixture " + resource + " is not on the test classpath"
            + " (fixtures/ at the repository root, added as a test resource by the parent pom.xml)");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("reading fixture " + resource, e);
    }
  }

  /** Ingests a fixture file with the given target labels, starting at {@link #T0_MS}. */
  static void ingest(TimeSeriesStore store, String file, String job, String instance)
      throws StorageException {
    ingest(store, file, job, instance, T0_MS, UnaryOperator.identity());
  }

  /**
   * Ingests {@link #SCRAPES} scrapes of a fixture file.
   *
   * @param store the store
   * @param file a fixture file name (see {@link #read(String)})
   * @param job the {@code job} label
   * @param instance the {@code instance} label
   * @param t0Ms time of the first scrape, milliseconds
   * @param relabel applied to each sample's labels (with job and instance) before storing
   */
  public static void ingest(TimeSeriesStore store, String file, String job, String instance, long t0Ms,
      UnaryOperator<Map<String, String>> relabel) throws StorageException {
    String text = read(file);
    List<Sample> samples = ExpositionParser.parse(text);
    List<SeriesWrite> writes = new ArrayList<>();
    for (Sample s : samples) {
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put(LabelSet.METRIC_NAME, s.name());
      s.labels().forEach((k, v) -> labels.put(k.equals("job") || k.equals("instance") ? "exported_" + k : k, v));
      labels.put("job", job);
      labels.put("instance", instance);
      Map<String, String> finalLabels = relabel.apply(labels);
      long[] ts = new long[SCRAPES];
      long[] bits = new long[SCRAPES];
      for (int k = 0; k < SCRAPES; k++) {
        ts[k] = t0Ms + k * SCRAPE_INTERVAL_MS;
        bits[k] = Double.doubleToRawLongBits(valueAt(s, k));
      }
      writes.add(new SeriesWrite(
          LabelSet.of(new ArrayList<>(finalLabels.keySet()), new ArrayList<>(finalLabels.values())),
          ts, bits, SCRAPES));
    }
    AppendResult r = store.append(writes);
    if (r.rejectedCount() != 0) {
      throw new IllegalStateException("fixture " + file + ": rejected " + r.rejections());
    }
  }

  /**
   * The value of a sample at scrape {@code k}: counters, histogram series and summary
   * {@code _sum}/{@code _count} grow by 1 % plus 1 per scrape (keeps buckets cumulative), other
   * values — gauges, {@code _created}, non-finite and negative values (Kafka lag -1) — follow
   * a dip of up to 4 % or stay as they are.
   */
  static double valueAt(Sample s, int k) {
    double v = s.value();
    if (!Double.isFinite(v) || s.name().endsWith("_created")) {
      return v;
    }
    boolean cumulative = s.type() == Type.COUNTER || s.type() == Type.HISTOGRAM
        || (s.type() == Type.SUMMARY && (s.name().endsWith("_sum") || s.name().endsWith("_count")));
    if (cumulative) {
      return v * (1 + 0.01 * k) + k;
    }
    if (v <= 0) {
      return v;
    }
    return v * (1 - 0.02 * (k % 3)); // downwards only: percentages and ratios stay in range
  }
}
