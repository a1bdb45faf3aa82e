import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The cost of tenants (issue 20, item 6) against a running receiver: {@code TENANTS} tenants,
 * each with {@code SERIES} series (vLLM- and DCGM-shaped names, 200 per target), one sample per
 * series every second for {@code SECONDS} seconds, remote-written with {@code X-Scope-OrgID:
 * tenant-N} (none when {@code TENANTS} is 0: one store, {@code SERIES} series). Each second's
 * requests go out in order, {@code BATCH} samples each (default 2,000, a Prometheus shard's
 * {@code max_samples_per_send}).
 *
 * <p>usage: {@code java -cp snappy-java.jar scripts/TenantLoad.java URL RECEIVER_PID TENANTS
 * SERIES SECONDS [BATCH]}. Prints the receiver's RSS (VmRSS, VmHWM MiB), threads and CPU seconds
 * (utime + stime) every 10 s, then one summary line: requests, failures, write latency p50 /
 * p99 / max in ms, CPU-s per 1M samples, peak RSS.
 */
public final class TenantLoad {
  private static final HttpClient HTTP = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
  private static final String[] NAMES = {"vllm:num_requests_running",
      "vllm:num_requests_waiting", "vllm:kv_cache_usage_perc", "vllm:prompt_tokens_total",
      "vllm:generation_tokens_total", "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED",
      "DCGM_FI_DEV_POWER_USAGE"};

  public static void main(String[] args) throws Exception {
    String url = args[0];
    String pid = args[1];
    int tenants = Integer.parseInt(args[2]);
    int series = Integer.parseInt(args[3]);
    int seconds = Integer.parseInt(args[4]);
    int batch = args.length > 5 ? Integer.parseInt(args[5]) : 2000;
    int streams = Math.max(1, tenants);
    long start = System.currentTimeMillis() / 1000 * 1000;
    List<Long> latencies = new ArrayList<>();
    long failures = 0;
    long samples = 0;
    double cpu0 = cpuSeconds(pid);
    for (int s = 0; s < seconds; s++) {
      long ts = start + s * 1000L;
      for (int t = 0; t < streams; t++) {
        for (int from = 0; from < series; from += batch) {
          int to = Math.min(series, from + batch);
          byte[] body = request(t, from, to, ts, s);
          long n0 = System.nanoTime();
          int status = post(url, body, tenants == 0 ? null : "tenant-" + t);
          latencies.add((System.nanoTime() - n0) / 1000);
          if (status / 100 != 2) {
            failures++;
          } else {
            samples += to - from;
          }
        }
      }
      if (s % 10 == 9) {
        System.out.printf("t=%ds %s threads=%s cpu_s=%.1f%n", s + 1, rss(pid),
            status(pid, "Threads:"), cpuSeconds(pid) - cpu0);
      }
      long sleep = start + (s + 1) * 1000L - System.currentTimeMillis();
      if (sleep > 0) {
        Thread.sleep(sleep);
      }
    }
    double cpu = cpuSeconds(pid) - cpu0;
    long[] us = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
    System.out.printf("tenants=%d series/tenant=%d seconds=%d requests=%d failed=%d samples=%d "
        + "p50_ms=%.1f p99_ms=%.1f max_ms=%.1f cpu_s_per_1M=%.2f %s threads=%s%n", tenants, series,
        seconds, us.length, failures, samples, pct(us, 0.5), pct(us, 0.99),
        us[us.length - 1] / 1000.0, cpu / (samples / 1e6), rss(pid), status(pid, "Threads:"));
  }

  private static double pct(long[] sorted, double q) {
    return sorted[(int) Math.min(sorted.length - 1, Math.floor(q * sorted.length))] / 1000.0;
  }

  private static String rss(String pid) throws Exception {
    return "rss_mib=" + kb(status(pid, "VmRSS:")) / 1024 + " hwm_mib="
        + kb(status(pid, "VmHWM:")) / 1024;
  }

  private static long kb(String v) {
    return Long.parseLong(v.replace("kB", "").trim());
  }

  private static String status(String pid, String key) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc", pid, "status"))) {
      if (line.startsWith(key)) {
        return line.substring(key.length()).trim();
      }
    }
    return "?";
  }

  private static double cpuSeconds(String pid) throws Exception {
    String stat = Files.readString(Path.of("/proc", pid, "stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
  }

  private static int post(String url, byte[] body, String tenant) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/x-protobuf")
        .header("Content-Encoding", "snappy")
        .header("X-Prometheus-Remote-Write-Version", "0.1.0")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (tenant != null) {
      b.header("X-Scope-OrgID", tenant);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  /** Series {@code from..to} of stream {@code t} at {@code ts}: a WriteRequest, snappy block. */
  private static byte[] request(int t, int from, int to, long ts, int second) throws Exception {
    ByteArrayOutputStream req = new ByteArrayOutputStream();
    for (int i = from; i < to; i++) {
      ByteArrayOutputStream one = new ByteArrayOutputStream();
      int target = i / 200;
      int k = i % 200;
      label(one, "__name__", NAMES[k % NAMES.length]);
      label(one, "gpu", Integer.toString(k / NAMES.length));
      label(one, "instance", "10." + t / 250 + "." + t % 250 + "." + target + ":8000");
      label(one, "job", "vllm");
      ByteArrayOutputStream sample = new ByteArrayOutputStream();
      sample.write(0x09); // value, fixed64
      long bits = Double.doubleToLongBits((k * 7 + second) % 100);
      for (int b = 0; b < 8; b++) {
        sample.write((int) (bits >>> (8 * b)));
      }
      sample.write(0x10); // timestamp, varint
      varint(sample, ts);
      one.write(0x12);
      varint(one, sample.size());
      sample.writeTo(one);
      req.write(0x0a);
      varint(req, one.size());
      one.writeTo(req);
    }
    Class<?> snappy = Class.forName("org.xerial.snappy.Snappy");
    return (byte[]) snappy.getMethod("compress", byte[].class).invoke(null, req.toByteArray());
  }

  private static void label(ByteArrayOutputStream out, String name, String value)
      throws java.io.IOException {
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
    l.writeTo(out);
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7fL) != 0) {
      out.write((int) ((v & 0x7f) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private TenantLoad() {}
}
