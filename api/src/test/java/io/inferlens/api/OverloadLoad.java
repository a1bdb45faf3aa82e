package io.inferlens.api;

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
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.xerial.snappy.Snappy;

/**
 * Remote-write overload against a running server: {@code senders} threads, each on its own
 * HTTP/1.1 connection like one Prometheus shard, send requests of {@code samplesPerRequest}
 * samples back to back for {@code seconds}, as fast as the server answers. Each request carries
 * {@value #SAMPLES_PER_SERIES} consecutive samples (1 s apart) of each of the sender's
 * {@code samplesPerRequest / 100} series, so the store receives new samples, not duplicates, and
 * the series count stays fixed: what grows is the rate, not the cardinality. A 5xx or 429
 * answer is retried with the same body after its {@code Retry-After} or Prometheus's backoff
 * (30 ms doubling to 5 s), as Prometheus's queue manager does; any other non-2xx counts as
 * dropped. Meanwhile the server's resident set ({@code VmRSS} of {@code /proc/PID/status}) is
 * read every 100 ms.
 *
 * <p>usage: {@code java -cp api/target/test-classes:api/target/classes:$(cat
 * api/target/jmh.classpath) io.inferlens.api.OverloadLoad URL PID [SENDERS] [SAMPLES_PER_REQUEST]
 * [SECONDS]} (classpath file from {@code scripts/jmh.sh api -l}). Prints the samples sent and
 * acknowledged, the answers by status, the request latency (ms: p50, p99, max, of every attempt)
 * and the server's peak RSS (MiB; {@code VmHWM} at the end, which counts since the process
 * started).
 */
public final class OverloadLoad {

  /** Samples of each series in one request, 1 s apart. */
  static final int SAMPLES_PER_SERIES = 100;

  /** Samples per series in a request for this run (main's 6th argument); tests use the default. */
  private static int perSeries = SAMPLES_PER_SERIES;

  /**
   * What one run measured.
   *
   * @param sentSamples samples in requests sent at least once
   * @param ackedSamples samples in requests answered 2xx
   * @param droppedSamples samples in requests answered a non-retried error (4xx but 429)
   * @param statuses answers by HTTP status, every attempt; -1 counts I/O errors and timeouts
   * @param latencyMs latency of every attempt, milliseconds, ascending
   * @param peakRssBytes highest {@code VmRSS} seen while sending, bytes (0 without a PID)
   * @param hwmBytes the server's {@code VmHWM} after the run, bytes (0 without a PID)
   * @param firstMs the earliest sample timestamp sent, epoch milliseconds
   * @param lastMs the latest sample timestamp sent, epoch milliseconds
   */
  record Result(long sentSamples, long ackedSamples, long droppedSamples,
      Map<Integer, Long> statuses, long[] latencyMs, long peakRssBytes, long hwmBytes,
      long firstMs, long lastMs) {

    /** @return latency at quantile {@code q} in [0, 1], milliseconds; 0 without requests */
    long latencyQuantileMs(double q) {
      if (latencyMs.length == 0) {
        return 0;
      }
      return latencyMs[(int) Math.min(latencyMs.length - 1, Math.floor(q * latencyMs.length))];
    }

    @Override
    public String toString() {
      return String.format("sent %,d samples, acknowledged %,d, dropped %,d; answers %s;"
          + " latency ms p50 %d p99 %d max %d; peak RSS %d MiB (VmRSS while sending),"
          + " VmHWM %d MiB", sentSamples, ackedSamples, droppedSamples, statuses,
          latencyQuantileMs(0.5), latencyQuantileMs(0.99),
          latencyMs.length == 0 ? 0 : latencyMs[latencyMs.length - 1],
          peakRssBytes >> 20, hwmBytes >> 20);
    }
  }

  /** The first error answer's status and body, for the report. */
  static final java.util.concurrent.atomic.AtomicReference<String> FIRST_ERROR =
      new java.util.concurrent.atomic.AtomicReference<>();

  private OverloadLoad() {}

  /**
   * @param args URL, PID of the server (0: no RSS), senders (32), samples per request
   *     (250,000), seconds (60)
   * @throws Exception if the run is interrupted
   */
  public static void main(String[] args) throws Exception {
    URI base = URI.create(args[0]);
    long pid = Long.parseLong(args[1]);
    int senders = args.length > 2 ? Integer.parseInt(args[2]) : 32;
    int perRequest = args.length > 3 ? Integer.parseInt(args[3]) : 250_000;
    int seconds = args.length > 4 ? Integer.parseInt(args[4]) : 60;
    perSeries = args.length > 5 ? Integer.parseInt(args[5]) : SAMPLES_PER_SERIES;
    System.out.println(run(base, pid, senders, perRequest, Duration.ofSeconds(seconds)));
    if (FIRST_ERROR.get() != null) {
      System.out.println("first error: " + FIRST_ERROR.get());
    }
  }

  /**
   * Runs the load; returns once every sender's last request was answered (or gave up after
   * its retries: at most 60 s past {@code duration}).
   *
   * @param base the server, e.g. {@code http://127.0.0.1:9201}
   * @param pid the server's process id, for its RSS; 0 to skip
   * @param senders concurrent senders, &ge; 1
   * @param samplesPerRequest samples per request, a multiple of {@value #SAMPLES_PER_SERIES}
   * @param duration how long to start new requests
   * @return what was sent, acknowledged and measured
   * @throws InterruptedException if interrupted
   */
  static Result run(URI base, long pid, int senders, int samplesPerRequest, Duration duration)
      throws InterruptedException {
    int seriesPerSender = samplesPerRequest / perSeries;
    long firstMs = (System.currentTimeMillis() - 3 * 3_600_000L) / 1000 * 1000;
    AtomicLong sent = new AtomicLong();
    AtomicLong acked = new AtomicLong();
    AtomicLong dropped = new AtomicLong();
    AtomicLong lastMs = new AtomicLong(firstMs);
    Map<Integer, AtomicLong> statuses = new ConcurrentHashMap<>();
    List<long[]> latencies = new ArrayList<>();
    long stopAt = System.nanoTime() + duration.toNanos();
    long giveUpAt = stopAt + Duration.ofSeconds(60).toNanos();
    AtomicLong peak = new AtomicLong();
    Thread rss = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        peak.accumulateAndGet(procStatusBytes(pid, "VmRSS:"), Math::max);
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "overload-rss");
    rss.setDaemon(true);
    if (pid > 0) {
      rss.start();
    }
    List<Thread> threads = new ArrayList<>();
    int[] done = new int[senders];
    for (int s = 0; s < senders; s++) {
      int sender = s;
      long[] lat = new long[1 << 16];
      latencies.add(lat);
      Thread t = new Thread(() -> {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
        byte[][] labels = labelBytes(sender, seriesPerSender);
        int n = 0;
        for (long k = 0; System.nanoTime() < stopAt; k++) {
          long t0 = firstMs + k * perSeries * 1000L;
          byte[] body = body(labels, t0, k);
          sent.addAndGet(samplesPerRequest);
          lastMs.accumulateAndGet(t0 + (perSeries - 1) * 1000L, Math::max);
          long backoffMs = 30;
          while (true) {
            long a = System.nanoTime();
            int status = post(http, base, body);
            if (n < lat.length) {
              lat[n++] = (System.nanoTime() - a) / 1_000_000;
            }
            statuses.computeIfAbsent(status, x -> new AtomicLong()).incrementAndGet();
            if (status >= 200 && status < 300) {
              acked.addAndGet(samplesPerRequest);
              break;
            }
            if (status != 429 && status < 500 && status != -1) {
              dropped.addAndGet(samplesPerRequest);
              break;
            }
            if (System.nanoTime() > giveUpAt) {
              done[sender] = n;
              return;
            }
            sleep(backoffMs);
            backoffMs = Math.min(5_000, backoffMs * 2);
          }
        }
        done[sender] = n;
      }, "overload-sender-" + s);
      threads.add(t);
      t.start();
    }
    for (Thread t : threads) {
      t.join();
    }
    rss.interrupt();
    long[] all = new long[0];
    for (int s = 0; s < senders; s++) {
      long[] l = latencies.get(s);
      int from = all.length;
      all = Arrays.copyOf(all, from + done[s]);
      System.arraycopy(l, 0, all, from, done[s]);
    }
    Arrays.sort(all);
    Map<Integer, Long> counts = new TreeMap<>();
    statuses.forEach((k, v) -> counts.put(k, v.get()));
    return new Result(sent.get(), acked.get(), dropped.get(), counts, all, peak.get(),
        procStatusBytes(pid, "VmHWM:"), firstMs, lastMs.get());
  }

  private static int post(HttpClient http, URI base, byte[] body) {
    HttpRequest r = HttpRequest.newBuilder(base.resolve("/api/v1/write"))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/x-protobuf")
        .header("Content-Encoding", "snappy")
        .header("X-Prometheus-Remote-Write-Version", "0.1.0")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    try {
      HttpResponse<String> a = http.send(r, HttpResponse.BodyHandlers.ofString());
      if (a.statusCode() >= 400) {
        FIRST_ERROR.compareAndSet(null, a.statusCode() + " " + a.body().strip());
      }
      return a.statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Each series' encoded {@code repeated Label labels = 1} fields. */
  private static byte[][] labelBytes(int sender, int series) {
    byte[][] out = new byte[series][];
    for (int i = 0; i < series; i++) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      label(b, "__name__", "overload_load_" + sender + "_" + i % 8);
      label(b, "instance", "sender-" + sender);
      label(b, "series", Integer.toString(i));
      out[i] = b.toByteArray();
    }
    return out;
  }

  private static void label(ByteArrayOutputStream out, String name, String value) {
    byte[] n = name.getBytes(StandardCharsets.UTF_8);
    byte[] v = value.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream l = new ByteArrayOutputStream();
    l.write(0x0a);
    varint(l, n.length);
    l.writeBytes(n);
    l.write(0x12);
    varint(l, v.length);
    l.writeBytes(v);
    out.write(0x0a);
    varint(out, l.size());
    out.writeBytes(l.toByteArray());
  }

  /**
   * A snappy-compressed remote-write 1.0 {@code WriteRequest}, encoded by hand from the
   * published field numbers (TimeSeries = 1; Label = 1, Sample = 2; value = 1, timestamp = 2)
   * because building 250,000 protobuf objects per request would make the sender, not the
   * server, the bottleneck on a 2-core machine.
   */
  private static byte[] body(byte[][] labels, long t0Ms, long k) {
    ByteArrayOutputStream req = new ByteArrayOutputStream(labels.length * 180);
    ByteArrayOutputStream ts = new ByteArrayOutputStream(256);
    for (int i = 0; i < labels.length; i++) {
      ts.reset();
      ts.writeBytes(labels[i]);
      for (int j = 0; j < perSeries; j++) {
        long t = t0Ms + j * 1000L;
        double v = (k * perSeries + j) * 0.5 + i;
        ts.write(0x12);
        ts.write(9 + 1 + varintSize(t));
        ts.write(0x09);
        long bits = Double.doubleToRawLongBits(v);
        for (int b = 0; b < 8; b++) {
          ts.write((int) (bits >>> (8 * b)) & 0xff);
        }
        ts.write(0x10);
        varint(ts, t);
      }
      req.write(0x0a);
      varint(req, ts.size());
      req.writeBytes(ts.toByteArray());
    }
    try {
      return Snappy.compress(req.toByteArray());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private static int varintSize(long v) {
    int n = 1;
    while ((v & ~0x7fL) != 0) {
      n++;
      v >>>= 7;
    }
    return n;
  }

  /** @return the named field of {@code /proc/PID/status} in bytes, 0 if unreadable */
  static long procStatusBytes(long pid, String field) {
    if (pid <= 0) {
      return 0;
    }
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith(field)) {
          return Long.parseLong(line.substring(field.length()).trim().split("\\s+")[0]) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    return 0;
  }
}
