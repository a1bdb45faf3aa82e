package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.analysis.promql.StepRange;
import io.inferlens.proto.prometheus.Remote.ChunkedReadResponse;
import io.inferlens.proto.prometheus.Remote.ReadRequest;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types.Chunk;
import io.inferlens.proto.prometheus.Types.ChunkedSeries;
import io.inferlens.proto.prometheus.Types.LabelMatcher;
import io.inferlens.storage.chunk.XorChunk;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Remote read against the real Prometheus (Debian's 2.42): the deterministic samples of
 * {@link PromqlParityData} (40 min of 15 s scrapes: a counter with a reset, a jittered gauge with
 * a stale marker, a histogram's {@code _bucket{le}} for two engines, one of which restarts) are
 * remote-written to InferLens and to a reference Prometheus (its remote-write receiver), in time
 * order. A second Prometheus with no local data and {@code remote_read} pointed at InferLens
 * evaluates PromQL with {@code query_range}; every result must equal the reference's: same
 * series, same step timestamps, values within a relative 1e-12 (NaN where it is NaN).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RemoteReadPrometheusTest {

  static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  static final ObjectMapper JSON = new ObjectMapper();
  static final double RELATIVE_TOLERANCE = 1e-12;

  private InferLensServer inferlens;
  private Process reference;
  private Process reader;
  private URI inferlensBase;
  private URI referenceBase;
  private URI readerBase;
  private PromqlParityData data;
  private List<StepRange> grids;

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    ExternalProcesses.requireBinary(PROMETHEUS, "prometheus");
    long now = System.currentTimeMillis();
    data = new PromqlParityData(now - now % PromqlParityData.SCRAPE_MS);
    grids = data.stepGrids();

    inferlens = InferLensServer.start(ServerConfig.forTests(dir.resolve("inferlens")),
        Clock.systemUTC());
    inferlensBase = URI.create("http://127.0.0.1:" + inferlens.port());

    ExternalProcesses.Prom ref = ExternalProcesses.startPrometheus(dir, "reference",
        "global:\n  scrape_interval: 15s\n", "--web.enable-remote-write-receiver");
    reference = ref.process();
    referenceBase = ref.base();
    Path refLog = ref.log();
    ExternalProcesses.Prom rd = ExternalProcesses.startPrometheus(dir, "reader", String.join("\n",
        "global:",
        "  scrape_interval: 15s",
        "remote_read:",
        "  - url: " + inferlensBase + "/api/v1/read",
        "    read_recent: true",
        ""));
    reader = rd.process();
    readerBase = rd.base();

    for (WriteRequest req : data.writeRequests(5 * 60_000L)) {
      HttpResponse<String> r = Requests.write(inferlensBase, req);
      assertThat(r.statusCode()).as("InferLens remote write: %s", r.body()).isEqualTo(204);
    }
    ref.awaitReady();
    for (WriteRequest req : data.writeRequests(5 * 60_000L)) {
      HttpResponse<String> r = Requests.write(referenceBase, req);
      assertThat(r.statusCode()).as("Prometheus remote write: %s; log:\n%s", r.body(),
          ExternalProcesses.tail(refLog)).isEqualTo(204);
    }
    rd.awaitReady();
  }

  @AfterAll
  void stop() throws Exception {
    ExternalProcesses.stop(reader);
    ExternalProcesses.stop(reference);
    if (inferlens != null) {
      inferlens.close();
    }
  }

  @Test
  void rateOfACounterWithAReset() throws Exception {
    compare("rate(" + PromqlParityData.COUNTER + "[5m])");
  }

  @Test
  void histogramQuantileOfSummedBucketRates() throws Exception {
    compare("histogram_quantile(0.9, sum by (le) (rate(" + PromqlParityData.HISTOGRAM
        + "_bucket[5m])))");
    // per engine too: one engine restarts, so each series' chunks hold a reset
    compare("histogram_quantile(0.5, rate(" + PromqlParityData.HISTOGRAM + "_bucket[5m]))");
  }

  @Test
  void avgOverTimeOfAGaugeWithAStaleMarker() throws Exception {
    compare("avg_over_time(" + PromqlParityData.GAUGE + "[5m])");
    // an instant selector honours the stale marker: the gauge disappears for a while
    compare(PromqlParityData.GAUGE);
  }

  /**
   * The reader Prometheus fetched its data over remote read and InferLens answered 200 every
   * time (2.42 asks for SAMPLES; the counter is printed to show which type was used).
   */
  @Test
  void everyReadWasAnsweredWithoutError() throws Exception {
    compare("count_over_time(" + PromqlParityData.COUNTER + "[5m])");
    String metrics = Requests.get(inferlensBase.resolve("/metrics")).body();
    Matcher m = Pattern.compile("(?m)^inferlens_read_requests_total\\{code=\"(\\d+)\",type=\"(\\w+)\"[^}]*} (\\S+)$")
        .matcher(metrics);
    Map<String, Double> byCodeAndType = new TreeMap<>();
    while (m.find()) {
      byCodeAndType.put(m.group(1) + " " + m.group(2), Double.parseDouble(m.group(3)));
    }
    System.out.println("remote-read requests from Prometheus, by status and type: "
        + byCodeAndType);
    assertThat(byCodeAndType).isNotEmpty();
    assertThat(byCodeAndType.keySet()).allMatch(k -> k.startsWith("200 "));
  }

  /**
   * Prometheus 2.42's remote-read client asks for SAMPLES only, so the PromQL checks above do not
   * reach the chunk encoder. Here the reference Prometheus is the remote-read <em>server</em>:
   * its STREAMED_XOR_CHUNKS frames are parsed and every chunk is decoded with
   * {@link XorChunk#decode}; re-encoding those samples with {@link XorChunk#encode} must give
   * Prometheus's bytes exactly, and InferLens's own streamed answer must carry the same samples.
   */
  @Test
  void xorChunksAreByteForByteThoseOfPrometheus() throws Exception {
    ReadRequest req = RemoteReadTest.request(true, RemoteReadTest.query(data.firstMs - 1_000,
        data.lastMs + 1_000, RemoteReadTest.m(LabelMatcher.Type.EQ, "job", PromqlParityData.JOB)));
    List<ChunkedReadResponse> theirs = RemoteReadTest.frames(RemoteReadTest.read(referenceBase,
        req));
    int chunks = 0;
    int largest = 0;
    for (ChunkedReadResponse f : theirs) {
      for (ChunkedSeries cs : f.getChunkedSeriesList()) {
        for (Chunk c : cs.getChunksList()) {
          assertThat(c.getType()).isEqualTo(Chunk.Encoding.XOR);
          byte[] prometheusBytes = c.getData().toByteArray();
          XorChunk.Samples s = XorChunk.decode(prometheusBytes);
          assertThat(XorChunk.encode(s.timestampsMs(), s.valueBits(), 0, s.size()))
              .as("chunk %d of %s re-encoded", chunks, RemoteReadTest.key(cs.getLabelsList()))
              .isEqualTo(prometheusBytes);
          chunks++;
          largest = Math.max(largest, s.size());
        }
      }
    }
    // where the head cuts chunks depends on the wall clock; every series has 150+ samples
    assertThat(chunks).as("chunks from Prometheus").isGreaterThanOrEqualTo(data.series.size());
    assertThat(largest).as("samples in Prometheus's largest chunk").isGreaterThan(40);
    Map<String, long[][]> fromPrometheus = RemoteReadTest.decodeChunks(theirs, 0,
        XorChunk.MAX_ENCODABLE_SAMPLES);
    Map<String, long[][]> fromInferLens = RemoteReadTest.decodeChunks(
        RemoteReadTest.frames(RemoteReadTest.read(inferlensBase, req)), 0);
    assertThat(fromPrometheus).hasSize(data.series.size());
    RemoteReadTest.assertSameSamples(fromInferLens, fromPrometheus);
  }

  /** Evaluates {@code promql} on both Prometheus servers on both grids and compares. */
  private void compare(String promql) throws Exception {
    for (StepRange g : grids) {
      Map<String, Map<Long, Double>> expected = queryRange(referenceBase, promql, g);
      Map<String, Map<Long, Double>> actual = queryRange(readerBase, promql, g);
      assertThat(expected).as("%s: reference result series", promql).isNotEmpty();
      assertThat(actual.keySet()).as("%s on %s: series", promql, g)
          .containsExactlyElementsOf(expected.keySet());
      int values = 0;
      for (String series : expected.keySet()) {
        Map<Long, Double> e = expected.get(series);
        Map<Long, Double> a = actual.get(series);
        assertThat(a.keySet()).as("%s %s on %s: step timestamps", promql, series, g)
            .containsExactlyElementsOf(e.keySet());
        List<String> differences = new ArrayList<>();
        for (Map.Entry<Long, Double> step : e.entrySet()) {
          double want = step.getValue();
          double got = a.get(step.getKey());
          if (!same(want, got)) {
            differences.add(step.getKey() + " ms: reference " + want + ", via InferLens " + got);
          }
          values++;
        }
        assertThat(differences).as("%s %s on %s: differences", promql, series, g).isEmpty();
      }
      // not vacuous: most steps of the grid hold a value
      assertThat(values).as("%s on %s: compared values", promql, g)
          .isGreaterThan((int) ((g.endMs() - g.startMs()) / g.stepMs() / 2));
    }
  }

  static boolean same(double expected, double actual) {
    if (Double.isNaN(expected) || Double.isNaN(actual)) {
      return Double.isNaN(expected) && Double.isNaN(actual);
    }
    if (expected == actual) {
      return true;
    }
    return Math.abs(expected - actual)
        <= RELATIVE_TOLERANCE * Math.max(Math.abs(expected), Math.abs(actual));
  }

  /** {@code query_range}: result series (labels as JSON text) → step ms → value. */
  private static Map<String, Map<Long, Double>> queryRange(URI base, String promql, StepRange g)
      throws Exception {
    Function<Long, String> sec = ms -> new BigDecimal(ms).movePointLeft(3).toPlainString();
    HttpResponse<String> r = Requests.get(base.resolve("/api/v1/query_range?query="
        + Requests.enc(promql) + "&start=" + sec.apply(g.startMs()) + "&end="
        + sec.apply(g.endMs()) + "&step=" + sec.apply(g.stepMs())));
    assertThat(r.statusCode()).as("%s at %s: %s", promql, base, r.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.path("warnings").isMissingNode()).as("%s at %s: warnings %s", promql, base,
        body.path("warnings")).isTrue();
    Map<String, Map<Long, Double>> out = new TreeMap<>();
    for (JsonNode series : body.get("data").get("result")) {
      Map<Long, Double> values = new TreeMap<>();
      for (JsonNode pair : series.get("values")) {
        long ts = pair.get(0).decimalValue().movePointRight(3).longValueExact();
        values.put(ts, parseGoFloat(pair.get(1).asText()));
      }
      out.put(series.get("metric").toString(), values);
    }
    return out;
  }

  private static double parseGoFloat(String s) {
    switch (s) {
      case "+Inf": return Double.POSITIVE_INFINITY;
      case "-Inf": return Double.NEGATIVE_INFINITY;
      case "NaN": return Double.NaN;
      default: return Double.parseDouble(s);
    }
  }
}
