package io.inferlens.api;

import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types.Label;
import io.inferlens.proto.prometheus.Types.Sample;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesWrite;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Deterministic data for {@link RemoteReadPrometheusTest} (Prometheus reading InferLens over remote read): {@value #SCRAPES} scrapes 15 s apart ending at a
 * given time (40 minutes), shaped to hit the interesting paths of the PromQL functions.
 *
 * <ul>
 *   <li>{@value #COUNTER}: a counter on an exact 15 s grid (so range-selector boundaries are hit
 *       exactly) with random increments and a reset at scrape {@value #COUNTER_RESET_AT};
 *   <li>{@value #GAUGE}: a random walk with ±400 ms timestamp jitter, a stale marker at scrape
 *       {@value #GAUGE_STALE_AT}, silence until {@value #GAUGE_RESUMES_AT}, and no samples (and no
 *       stale marker) after {@value #GAUGE_STOPS_AT}, so the 5 m lookback runs out;
 *   <li>{@value #HISTOGRAM}{@code _bucket/_sum/_count} for engines {@code a} and {@code b}, buckets
 *       0.1, 0.5, 1, 5, +Inf, lognormal latencies, per-engine jitter; both engines start with all
 *       counters at 0, and engine b restarts (all its counters reset to 0) at
 *       {@value #ENGINE_B_RESTART_AT}; both go quiet (no observations) for
 *       scrapes {@value #QUIET_FROM} to {@value #QUIET_TO}, which makes every bucket rate 0 and the
 *       quantile NaN for a while.
 * </ul>
 */
final class PromqlParityData {

  static final long SCRAPE_MS = 15_000;
  /** 40 minutes of 15 s scrapes, plus the first. */
  static final int SCRAPES = 161;
  static final long SEED = 20240611L;
  /** Jitter bound of the jittered series, ms: a few hundred ms, as real scrapes show. */
  static final int JITTER_MS = 400;

  static final String JOB = "promql_parity";
  static final String COUNTER = "parity_requests_total";
  static final String GAUGE = "parity_queue_depth";
  static final String HISTOGRAM = "parity_latency_seconds";
  static final String[] LE = {"0.1", "0.5", "1", "5", "+Inf"};
  static final String[] ENGINES = {"a", "b"};

  static final int COUNTER_RESET_AT = 70;
  static final int GAUGE_STALE_AT = 80;
  static final int GAUGE_RESUMES_AT = 92;
  static final int GAUGE_STOPS_AT = 150;
  static final int ENGINE_B_RESTART_AT = 60;
  static final int QUIET_FROM = 100;
  static final int QUIET_TO = 126;

  /** One generated series: labels in the order sent, and its samples. */
  record Generated(String[] labels, long[] timestampsMs, long[] valueBits) {
    LabelSet labelSet() {
      return LabelSet.of(labels);
    }
  }

  final long firstMs;
  final long lastMs;
  final List<Generated> series = new ArrayList<>();

  /** @param lastMs timestamp of the last scrape, ms, a multiple of {@link #SCRAPE_MS} */
  PromqlParityData(long lastMs) {
    this.lastMs = lastMs;
    this.firstMs = lastMs - (SCRAPES - 1) * SCRAPE_MS;
    Random rnd = new Random(SEED);
    counter(rnd);
    gauge(rnd);
    for (String engine : ENGINES) {
      histogram(rnd, engine);
    }
  }

  private void counter(Random rnd) {
    long[] ts = new long[SCRAPES];
    long[] bits = new long[SCRAPES];
    double v = 500 + rnd.nextInt(100);
    for (int i = 0; i < SCRAPES; i++) {
      v = i == COUNTER_RESET_AT ? rnd.nextInt(5) : v + rnd.nextInt(40) * 0.5;
      ts[i] = firstMs + i * SCRAPE_MS;
      bits[i] = Double.doubleToRawLongBits(v);
    }
    series.add(new Generated(new String[] {"__name__", COUNTER, "job", JOB}, ts, bits));
  }

  private void gauge(Random rnd) {
    List<Long> ts = new ArrayList<>();
    List<Long> bits = new ArrayList<>();
    double v = 10;
    for (int i = 0; i <= GAUGE_STOPS_AT; i++) {
      if (i > GAUGE_STALE_AT && i < GAUGE_RESUMES_AT) {
        continue;
      }
      // the last sample sits on the 15 s step grid: the step exactly 5 m later tests whether the
      // lookback window includes its left end (Prometheus 2.x: yes)
      long jitter = jitter(rnd);
      ts.add(firstMs + i * SCRAPE_MS + (i == GAUGE_STOPS_AT ? 0 : jitter));
      if (i == GAUGE_STALE_AT) {
        bits.add(0x7ff0000000000002L);
      } else {
        v = Math.max(0, v + rnd.nextGaussian() * 3);
        bits.add(Double.doubleToRawLongBits(v));
      }
    }
    series.add(new Generated(new String[] {"__name__", GAUGE, "job", JOB},
        ts.stream().mapToLong(Long::longValue).toArray(),
        bits.stream().mapToLong(Long::longValue).toArray()));
  }

  private void histogram(Random rnd, String engine) {
    double[] bounds = {0.1, 0.5, 1, 5, Double.POSITIVE_INFINITY};
    long[][] bucketBits = new long[bounds.length][SCRAPES];
    long[] sumBits = new long[SCRAPES];
    long[] countBits = new long[SCRAPES];
    long[] ts = new long[SCRAPES];
    double[] cumulative = new double[bounds.length];
    double sum = 0;
    for (int i = 0; i < SCRAPES; i++) {
      if (engine.equals("b") && i == ENGINE_B_RESTART_AT) {
        cumulative = new double[bounds.length];
        sum = 0;
      }
      // A (re)started engine exposes zeros first: rate's zero clamp (durationToZero) then decides
      // how far back the first windows extrapolate.
      boolean starting = i == 0 || (engine.equals("b") && i == ENGINE_B_RESTART_AT);
      boolean quiet = i >= QUIET_FROM && i < QUIET_TO;
      int observations = starting || quiet ? 0 : rnd.nextInt(30);
      for (int o = 0; o < observations; o++) {
        // lognormal around 0.4 s (engine b slower): lands in every bucket now and then
        double latency = Math.exp(rnd.nextGaussian() * 1.1 + Math.log(engine.equals("a") ? 0.3 : 0.6));
        sum += latency;
        for (int b = 0; b < bounds.length; b++) {
          if (latency <= bounds[b]) {
            cumulative[b]++;
          }
        }
      }
      ts[i] = firstMs + i * SCRAPE_MS + jitter(rnd);
      for (int b = 0; b < bounds.length; b++) {
        bucketBits[b][i] = Double.doubleToRawLongBits(cumulative[b]);
      }
      sumBits[i] = Double.doubleToRawLongBits(sum);
      countBits[i] = Double.doubleToRawLongBits(cumulative[bounds.length - 1]);
    }
    for (int b = 0; b < bounds.length; b++) {
      series.add(new Generated(new String[] {"__name__", HISTOGRAM + "_bucket", "job", JOB,
          "engine", engine, "le", LE[b]}, ts, bucketBits[b]));
    }
    series.add(new Generated(new String[] {"__name__", HISTOGRAM + "_sum", "job", JOB,
        "engine", engine}, ts, sumBits));
    series.add(new Generated(new String[] {"__name__", HISTOGRAM + "_count", "job", JOB,
        "engine", engine}, ts, countBits));
  }

  private static long jitter(Random rnd) {
    return rnd.nextInt(2 * JITTER_MS + 1) - JITTER_MS;
  }

  /**
   * Remote-write requests in time order: one per {@code chunkMs} of data, each holding every
   * series' samples in that slice (Prometheus's TSDB wants each series in order).
   */
  List<WriteRequest> writeRequests(long chunkMs) {
    List<WriteRequest> out = new ArrayList<>();
    for (long from = firstMs - JITTER_MS; from <= lastMs + JITTER_MS; from += chunkMs) {
      WriteRequest.Builder req = WriteRequest.newBuilder();
      for (Generated g : series) {
        TimeSeries.Builder ts = TimeSeries.newBuilder();
        for (int i = 0; i < g.labels().length; i += 2) {
          ts.addLabels(Label.newBuilder().setName(g.labels()[i]).setValue(g.labels()[i + 1]));
        }
        for (int i = 0; i < g.timestampsMs().length; i++) {
          long t = g.timestampsMs()[i];
          if (t >= from && t < from + chunkMs) {
            ts.addSamples(Sample.newBuilder().setTimestamp(t)
                .setValue(Double.longBitsToDouble(g.valueBits()[i])));
          }
        }
        if (ts.getSamplesCount() > 0) {
          req.addTimeseries(ts);
        }
      }
      if (req.getTimeseriesCount() > 0) {
        out.add(req.build());
      }
    }
    return out;
  }

  /** The same samples for {@code TimeSeriesStore.append}. */
  List<SeriesWrite> seriesWrites() {
    List<SeriesWrite> out = new ArrayList<>();
    for (Generated g : series) {
      out.add(new SeriesWrite(g.labelSet(), g.timestampsMs(), g.valueBits(),
          g.timestampsMs().length));
    }
    return out;
  }

  /**
   * The step grids both parity tests evaluate on: 15 s on the counter's scrapes from 1 min
   * before the data to 6 min after it (the gauge's lookback and every window run out), and 30 s
   * off the scrape grid by 7 s.
   */
  java.util.List<io.inferlens.analysis.promql.StepRange> stepGrids() {
    return java.util.List.of(
        new io.inferlens.analysis.promql.StepRange(firstMs - 60_000, lastMs + 360_000, 15_000),
        new io.inferlens.analysis.promql.StepRange(firstMs - 53_000, lastMs + 367_000, 30_000));
  }
}
