import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The label bomb of issue 20 against a running receiver, with a well-behaved fleet writing beside
 * it: measures the fleet's write latency (p50, p99, max in milliseconds) and answers before,
 * during and after the bomb, and the receiver's RSS (VmRSS, VmHWM in MiB) every second.
 *
 * <p>The fleet: {@code TARGETS} targets × 200 series, one sample per series every second (a 1 s
 * scrape interval, one remote-write request of 2,000 samples per 10 targets). The bomb: one
 * metric {@code llm_user_requests_total} with a new {@code user_id} value per series,
 * {@code BOMB_SERIES} series in {@code BOMB_SECONDS} seconds, 2,000 series per request.
 *
 * <p>usage: {@code java -cp snappy-java.jar scripts/LabelBomb.java URL RECEIVER_PID [TARGETS
 * [BOMB_SERIES [BOMB_SECONDS]]]}, defaults 100 targets, 300,000 series, 60 s; phases 60 s each.
 * Prints one line per second (RSS) and a summary per phase. Needs snappy-java on the class path.
 */
public final class LabelBomb {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  public static void main(String[] args) throws Exception {
    String url = args[0];
    String pid = args[1];
    int targets = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    int bombSeries = args.length > 3 ? Integer.parseInt(args[3]) : 300_000;
    int bombSeconds = args.length > 4 ? Integer.parseInt(args[4]) : 60;
    long start = System.currentTimeMillis();
    String[] phase = {"before"};
    List<long[]> lat = new ArrayList<>(); // {phaseIndex, latencyMicros, status}
    AtomicLong fleetFailures = new AtomicLong();
    Thread fleet = new Thread(() -> {
      int second = 0;
      while (!phase[0].equals("done")) {
        long t0 = start + second * 1000L;
        for (int g = 0; g < targets; g += 10) {
          byte[] body = fleetRequest(g, Math.min(targets, g + 10), t0);
          long s = System.nanoTime();
          int status = post(url, body);
          long us = (System.nanoTime() - s) / 1000;
          synchronized (lat) {
            lat.add(new long[] {phaseIndex(phase[0]), us, status});
          }
          if (status / 100 != 2) {
            fleetFailures.incrementAndGet();
          }
        }
        second++;
        long sleep = start + second * 1000L - System.currentTimeMillis();
        if (sleep > 0) {
          try {
            Thread.sleep(sleep);
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }, "fleet");
    Thread rss = new Thread(() -> {
      while (!phase[0].equals("done")) {
        System.out.printf("t=%3ds phase=%-6s %s%n", (System.currentTimeMillis() - start) / 1000,
            phase[0], rss(pid));
        try {
          Thread.sleep(1000);
        } catch (InterruptedException e) {
          return;
        }
      }
    }, "rss");
    fleet.start();
    rss.start();
    Thread.sleep(60_000);
    phase[0] = "bomb";
    long bombStart = System.currentTimeMillis();
    int sent = 0;
    int requests = 0;
    int[] answers = new int[6];
    String firstRefusal = null;
    while (sent < bombSeries) {
      int n = Math.min(2000, bombSeries - sent);
      byte[] body = bombRequest(sent, n, System.currentTimeMillis());
      HttpResponse<String> r = postForBody(url, body);
      answers[r.statusCode() / 100]++;
      if (r.statusCode() == 400 && firstRefusal == null) {
        firstRefusal = "after " + sent + " series: " + r.body();
      }
      sent += n;
      requests++;
      long due = bombStart + (long) sent * bombSeconds * 1000 / bombSeries;
      long sleep = due - System.currentTimeMillis();
      if (sleep > 0) {
        Thread.sleep(sleep);
      }
    }
    System.out.printf("bomb: %d series in %d requests, %.1f s; answers 2xx=%d 4xx=%d 5xx=%d%n",
        sent, requests, (System.currentTimeMillis() - bombStart) / 1000.0, answers[2], answers[4],
        answers[5]);
    System.out.println("bomb: first refusal " + firstRefusal);
    phase[0] = "after";
    Thread.sleep(60_000);
    phase[0] = "done";
    fleet.join();
    rss.join();
    String[] names = {"before", "bomb", "after"};
    for (int p = 0; p < 3; p++) {
      long[] us;
      int bad = 0;
      synchronized (lat) {
        final int pp = p;
        us = lat.stream().filter(l -> l[0] == pp).mapToLong(l -> l[1]).sorted().toArray();
        for (long[] l : lat) {
          if (l[0] == p && l[2] / 100 != 2) {
            bad++;
          }
        }
      }
      if (us.length == 0) {
        continue;
      }
      System.out.printf("fleet %-6s: %d requests, non-2xx %d, p50 %.1f ms, p99 %.1f ms, max %.1f"
              + " ms%n", names[p], us.length, bad, us[us.length / 2] / 1000.0,
          us[(int) Math.min(us.length - 1, Math.ceil(us.length * 0.99) - 1)] / 1000.0,
          us[us.length - 1] / 1000.0);
    }
    System.out.println("final " + rss(pid) + ", fleet failures " + fleetFailures.get());
  }

  private static long phaseIndex(String p) {
    return switch (p) {
      case "before" -> 0;
      case "bomb" -> 1;
      default -> 2;
    };
  }

  /** 200 series per target: 20 metrics × 10 label combinations, every value the second. */
  private static byte[] fleetRequest(int fromTarget, int toTarget, long tsMs) {
    ByteArrayOutputStream w = new ByteArrayOutputStream();
    for (int t = fromTarget; t < toTarget; t++) {
      for (int m = 0; m < 20; m++) {
        for (int k = 0; k < 10; k++) {
          series(w, new String[] {"__name__", "fleet_metric_" + m, "instance",
              "10.0.0." + t + ":8000", "job", "vllm", "le", Integer.toString(k)},
              tsMs / 1000.0 + m, tsMs);
        }
      }
    }
    return snappy(w.toByteArray());
  }

  private static byte[] bombRequest(int from, int n, long tsMs) {
    ByteArrayOutputStream w = new ByteArrayOutputStream();
    for (int i = from; i < from + n; i++) {
      series(w, new String[] {"__name__", "llm_user_requests_total", "instance", "10.0.1.1:8000",
          "job", "gateway", "user_id", "user-" + i}, 1, tsMs);
    }
    return snappy(w.toByteArray());
  }

  /** WriteRequest.timeseries (1): TimeSeries{labels (1): Label{name 1, value 2}, samples (2)}. */
  private static void series(ByteArrayOutputStream out, String[] labels, double v, long ts) {
    ByteArrayOutputStream s = new ByteArrayOutputStream();
    for (int i = 0; i < labels.length; i += 2) {
      ByteArrayOutputStream l = new ByteArrayOutputStream();
      bytesField(l, 1, labels[i].getBytes(StandardCharsets.UTF_8));
      bytesField(l, 2, labels[i + 1].getBytes(StandardCharsets.UTF_8));
      bytesField(s, 1, l.toByteArray());
    }
    ByteArrayOutputStream smp = new ByteArrayOutputStream();
    smp.write(0x09);
    long bits = Double.doubleToRawLongBits(v);
    for (int i = 0; i < 8; i++) {
      smp.write((int) (bits >>> (8 * i)));
    }
    smp.write(0x10);
    varint(smp, ts);
    bytesField(s, 2, smp.toByteArray());
    bytesField(out, 1, s.toByteArray());
  }

  private static void bytesField(ByteArrayOutputStream out, int field, byte[] b) {
    varint(out, (field << 3) | 2);
    varint(out, b.length);
    out.writeBytes(b);
  }

  private static void varint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  private static byte[] snappy(byte[] raw) {
    try {
      return org.xerial.snappy.Snappy.compress(raw);
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int post(String url, byte[] body) {
    try {
      return postForBody(url, body).statusCode();
    } catch (Exception e) {
      return 599;
    }
  }

  private static HttpResponse<String> postForBody(String url, byte[] body) throws Exception {
    HttpRequest req = HttpRequest.newBuilder(URI.create(url))
        .header("Content-Type", "application/x-protobuf")
        .header("Content-Encoding", "snappy")
        .header("X-Prometheus-Remote-Write-Version", "0.1.0")
        .timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    return HTTP.send(req, HttpResponse.BodyHandlers.ofString());
  }

  private static String rss(String pid) {
    try {
      List<String> lines = java.nio.file.Files.readAllLines(
          java.nio.file.Path.of("/proc/" + pid + "/status"));
      String[] keep = {"VmRSS", "VmHWM"};
      StringBuilder b = new StringBuilder();
      for (String l : lines) {
        for (String k : keep) {
          if (l.startsWith(k + ":")) {
            long kb = Long.parseLong(l.replaceAll("[^0-9]", ""));
            b.append(k).append('=').append(kb / 1024).append(" MiB ");
          }
        }
      }
      return b.toString().trim();
    } catch (Exception e) {
      return "rss unavailable (" + e.getMessage() + ")";
    }
  }

  private LabelBomb() {}
}
