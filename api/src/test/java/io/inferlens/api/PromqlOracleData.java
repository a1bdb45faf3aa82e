package io.inferlens.api;

import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types.Label;
import io.inferlens.proto.prometheus.Types.Sample;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The synthetic data of {@link PromqlOracleTest}: {@value #SCRAPES} scrapes 15 s apart (3 hours)
 * starting at a given base time, for about 190 series, generated from a fixed seed so that every
 * run writes the same samples relative to the base. Both the reference Prometheus and the server
 * under test receive exactly these samples through remote write.
 *
 * <p>Scrape {@code i} of a target happens at {@code base + i * 15 s + jitter}, the jitter drawn
 * once per target and scrape (every series of a scrape shares its timestamp, as Prometheus
 * scrapes do). The targets:
 *
 * <ul>
 *   <li>{@code job="vllm"}: three vLLM servers exposing the metric names of vLLM's Grafana
 *       dashboard ({@code vllm:e2e_request_latency_seconds_bucket}, {@code
 *       vllm:time_to_first_token_seconds_*}, {@code vllm:prompt_tokens_total}, …) with {@code
 *       model_name}. {@code 10.0.0.1:8000} scrapes on the exact grid and has no requests for
 *       scrapes {@value #VLLM_QUIET_FROM}..{@value #VLLM_QUIET_TO} (every bucket rate 0, so
 *       quantiles are NaN); {@code 10.0.0.2:8000} has ±400 ms jitter, misses scrapes
 *       {@value #VLLM_GAP_FROM}..{@value #VLLM_GAP_TO} (no samples, no markers) and restarts at
 *       scrape {@value #VLLM_RESTART_AT} (every counter back to 0); {@code 10.0.0.3:8000} serves
 *       another model, starts at scrape {@value #VLLM_LATE_START} and disappears at scrape
 *       {@value #VLLM_GONE_AT} with a stale marker on every series, then nothing.
 *   <li>{@code job="oracle"}, instances {@code i1} (exact grid), {@code i2} (±400 ms jitter),
 *       {@code i3} (±250 ms): counters with resets ({@code oracle_http_requests_total}), gauges
 *       with negative values, NaN, +Inf and -Inf ({@code oracle_temperature}), a one-to-one
 *       partner ({@code oracle_temperature_baseline}), info series for {@code group_left}
 *       ({@code oracle_info}), stale and late series ({@code oracle_stale_gauge}, {@code
 *       oracle_late_gauge}), classic histograms ({@code oracle_latency_seconds}), a histogram
 *       with a NaN and non-monotonic buckets ({@code oracle_odd_seconds}), one without {@code
 *       +Inf} ({@code oracle_noinf_seconds}), a Unix-time gauge ({@code oracle_timestamp_seconds})
 *       and a small-integer gauge for {@code count_values} ({@code oracle_state}).
 * </ul>
 *
 * Stale markers are the Prometheus bit pattern {@value #STALE_NAN_HEX} (Prometheus
 * model/value/value.go {@code StaleNaN} at v2.42.0); ordinary NaN values are Java's {@code NaN}.
 */
final class PromqlOracleData {

  static final long SCRAPE_MS = 15_000;
  /** 3 hours of 15 s scrapes, plus the first. */
  static final int SCRAPES = 721;
  /** Time from the base to the last scrape, ms. */
  static final long SPAN_MS = (SCRAPES - 1) * SCRAPE_MS;
  static final long SEED = 20230201L;
  static final long STALE_NAN_BITS = 0x7ff0000000000002L;
  static final String STALE_NAN_HEX = "0x7ff0000000000002";

  static final int VLLM_QUIET_FROM = 560;
  static final int VLLM_QUIET_TO = 600;
  static final int VLLM_GAP_FROM = 200;
  static final int VLLM_GAP_TO = 207;
  static final int VLLM_RESTART_AT = 380;
  static final int VLLM_LATE_START = 160;
  static final int VLLM_GONE_AT = 640;

  static final String[] E2E_LE = {"0.5", "1.0", "2.5", "5.0", "10.0", "+Inf"};
  static final String[] TTFT_LE = {"0.01", "0.05", "0.1", "0.5", "1.0", "+Inf"};
  static final String[] TPOT_LE = {"0.01", "0.025", "0.05", "0.1", "+Inf"};
  static final String[] TOKENS_LE = {"10.0", "100.0", "500.0", "1000.0", "+Inf"};
  static final String[] LATENCY_LE = {"0.05", "0.1", "0.25", "0.5", "1", "2.5", "+Inf"};

  /** One series: labels in the order sent (name, value, …), and its samples in time order. */
  static final class OracleSeries {
    final String[] labels;
    long[] timestampsMs = new long[64];
    long[] valueBits = new long[64];
    int size;

    OracleSeries(String[] labels) {
      this.labels = labels;
    }

    void add(long tsMs, long bits) {
      if (size == timestampsMs.length) {
        timestampsMs = Arrays.copyOf(timestampsMs, size * 2);
        valueBits = Arrays.copyOf(valueBits, size * 2);
      }
      timestampsMs[size] = tsMs;
      valueBits[size] = bits;
      size++;
    }
  }

  final long baseMs;
  private final Map<String, OracleSeries> series = new LinkedHashMap<>();
  private final Random rnd = new Random(SEED);

  /**
   * @param baseMs the first scrape's nominal time, Unix ms; the data covers {@code [baseMs - 400
   *     ms, baseMs + SPAN_MS + 400 ms]}
   */
  PromqlOracleData(long baseMs) {
    this.baseMs = baseMs;
    VllmTarget[] vllm = {
      new VllmTarget("10.0.0.1:8000", "llama-3-8b", 0, 0, SCRAPES, 1.0, true, false),
      new VllmTarget("10.0.0.2:8000", "llama-3-8b", 400, 0, SCRAPES, 1.4, false, true),
      new VllmTarget("10.0.0.3:8000", "qwen-2-7b", 250, VLLM_LATE_START, VLLM_GONE_AT, 0.7, false,
          false),
    };
    OracleTargets oracle = new OracleTargets();
    for (int i = 0; i < SCRAPES; i++) {
      for (VllmTarget t : vllm) {
        t.scrape(i);
      }
      oracle.scrape(i);
    }
  }

  /** @return every series, in the order first written */
  List<OracleSeries> series() {
    return new ArrayList<>(series.values());
  }

  /** @return how many samples (stale markers included) the data holds */
  int sampleCount() {
    int n = 0;
    for (OracleSeries s : series.values()) {
      n += s.size;
    }
    return n;
  }

  private void put(String[] labels, long tsMs, double value) {
    putBits(labels, tsMs, Double.doubleToRawLongBits(value));
  }

  private void putBits(String[] labels, long tsMs, long bits) {
    series.computeIfAbsent(String.join("\u0000", labels), k -> new OracleSeries(labels))
        .add(tsMs, bits);
  }

  private static String[] with(String[] labels, String... more) {
    String[] out = Arrays.copyOf(labels, labels.length + more.length);
    System.arraycopy(more, 0, out, labels.length, more.length);
    return out;
  }

  private long scrapeTime(int i, int jitterMs) {
    long jitter = jitterMs == 0 ? 0 : rnd.nextInt(2 * jitterMs + 1) - jitterMs;
    return baseMs + i * SCRAPE_MS + jitter;
  }

  /** A classic histogram's cumulative state: bucket counts, sum, count. */
  private static final class Histogram {
    final String name;
    final String[] le;
    final double[] bounds;
    double[] buckets;
    double sum;

    Histogram(String name, String[] le) {
      this.name = name;
      this.le = le;
      this.bounds = new double[le.length];
      for (int b = 0; b < le.length; b++) {
        bounds[b] = le[b].equals("+Inf") ? Double.POSITIVE_INFINITY : Double.parseDouble(le[b]);
      }
      this.buckets = new double[le.length];
    }

    void observe(double v) {
      sum += v;
      for (int b = 0; b < bounds.length; b++) {
        if (v <= bounds[b]) {
          buckets[b]++;
        }
      }
    }

    void reset() {
      buckets = new double[le.length];
      sum = 0;
    }
  }

  /** One vLLM server: its histograms, counters and gauges, scraped once per 15 s. */
  private final class VllmTarget {
    final String[] target;
    final int jitterMs;
    final int from;
    final int goneAt;
    final double load;
    final boolean hasQuietPeriod;
    final boolean missesScrapesAndRestarts;
    final Histogram e2e = new Histogram("vllm:e2e_request_latency_seconds", E2E_LE);
    final Histogram ttft = new Histogram("vllm:time_to_first_token_seconds", TTFT_LE);
    final Histogram tpot = new Histogram("vllm:time_per_output_token_seconds", TPOT_LE);
    final Histogram prompt = new Histogram("vllm:request_prompt_tokens", TOKENS_LE);
    final Histogram generation = new Histogram("vllm:request_generation_tokens", TOKENS_LE);
    final List<Histogram> histograms = List.of(e2e, ttft, tpot, prompt, generation);
    double promptTokens;
    double generationTokens;
    double stop;
    double length;
    double queueTime;
    double prefillTime;
    double decodeTime;
    double maxGenerationTokens;
    double running = 4;
    double waiting;
    double cache = 0.3;

    VllmTarget(String instance, String model, int jitterMs, int from, int goneAt, double load,
        boolean hasQuietPeriod, boolean missesScrapesAndRestarts) {
      this.target = new String[] {"job", "vllm", "instance", instance, "model_name", model};
      this.jitterMs = jitterMs;
      this.from = from;
      this.goneAt = goneAt;
      this.load = load;
      this.hasQuietPeriod = hasQuietPeriod;
      this.missesScrapesAndRestarts = missesScrapesAndRestarts;
    }

    void scrape(int i) {
      if (i < from || i > goneAt) {
        return;
      }
      long ts = scrapeTime(i, jitterMs);
      if (missesScrapesAndRestarts && i >= VLLM_GAP_FROM && i <= VLLM_GAP_TO) {
        return; // missed scrapes: no samples and no stale markers, shorter than the lookback
      }
      if (i == goneAt) {
        for (OracleSeries s : series.values()) {
          if (Arrays.asList(s.labels).contains(target[3])) { // this instance's series
            putBits(s.labels, ts, STALE_NAN_BITS);
          }
        }
        return;
      }
      if (missesScrapesAndRestarts && i == VLLM_RESTART_AT) {
        for (Histogram h : histograms) {
          h.reset();
        }
        promptTokens = generationTokens = stop = length = 0;
        queueTime = prefillTime = decodeTime = maxGenerationTokens = 0;
      }
      boolean quiet = hasQuietPeriod && i >= VLLM_QUIET_FROM && i < VLLM_QUIET_TO;
      int requests = quiet ? 0 : rnd.nextInt((int) (12 * load) + 1);
      for (int r = 0; r < requests; r++) {
        double firstToken = Math.exp(rnd.nextGaussian() * 0.8 + Math.log(0.08 * load));
        double perToken = Math.exp(rnd.nextGaussian() * 0.4 + Math.log(0.03 * load));
        int in = 1 + (int) Math.exp(rnd.nextGaussian() + Math.log(200));
        int out = 1 + (int) Math.exp(rnd.nextGaussian() * 0.8 + Math.log(100));
        double total = firstToken + perToken * out;
        e2e.observe(total);
        ttft.observe(firstToken);
        tpot.observe(perToken);
        prompt.observe(in);
        generation.observe(out);
        promptTokens += in;
        generationTokens += out;
        if (out > 400) {
          length++;
        } else {
          stop++;
        }
        queueTime += Math.exp(rnd.nextGaussian() + Math.log(0.05));
        prefillTime += firstToken * 0.8;
        decodeTime += total - firstToken;
        maxGenerationTokens += Math.max(out, 512);
      }
      running = Math.max(0, Math.min(32, running + rnd.nextInt(5) - 2));
      waiting = quiet ? 0 : Math.max(0, waiting + rnd.nextInt(5) - 2);
      cache = Math.max(0, Math.min(1, cache + (rnd.nextDouble() - 0.5) * 0.05));
      for (Histogram h : histograms) {
        for (int b = 0; b < h.le.length; b++) {
          put(with(target, "__name__", h.name + "_bucket", "le", h.le[b]), ts, h.buckets[b]);
        }
        put(with(target, "__name__", h.name + "_sum"), ts, h.sum);
        put(with(target, "__name__", h.name + "_count"), ts, h.buckets[h.le.length - 1]);
      }
      put(with(target, "__name__", "vllm:prompt_tokens_total"), ts, promptTokens);
      put(with(target, "__name__", "vllm:generation_tokens_total"), ts, generationTokens);
      put(with(target, "__name__", "vllm:request_success_total", "finished_reason", "stop"), ts,
          stop);
      put(with(target, "__name__", "vllm:request_success_total", "finished_reason", "length"), ts,
          length);
      put(with(target, "__name__", "vllm:request_queue_time_seconds_sum"), ts, queueTime);
      put(with(target, "__name__", "vllm:request_prefill_time_seconds_sum"), ts, prefillTime);
      put(with(target, "__name__", "vllm:request_decode_time_seconds_sum"), ts, decodeTime);
      put(with(target, "__name__", "vllm:request_max_num_generation_tokens_sum"), ts,
          maxGenerationTokens);
      put(with(target, "__name__", "vllm:num_requests_running"), ts, running);
      put(with(target, "__name__", "vllm:num_requests_waiting"), ts, waiting);
      put(with(target, "__name__", "vllm:gpu_cache_usage_perc"), ts, cache);
    }
  }

  /** The {@code job="oracle"} series of instances i1, i2, i3, each scrape in one pass. */
  private final class OracleTargets {
    final String[] i1 = {"job", "oracle", "instance", "i1"};
    final String[] i2 = {"job", "oracle", "instance", "i2"};
    final String[] i3 = {"job", "oracle", "instance", "i3"};
    /** Counters: (i1 GET 200), (i1 POST 200), (i2 GET 200), (i2 GET 500), (i2 POST 500). */
    final double[] requests = {100, 7.5, 2_000, 0, 0};
    final double[] temperature = {4, -3, 12, 0.5};
    double stateI1;
    double stateI2 = 2;
    double stateI3 = 1;
    final Histogram latencyI1 = new Histogram("oracle_latency_seconds", LATENCY_LE);
    final Histogram latencyI2 = new Histogram("oracle_latency_seconds", LATENCY_LE);

    void scrape(int i) {
      long t1 = scrapeTime(i, 0);
      long t2 = scrapeTime(i, 400);
      long t3 = scrapeTime(i, 250);
      counters(i, t1, t2);
      gauges(i, t1, t2, t3);
      histograms(i, t1, t2, t3);
    }

    private void counters(int i, long t1, long t2) {
      // i1 GET resets twice in quick succession; i2 GET resets to a value above 0
      requests[0] = i == 300 ? 0 : i == 302 ? 1 : requests[0] + rnd.nextInt(20);
      requests[1] += 0.25 * rnd.nextInt(3);
      requests[2] = i == 450 ? 3 : requests[2] + 1 + rnd.nextInt(50);
      requests[3] += rnd.nextInt(10) == 0 ? 1 : 0;
      requests[4] += rnd.nextInt(4);
      String n = "oracle_http_requests_total";
      put(with(i1, "__name__", n, "method", "GET", "code", "200"), t1, requests[0]);
      put(with(i1, "__name__", n, "method", "POST", "code", "200"), t1, requests[1]);
      put(with(i2, "__name__", n, "method", "GET", "code", "200"), t2, requests[2]);
      put(with(i2, "__name__", n, "method", "GET", "code", "500"), t2, requests[3]);
      if (i >= 200) {
        put(with(i2, "__name__", n, "method", "POST", "code", "500"), t2, requests[4]);
      }
    }

    private void gauges(int i, long t1, long t2, long t3) {
      for (int s = 0; s < temperature.length; s++) {
        // one decimal, as a sensor reports: no sums of 0.1 steps with 1e-15 residues
        temperature[s] = Math.round(temperature[s] * 10 + rnd.nextGaussian() * 20) / 10.0;
      }
      String n = "oracle_temperature";
      put(with(i1, "__name__", n, "sensor", "a"), t1, temperature[0]);
      put(with(i1, "__name__", n, "sensor", "b"), t1, temperature[1]);
      put(with(i2, "__name__", n, "sensor", "a"), t2, temperature[2]);
      double odd = i % 50 == 25 ? Double.NaN : i == 333 ? Double.POSITIVE_INFINITY
          : i == 444 ? Double.NEGATIVE_INFINITY : temperature[3];
      put(with(i2, "__name__", n, "sensor", "b"), t2, odd);
      String b = "oracle_temperature_baseline";
      boolean late = i >= 360;
      put(with(i1, "__name__", b, "sensor", "a"), t1, late ? 5 : 3);
      put(with(i1, "__name__", b, "sensor", "b"), t1, -2);
      put(with(i2, "__name__", b, "sensor", "a"), t2, late ? 10 : 11);
      put(with(i2, "__name__", b, "sensor", "b"), t2, 0);

      put(with(i1, "__name__", "oracle_info", "version", "1.2.3", "region", "eu-west"), t1, 1);
      put(with(i2, "__name__", "oracle_info", "version", "2.0.0", "region", "us-east"), t2, 1);
      if (i >= 120) {
        put(with(i3, "__name__", "oracle_info", "version", "1.2.3", "region", "eu-west"), t3, 1);
      }

      String st = "oracle_stale_gauge";
      if (i < 400) {
        put(with(i1, "__name__", st), t1, 100 + i % 7);
      } else if (i == 400) {
        putBits(with(i1, "__name__", st), t1, STALE_NAN_BITS); // then nothing
      }
      if (i <= 500) {
        put(with(i2, "__name__", st), t2, -i); // stops without a marker: the lookback runs out
      }
      if (i == 300) {
        putBits(with(i3, "__name__", st), t3, STALE_NAN_BITS);
      } else if (i < 300 || i >= 340) {
        put(with(i3, "__name__", st), t3, i / 10); // stale for 10 minutes, then back
      }
      if (i >= 480) {
        put(with(i3, "__name__", "oracle_late_gauge"), t3, (i - 480) * 0.5);
      }
      // a last-success Unix time, seconds: moves by 10 minutes every 40 scrapes
      put(with(i1, "__name__", "oracle_timestamp_seconds"), t1,
          (baseMs / 1000.0) - 86_400 + 600.0 * (i / 40));
      stateI1 = rnd.nextInt(8) == 0 ? rnd.nextInt(4) : stateI1;
      stateI2 = rnd.nextInt(8) == 0 ? rnd.nextInt(4) : stateI2;
      stateI3 = rnd.nextInt(8) == 0 ? rnd.nextInt(4) : stateI3;
      put(with(i1, "__name__", "oracle_state"), t1, stateI1);
      put(with(i2, "__name__", "oracle_state"), t2, stateI2);
      put(with(i3, "__name__", "oracle_state"), t3, stateI3);
    }

    private void histograms(int i, long t1, long t2, long t3) {
      if (i == 500) {
        latencyI2.reset();
      }
      for (Histogram h : List.of(latencyI1, latencyI2)) {
        int n = rnd.nextInt(15);
        for (int o = 0; o < n; o++) {
          h.observe(Math.exp(rnd.nextGaussian() + Math.log(h == latencyI1 ? 0.2 : 0.6)));
        }
        String[] target = h == latencyI1 ? i1 : i2;
        long ts = h == latencyI1 ? t1 : t2;
        for (int b = 0; b < h.le.length; b++) {
          put(with(target, "__name__", h.name + "_bucket", "le", h.le[b]), ts, h.buckets[b]);
        }
        put(with(target, "__name__", h.name + "_sum"), ts, h.sum);
        put(with(target, "__name__", h.name + "_count"), ts, h.buckets[h.le.length - 1]);
      }
      // non-monotonic buckets (le=1 below le=0.1 for a while) and a NaN bucket for 3 minutes
      String odd = "oracle_odd_seconds_bucket";
      put(with(i3, "__name__", odd, "le", "0.1"), t3, 2.0 * i);
      put(with(i3, "__name__", odd, "le", "1"), t3,
          i >= 100 && i < 112 ? Double.NaN : i >= 200 && i < 260 ? 1.5 * i : 4.0 * i);
      put(with(i3, "__name__", odd, "le", "10"), t3, 5.0 * i);
      put(with(i3, "__name__", odd, "le", "+Inf"), t3, 6.0 * i);
      String noInf = "oracle_noinf_seconds_bucket";
      put(with(i3, "__name__", noInf, "le", "0.1"), t3, 1.0 * i);
      put(with(i3, "__name__", noInf, "le", "1"), t3, 3.0 * i);
    }
  }

  /**
   * Remote-write requests in time order, one per {@code sliceMs} of data, each holding every
   * series' samples of that slice (Prometheus's TSDB appends each series in time order).
   */
  List<WriteRequest> writeRequests(long sliceMs) {
    long first = baseMs - 60_000;
    List<WriteRequest> out = new ArrayList<>();
    for (long from = first; from <= baseMs + SPAN_MS + 60_000; from += sliceMs) {
      WriteRequest.Builder req = WriteRequest.newBuilder();
      for (OracleSeries s : series.values()) {
        TimeSeries.Builder ts = null;
        for (int i = 0; i < s.size; i++) {
          long t = s.timestampsMs[i];
          if (t >= from && t < from + sliceMs) {
            if (ts == null) {
              ts = TimeSeries.newBuilder();
              for (int l = 0; l < s.labels.length; l += 2) {
                ts.addLabels(Label.newBuilder().setName(s.labels[l]).setValue(s.labels[l + 1]));
              }
            }
            ts.addSamples(Sample.newBuilder().setTimestamp(t)
                .setValue(Double.longBitsToDouble(s.valueBits[i])));
          }
        }
        if (ts != null) {
          req.addTimeseries(ts);
        }
      }
      if (req.getTimeseriesCount() > 0) {
        out.add(req.build());
      }
    }
    return out;
  }
}
