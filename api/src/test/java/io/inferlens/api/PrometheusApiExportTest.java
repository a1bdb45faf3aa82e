package io.inferlens.api;

import static io.inferlens.api.Requests.enc;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.StoreOptions;
import io.inferlens.storage.TimeSeriesStore;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpResponse.BodyHandlers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /api/v1/export} streamed in bounded memory, against servers in their own JVMs: an export
 * several times the server's heap, {@code --max-export-samples} before and after the response's
 * first MiB, and a client that leaves early.
 */
class PrometheusApiExportTest {

  /**
   * The servers' heap: the smallest with which a server starts, takes a remote write and exports
   * this test's data (24 MiB fails with OutOfMemoryError).
   */
  static final String HEAP = "-Xmx32m";
  /** 1,000 series of 4,000 samples: about 95 MB of JSON lines, three times {@link #HEAP}. */
  static final int BIG_SERIES = 1_000;
  static final int BIG_SAMPLES = 4_000;
  static final long STEP_MS = 15_000;
  /** The limited server's {@code --max-export-samples}. */
  static final long LIMIT = 5_000;

  @TempDir static Path dir;
  static final long NOW = System.currentTimeMillis();
  /** First sample of every series: 20 hours back, on a 15 s boundary. */
  static final long T0 = (NOW - 20 * 3_600_000L) / STEP_MS * STEP_MS;
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  static final ObjectMapper JSON = new ObjectMapper();

  static Process big;
  static URI bigBase;
  static Path bigLog;
  static Process limited;
  static URI limitedBase;
  static Path limitedLog;

  @BeforeAll
  static void start() throws Exception {
    Path bigData = dir.resolve("big");
    try (TimeSeriesStore s = TimeSeriesStore.open(StoreOptions.defaults(bigData))) {
      for (int from = 0; from < BIG_SERIES; from += 100) {
        List<SeriesWrite> writes = new ArrayList<>();
        for (int k = from; k < from + 100; k++) {
          writes.add(series(LabelSet.of("__name__", "export_big", "series", id(k)), BIG_SAMPLES,
              k));
        }
        s.append(writes);
      }
    }
    Path limitedData = dir.resolve("limited");
    try (TimeSeriesStore s = TimeSeriesStore.open(StoreOptions.defaults(limitedData))) {
      List<SeriesWrite> writes = new ArrayList<>();
      for (int k = 0; k < 10; k++) {
        writes.add(series(LabelSet.of("__name__", "export_thin", "series", id(k)), 3_000, k));
      }
      // 3 KB a series of 10 samples: the limit's 5,000 samples come after the first MiB.
      for (int k = 0; k < 1_000; k++) {
        writes.add(series(LabelSet.of("__name__", "export_fat", "series", id(k), "pad",
            "p".repeat(3_000)), 10, k));
      }
      s.append(writes);
    }
    int bigPort = ExternalProcesses.freePort();
    bigLog = dir.resolve("big.log");
    big = ExternalProcesses.startInferLens(List.of(HEAP), bigPort, bigData, bigLog,
        "--eval-interval", "0s");
    int limitedPort = ExternalProcesses.freePort();
    limitedLog = dir.resolve("limited.log");
    limited = ExternalProcesses.startInferLens(List.of(HEAP), limitedPort, limitedData,
        limitedLog, "--eval-interval", "0s", "--max-export-samples", String.valueOf(LIMIT));
    bigBase = URI.create("http://127.0.0.1:" + bigPort);
    limitedBase = URI.create("http://127.0.0.1:" + limitedPort);
    ExternalProcesses.awaitOk(bigBase.resolve("/-/ready"), big, Duration.ofSeconds(60), bigLog);
    ExternalProcesses.awaitOk(limitedBase.resolve("/-/ready"), limited, Duration.ofSeconds(60),
        limitedLog);
    // The heap is a working server's: it takes a remote write of 10,000 samples.
    TimeSeries[] written = new TimeSeries[100];
    for (int k = 0; k < written.length; k++) {
      long[] ts = new long[100];
      double[] vs = new double[100];
      for (int i = 0; i < ts.length; i++) {
        ts[i] = NOW - 3_600_000L + i * STEP_MS;
        vs[i] = i;
      }
      written[k] = Requests.series(new String[] {"__name__", "export_written", "series", id(k)},
          ts, vs);
    }
    assertThat(Requests.write(bigBase, Requests.request(written)).statusCode()).isEqualTo(204);
  }

  @AfterAll
  static void stop() throws Exception {
    ExternalProcesses.stop(big);
    ExternalProcesses.stop(limited);
  }

  static String id(int k) {
    return String.format("%04d", k);
  }

  /** Series {@code k}: {@code n} samples from {@link #T0} every 15 s, value k·n + i + 0.5. */
  static SeriesWrite series(LabelSet labels, int n, int k) {
    long[] ts = new long[n];
    long[] bits = new long[n];
    for (int i = 0; i < n; i++) {
      ts[i] = T0 + i * STEP_MS;
      bits[i] = Double.doubleToRawLongBits((double) k * n + i + 0.5);
    }
    return new SeriesWrite(labels, ts, bits, n);
  }

  static HttpResponse<InputStream> export(URI base, String selector) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(base.resolve("/api/v1/export?match[]="
        + enc(selector) + "&start=" + (NOW - 30 * 3_600_000L) / 1000 + "&end=" + NOW / 1000))
        .timeout(Duration.ofSeconds(60)).build(), BodyHandlers.ofInputStream());
  }

  @Test
  void exportLargerThanTheHeapStreamsEverySeriesAndSample() throws Exception {
    HttpResponse<InputStream> r = export(bigBase, "export_big");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValueSatisfying(
        v -> assertThat(v).startsWith("application/x-ndjson"));
    BitSet seen = new BitSet(BIG_SERIES);
    long samples = 0;
    long bytes = 0;
    JsonFactory f = new JsonFactory();
    try (BufferedReader in = new BufferedReader(
        new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        bytes += line.length() + 1;
        // Streaming parse: the test holds one line at a time, never the body.
        int k = -1;
        int values = 0;
        int stamps = 0;
        try (JsonParser p = f.createParser(line)) {
          String field = null;
          while (p.nextToken() != null) {
            if (p.currentToken() == JsonToken.FIELD_NAME) {
              field = p.currentName();
            } else if (p.currentToken() == JsonToken.VALUE_STRING && "series".equals(field)) {
              k = Integer.parseInt(p.getText());
            } else if (p.currentToken() == JsonToken.VALUE_NUMBER_FLOAT && "values".equals(field)) {
              assertThat(p.getDoubleValue()).isEqualTo((double) k * BIG_SAMPLES + values + 0.5);
              values++;
            } else if (p.currentToken() == JsonToken.VALUE_NUMBER_INT
                && "timestamps".equals(field)) {
              assertThat(p.getLongValue()).isEqualTo(T0 + stamps * STEP_MS);
              stamps++;
            }
          }
        }
        assertThat(k).isBetween(0, BIG_SERIES - 1);
        assertThat(seen.get(k)).as("series %d twice", k).isFalse();
        seen.set(k);
        assertThat(values).isEqualTo(BIG_SAMPLES);
        assertThat(stamps).isEqualTo(BIG_SAMPLES);
        samples += values;
      }
    }
    assertThat(seen.cardinality()).isEqualTo(BIG_SERIES);
    assertThat(samples).isEqualTo((long) BIG_SERIES * BIG_SAMPLES);
    assertThat(bytes).isGreaterThan(64L << 20); // twice the server's whole heap
    assertThat(big.isAlive()).isTrue();
    assertThat(Requests.get(bigBase.resolve("/-/ready")).statusCode()).isEqualTo(200);
  }

  @Test
  void seriesOfSeveralMatchersAreWrittenOnce() throws Exception {
    HttpResponse<String> s = HTTP.send(HttpRequest.newBuilder(bigBase.resolve(
        "/api/v1/export?match[]=" + enc("export_big{series=~\"000[0-4]\"}") + "&match[]="
            + enc("export_big{series=~\"000[3-7]\"}") + "&start=" + (NOW - 30 * 3_600_000L) / 1000
            + "&end=" + NOW / 1000)).build(), BodyHandlers.ofString());
    assertThat(s.statusCode()).isEqualTo(200);
    List<String> order = new ArrayList<>();
    for (String line : s.body().split("\n")) {
      order.add(JSON.readTree(line).get("metric").get("series").asText());
    }
    assertThat(order).containsExactly("0000", "0001", "0002", "0003", "0004", "0005", "0006",
        "0007");
  }

  @Test
  void exportPastTheLimitWithinTheFirstMebibyteAnswers422NamingTheFlag() throws Exception {
    HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(limitedBase.resolve(
        "/api/v1/export?match[]=export_thin&start=" + (NOW - 30 * 3_600_000L) / 1000 + "&end="
            + NOW / 1000)).build(), BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(422);
    JsonNode n = JSON.readTree(r.body());
    assertThat(n.get("status").asText()).isEqualTo("error");
    assertThat(n.get("errorType").asText()).isEqualTo("execution");
    assertThat(n.get("error").asText()).contains("--max-export-samples=" + LIMIT)
        .contains("export_thin");
    // Within the limit the same server answers in full.
    HttpResponse<String> ok = HTTP.send(HttpRequest.newBuilder(limitedBase.resolve(
        "/api/v1/export?match[]=" + enc("export_thin{series=\"0001\"}") + "&start="
            + (NOW - 30 * 3_600_000L) / 1000 + "&end=" + NOW / 1000)).build(),
        BodyHandlers.ofString());
    assertThat(ok.statusCode()).isEqualTo(200);
    // Byte for byte VictoriaMetrics's line, as the export wrote it before it streamed.
    StringBuilder values = new StringBuilder();
    StringBuilder stamps = new StringBuilder();
    for (int i = 0; i < 3_000; i++) {
      values.append(i == 0 ? "" : ",").append(3_000 + i + 0.5);
      stamps.append(i == 0 ? "" : ",").append(T0 + i * STEP_MS);
    }
    assertThat(ok.body()).isEqualTo("{\"metric\":{\"__name__\":\"export_thin\",\"series\":"
        + "\"0001\"},\"values\":[" + values + "],\"timestamps\":[" + stamps + "]}\n");
    assertThat(ok.headers().firstValueAsLong("content-length")).hasValue(ok.body().length());
  }

  @Test
  void exportPastTheLimitAfterTheFirstMebibyteIsCutOff() throws Exception {
    HttpResponse<InputStream> r = export(limitedBase, "export_fat");
    assertThat(r.statusCode()).isEqualTo(200);
    long[] read = {0};
    assertThatThrownBy(() -> {
      try (InputStream in = r.body()) {
        byte[] buf = new byte[64 << 10];
        int n;
        while ((n = in.read(buf)) >= 0) {
          read[0] += n;
        }
      }
    }).isInstanceOf(IOException.class);
    // Cut at the series that would pass 5,000 samples: 500 series of about 3 KB.
    assertThat(read[0]).isGreaterThan(1L << 20).isLessThan(3L << 20);
    String warning = awaitLog(limitedLog, "exceeds --max-export-samples=" + LIMIT);
    assertThat(warning).contains("WARN").contains("match[]=[export_fat]");
    // One warning: Armeria adds none of its own (no stack trace) for the cut.
    assertThat(Files.readAllLines(limitedLog)).filteredOn(l -> l.contains("WARN")).hasSize(1);
    assertThat(limited.isAlive()).isTrue();
    assertThat(Requests.get(limitedBase.resolve("/-/ready")).statusCode()).isEqualTo(200);
  }

  @Test
  void clientThatLeavesEarlyStopsTheRead() throws Exception {
    HttpResponse<InputStream> r = export(bigBase, "{__name__=\"export_big\",series=~\"0.*\"}");
    assertThat(r.statusCode()).isEqualTo(200);
    try (InputStream in = r.body()) {
      assertThat(in.readNBytes(2 << 20)).hasSize(2 << 20);
    }
    String line = awaitLog(bigLog, "series=~\"0.*\"}] stopped after");
    assertThat(line).contains("INFO").contains("the client is gone");
    assertThat(Files.readAllLines(bigLog))
        .noneMatch(l -> l.contains("WARN") || l.contains("ERROR"));
    assertThat(Requests.get(bigBase.resolve("/-/ready")).statusCode()).isEqualTo(200);
  }

  /** @return the first line of {@code log} containing {@code text}, waiting up to 30 s */
  static String awaitLog(Path log, String text) throws Exception {
    for (int i = 0; i < 300; i++) {
      for (String line : Files.readAllLines(log)) {
        if (line.contains(text)) {
          return line;
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no line with " + text + " in 30 s; log:\n"
        + ExternalProcesses.tail(log));
  }
}
