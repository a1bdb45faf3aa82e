import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The data of the query benchmark (docs/BENCHMARKS.md, "Query benchmark (issue 18)"), generated
 * and remote-written (1.0: protobuf, snappy) to every receiver given, the same bytes to each, in
 * data-time order so that Prometheus's head accepts it (its appender refuses a sample more than
 * 1 h older than the newest one it holds: tsdb/head_append.go, appendableMinValidTime, v2.42.0).
 *
 * <p>Data, every series scraped each 15 s, ending at {@code --end-ms} (default ten minutes ago):
 * <ul>
 *   <li>one counter {@code qbench_requests_total} over 29.9 days, with two resets, and 50 more
 *       ({@code qbench_fleet_requests_total}, one per instance) for a 30-day panel over many
 *       series;
 *   <li>{@code vllm:e2e_request_latency_seconds} (vLLM 0.13's 21 bucket bounds and +Inf, plus
 *       {@code _sum} and {@code _count}) for 100 targets over the last day;
 *   <li>for the first 4 of those targets over the last 7 days instead: that histogram,
 *       {@code vllm:request_success_total} (4 finished reasons), {@code vllm:num_requests_waiting},
 *       {@code vllm:num_requests_running}, {@code vllm:kv_cache_usage_perc}, and 4 GPUs of
 *       {@code DCGM_FI_DEV_GPU_UTIL} on the target's host (the Live overview dashboard's series).
 * </ul>
 * Values come from a seeded generator, so a given end time always gives the same bytes.
 *
 * <p>Usage: {@code java scripts/QueryBenchLoad.java [--end-ms MS] [--shards N]
 * [--batch-samples N] [--targets N] [--dashboard-targets N] [--wide-counters N]
 * [--manifest FILE] URL...}. Time is cut into 1-hour blocks; each shard (a
 * thread, a fixed subset of the series, one request in flight per receiver like a Prometheus
 * remote-write shard) sends its part of a block, and no shard starts the next block before all
 * finished this one. A 5xx or 429 answer is retried (30 ms doubling to 5 s, 10 times); any other
 * non-2xx answer, or a retry budget spent, makes the run exit with status 1. Prints, and writes
 * to {@code --manifest}, a JSON object with the time ranges, the targets and the counts.
 * Needs only JDK 17 (single-file source launch).
 */
public final class QueryBenchLoad {

  static final long SCRAPE_MS = 15_000;
  static final long HOUR_MS = 3_600_000;
  static final long DAY_MS = 24 * HOUR_MS;
  /** vLLM 0.13's bucket bounds of vllm:e2e_request_latency_seconds (fixtures/vllm-0.13-v1.prom). */
  static final double[] E2E_BOUNDS = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
      30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
  static final String[] MODELS = {"Qwen/Qwen3-32B-FP8", "meta-llama/Llama-3.1-8B-Instruct"};
  static final String[] REASONS = {"stop", "length", "abort", "error"};
  static final int GPUS = 4;

  /** One series' label set, sorted by name as remote write requires, and its samples of a block. */
  static final class Series {
    final String[] labels;
    final long[] ts;
    final double[] vals;
    int n;

    Series(int capacity, String... nameValues) {
      String[][] pairs = new String[nameValues.length / 2][];
      for (int i = 0; i < pairs.length; i++) {
        pairs[i] = new String[] {nameValues[2 * i], nameValues[2 * i + 1]};
      }
      Arrays.sort(pairs, (a, b) -> compareUtf8(a[0], b[0]));
      labels = new String[nameValues.length];
      for (int i = 0; i < pairs.length; i++) {
        labels[2 * i] = pairs[i][0];
        labels[2 * i + 1] = pairs[i][1];
      }
      ts = new long[capacity];
      vals = new double[capacity];
    }

    void add(long t, double v) {
      ts[n] = t;
      vals[n] = v;
      n++;
    }
  }

  static int compareUtf8(String a, String b) {
    return Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8),
        b.getBytes(StandardCharsets.UTF_8));
  }

  /** Series that share one state (a target's histogram and gauges, a host's GPUs). */
  abstract static class Group {
    final long startMs;
    final List<Series> series = new ArrayList<>();
    final SplittableRandom rnd;

    Group(long startMs, long seed) {
      this.startMs = startMs;
      this.rnd = new SplittableRandom(seed);
    }

    /** Appends one scrape at {@code t} to every member. */
    abstract void scrape(long t);

    int poisson(double lambda) {
      double l = Math.exp(-lambda);
      double p = 1;
      int k = 0;
      do {
        k++;
        p *= rnd.nextDouble();
      } while (p > l);
      return k - 1;
    }

    double gaussian() {
      // Box-Muller: SplittableRandom has no nextGaussian in Java 17.
      double u = 1 - rnd.nextDouble();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rnd.nextDouble());
    }
  }

  /** The 30-day counter: about 10 increments per second, reset twice. */
  static final class CounterGroup extends Group {
    final long endMs;
    double value;

    CounterGroup(long startMs, long endMs, int capacity) {
      this(startMs, endMs, capacity, 1, "qbench_requests_total", "qbench-0:9100");
    }

    CounterGroup(long startMs, long endMs, int capacity, long seed, String name,
        String instance) {
      super(startMs, seed);
      this.endMs = endMs;
      series.add(new Series(capacity, "__name__", name, "job", "qbench", "instance", instance));
    }

    @Override
    void scrape(long t) {
      long third = (endMs - startMs) / 3;
      long prev = t - SCRAPE_MS;
      long k = (t - startMs) / third;
      if (prev >= startMs && (prev - startMs) / third != k && k < 3) {
        value = 0;
      }
      value += poisson(150);
      series.get(0).add(t, value);
    }
  }

  /** One vLLM target: the e2e latency histogram and, for a dashboard target, its gauges. */
  static final class TargetGroup extends Group {
    final boolean dashboard;
    final double mu;
    final double[] buckets = new double[E2E_BOUNDS.length + 1];
    double sum;
    final double[] success = new double[REASONS.length];
    double waiting;
    double running = 12;

    TargetGroup(int index, long startMs, boolean dashboard, int capacity) {
      super(startMs, 1000 + index);
      this.dashboard = dashboard;
      String instance = String.format(Locale.ROOT, "gpu-node-%03d:8000", index);
      String model = MODELS[index % MODELS.length];
      mu = Math.log(index % MODELS.length == 0 ? 4.0 : 1.6) + 0.1 * rnd.nextDouble();
      for (int b = 0; b <= E2E_BOUNDS.length; b++) {
        String le = b == E2E_BOUNDS.length ? "+Inf" : Double.toString(E2E_BOUNDS[b]);
        series.add(new Series(capacity, "__name__", "vllm:e2e_request_latency_seconds_bucket",
            "job", "vllm", "instance", instance, "model_name", model, "le", le));
      }
      series.add(new Series(capacity, "__name__", "vllm:e2e_request_latency_seconds_sum",
          "job", "vllm", "instance", instance, "model_name", model));
      series.add(new Series(capacity, "__name__", "vllm:e2e_request_latency_seconds_count",
          "job", "vllm", "instance", instance, "model_name", model));
      if (dashboard) {
        for (String r : REASONS) {
          series.add(new Series(capacity, "__name__", "vllm:request_success_total", "job", "vllm",
              "instance", instance, "model_name", model, "finished_reason", r));
        }
        for (String g : new String[] {"vllm:num_requests_waiting", "vllm:num_requests_running",
            "vllm:kv_cache_usage_perc"}) {
          series.add(new Series(capacity, "__name__", g, "job", "vllm", "instance", instance,
              "model_name", model));
        }
      }
    }

    @Override
    void scrape(long t) {
      // A daily load cycle, latency rising with load.
      double load = 1 + 0.5 * Math.sin(2 * Math.PI * (t % DAY_MS) / DAY_MS);
      int n = poisson(5 * load);
      for (int i = 0; i < n; i++) {
        double latency = Math.exp(mu + 0.25 * load + 0.6 * gaussian());
        int b = Arrays.binarySearch(E2E_BOUNDS, latency);
        b = b >= 0 ? b : -b - 1;
        for (int k = b; k < buckets.length; k++) {
          buckets[k]++;
        }
        sum += latency;
      }
      int s = 0;
      for (double c : buckets) {
        series.get(s++).add(t, c);
      }
      series.get(s++).add(t, sum);
      series.get(s++).add(t, buckets[buckets.length - 1]);
      if (!dashboard) {
        return;
      }
      int ok = n;
      for (int r = REASONS.length - 1; r >= 1; r--) {
        int k = r == 3 ? 0 : r == 2 ? (rnd.nextDouble() < 0.01 ? 1 : 0) : poisson(0.05 * n);
        k = Math.min(k, ok);
        success[r] += k;
        ok -= k;
      }
      success[0] += ok;
      for (double c : success) {
        series.get(s++).add(t, c);
      }
      waiting = Math.max(0, Math.round(waiting + gaussian() * 1.5 - (load < 1.3 ? 0.5 : -0.2)));
      running = Math.max(0, Math.min(64, Math.round(running + gaussian() * 2 + (12 * load
          - running) * 0.1)));
      series.get(s++).add(t, waiting);
      series.get(s++).add(t, running);
      series.get(s).add(t, Math.min(1, running / 64.0 + 0.02 * rnd.nextDouble()));
    }
  }

  /** dcgm-exporter's GPU utilisation of one host's GPUs, in percent. */
  static final class GpuGroup extends Group {
    GpuGroup(int index, long startMs, int capacity) {
      super(startMs, 5000 + index);
      String host = String.format(Locale.ROOT, "gpu-node-%03d", index);
      for (int g = 0; g < GPUS; g++) {
        series.add(new Series(capacity, "__name__", "DCGM_FI_DEV_GPU_UTIL", "job", "dcgm",
            "instance", host + ":9400", "Hostname", host, "gpu", Integer.toString(g),
            "device", "nvidia" + g, "modelName", "NVIDIA H100 80GB HBM3",
            "UUID", String.format(Locale.ROOT, "GPU-%08x-0000-4000-8000-%012x", index, g)));
      }
    }

    @Override
    void scrape(long t) {
      double load = 1 + 0.5 * Math.sin(2 * Math.PI * (t % DAY_MS) / DAY_MS);
      for (Series s : series) {
        s.add(t, Math.max(0, Math.min(100, Math.round(60 * load + 8 * gaussian()))));
      }
    }
  }

  // ---- remote-write 1.0 encoding (prompb: WriteRequest.timeseries = 1; TimeSeries.labels = 1,
  // samples = 2; Label.name = 1, value = 2; Sample.value = 1 double, timestamp = 2 int64).

  static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  static void bytesField(ByteArrayOutputStream out, int field, byte[] b) {
    varint(out, (field << 3) | 2);
    varint(out, b.length);
    out.write(b, 0, b.length);
  }

  static byte[] encodeSeries(Series s) {
    ByteArrayOutputStream ts = new ByteArrayOutputStream(64 + s.n * 20);
    for (int i = 0; i < s.labels.length; i += 2) {
      ByteArrayOutputStream l = new ByteArrayOutputStream();
      bytesField(l, 1, s.labels[i].getBytes(StandardCharsets.UTF_8));
      bytesField(l, 2, s.labels[i + 1].getBytes(StandardCharsets.UTF_8));
      bytesField(ts, 1, l.toByteArray());
    }
    ByteArrayOutputStream smp = new ByteArrayOutputStream(20);
    for (int i = 0; i < s.n; i++) {
      smp.reset();
      smp.write(9); // field 1, fixed64
      long bits = Double.doubleToRawLongBits(s.vals[i]);
      for (int k = 0; k < 8; k++) {
        smp.write((int) (bits >>> (8 * k)));
      }
      smp.write(16); // field 2, varint
      varint(smp, s.ts[i]);
      bytesField(ts, 2, smp.toByteArray());
    }
    return ts.toByteArray();
  }

  /** A valid snappy block of literals only (the format allows it; loopback needs no savings). */
  static byte[] snappyLiterals(byte[] raw) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length + raw.length / 65536 * 3 + 8);
    varint(out, raw.length);
    for (int off = 0; off < raw.length; off += 65536) {
      int len = Math.min(65536, raw.length - off);
      out.write(61 << 2); // literal, length - 1 in the next two bytes, little-endian
      out.write((len - 1) & 0xFF);
      out.write((len - 1) >>> 8);
      out.write(raw, off, len);
    }
    return out.toByteArray();
  }

  // ---- sending

  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  static final AtomicLong SAMPLES = new AtomicLong();
  static final AtomicLong REQUESTS = new AtomicLong();
  static final AtomicLong RETRIES = new AtomicLong();

  static void send(List<URI> urls, byte[] body, long samples) {
    List<CompletableFuture<Void>> all = new ArrayList<>();
    for (URI u : urls) {
      all.add(CompletableFuture.runAsync(() -> sendOne(u, body)));
    }
    for (CompletableFuture<Void> f : all) {
      f.join();
    }
    SAMPLES.addAndGet(samples);
    REQUESTS.incrementAndGet();
  }

  static void sendOne(URI url, byte[] body) {
    long backoff = 30;
    for (int attempt = 0; ; attempt++) {
      HttpRequest req = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(60))
          .header("Content-Type", "application/x-protobuf").header("Content-Encoding", "snappy")
          .header("X-Prometheus-Remote-Write-Version", "0.1.0")
          .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
      int code;
      String text;
      try {
        HttpResponse<String> r = HTTP.send(req, HttpResponse.BodyHandlers.ofString());
        code = r.statusCode();
        text = r.body();
      } catch (IOException e) {
        code = 599;
        text = e.toString();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      if (code / 100 == 2) {
        return;
      }
      if ((code / 100 == 5 || code == 429) && attempt < 10) {
        RETRIES.incrementAndGet();
        try {
          Thread.sleep(backoff);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException(e);
        }
        backoff = Math.min(5000, backoff * 2);
        continue;
      }
      System.err.println("FAILED: " + url + " answered " + code + ": "
          + text.substring(0, Math.min(500, text.length())));
      System.exit(1);
    }
  }

  /** One shard: its groups, block by block, in requests of about batchSamples samples. */
  static void runShard(List<Group> groups, List<URI> urls, long firstBlock, long endMs,
      int batchSamples, CyclicBarrier barrier) throws Exception {
    ByteArrayOutputStream req = new ByteArrayOutputStream(batchSamples * 24);
    long inReq = 0;
    for (long block = firstBlock; block <= endMs; block += HOUR_MS) {
      long blockEnd = Math.min(block + HOUR_MS - 1, endMs);
      for (Group g : groups) {
        long from = Math.max(block, g.startMs);
        if (from > blockEnd) {
          continue;
        }
        for (Series s : g.series) {
          s.n = 0;
        }
        for (long t = from; t <= blockEnd; t += SCRAPE_MS) {
          g.scrape(t);
        }
        for (Series s : g.series) {
          bytesField(req, 1, encodeSeries(s));
          inReq += s.n;
        }
        if (inReq >= batchSamples) {
          send(urls, snappyLiterals(req.toByteArray()), inReq);
          req.reset();
          inReq = 0;
        }
      }
      if (inReq > 0) {
        send(urls, snappyLiterals(req.toByteArray()), inReq);
        req.reset();
        inReq = 0;
      }
      barrier.await();
    }
  }

  static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  public static void main(String[] args) throws Exception {
    long endMs = (System.currentTimeMillis() - 10 * 60_000L) / SCRAPE_MS * SCRAPE_MS;
    int shards = 2;
    int batchSamples = 50_000;
    int fleet = 100;
    int dash = 4;
    int wide = 50;
    Path manifest = null;
    List<URI> urls = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--end-ms": endMs = Long.parseLong(args[++i]) / SCRAPE_MS * SCRAPE_MS; break;
        case "--shards": shards = Integer.parseInt(args[++i]); break;
        case "--batch-samples": batchSamples = Integer.parseInt(args[++i]); break;
        case "--targets": fleet = Integer.parseInt(args[++i]); break;
        case "--dashboard-targets": dash = Integer.parseInt(args[++i]); break;
        case "--wide-counters": wide = Integer.parseInt(args[++i]); break;
        case "--manifest": manifest = Path.of(args[++i]); break;
        default: urls.add(URI.create(args[i]));
      }
    }
    if (urls.isEmpty()) {
      throw new IllegalArgumentException("usage: QueryBenchLoad [options] URL...");
    }
    long counterStart = (endMs - (long) (29.9 * DAY_MS)) / SCRAPE_MS * SCRAPE_MS;
    long fleetStart = endMs - DAY_MS;
    long dashStart = endMs - 7 * DAY_MS;
    int cap = (int) (HOUR_MS / SCRAPE_MS) + 1;

    List<Group> groups = new ArrayList<>();
    groups.add(new CounterGroup(counterStart, endMs, cap));
    for (int i = 0; i < wide; i++) {
      groups.add(new CounterGroup(counterStart, endMs, cap, 2000 + i, "qbench_fleet_requests_total",
          String.format(Locale.ROOT, "qbench-%03d:9100", i)));
    }
    for (int i = 0; i < fleet; i++) {
      groups.add(new TargetGroup(i, i < dash ? dashStart : fleetStart, i < dash, cap));
    }
    for (int i = 0; i < dash; i++) {
      groups.add(new GpuGroup(i, dashStart, cap));
    }
    List<List<Group>> parts = new ArrayList<>();
    for (int s = 0; s < shards; s++) {
      parts.add(new ArrayList<>());
    }
    for (int i = 0; i < groups.size(); i++) {
      parts.get(i % shards).add(groups.get(i));
    }
    long firstBlock = counterStart / HOUR_MS * HOUR_MS;
    CyclicBarrier barrier = new CyclicBarrier(shards);
    long t0 = System.nanoTime();
    List<Thread> threads = new ArrayList<>();
    final long end = endMs;
    final int batch = batchSamples;
    for (List<Group> part : parts) {
      Thread th = new Thread(() -> {
        try {
          runShard(part, urls, firstBlock, end, batch, barrier);
        } catch (Exception e) {
          e.printStackTrace();
          System.exit(1);
        }
      });
      th.start();
      threads.add(th);
    }
    for (Thread th : threads) {
      th.join();
    }
    double secs = (System.nanoTime() - t0) / 1e9;
    int seriesCount = 0;
    for (Group g : groups) {
      seriesCount += g.series.size();
    }
    StringBuilder inst = new StringBuilder();
    for (int i = 0; i < dash; i++) {
      inst.append(i == 0 ? "" : ",")
          .append(quote(String.format(Locale.ROOT, "gpu-node-%03d:8000", i)));
    }
    String json = String.format(Locale.ROOT, "{\"end_ms\": %d, \"counter_start_ms\": %d, "
        + "\"fleet_start_ms\": %d, \"dashboard_start_ms\": %d, \"targets\": %d, "
        + "\"wide_counters\": %d, "
        + "\"dashboard_instances\": [%s], \"series\": %d, \"samples_per_receiver\": %d, "
        + "\"requests_per_receiver\": %d, \"retries\": %d, \"receivers\": %d, "
        + "\"all_acknowledged\": true, \"seconds\": %.1f}",
        endMs, counterStart, fleetStart, dashStart, fleet, wide, inst, seriesCount, SAMPLES.get(),
        REQUESTS.get(), RETRIES.get(), urls.size(), secs);
    System.out.println(json);
    if (manifest != null) {
      Files.writeString(manifest, json + "\n");
    }
  }
}
