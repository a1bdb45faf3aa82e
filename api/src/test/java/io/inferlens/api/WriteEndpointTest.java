package io.inferlens.api;

import static io.inferlens.api.Requests.RW1_CONTENT_TYPE;
import static io.inferlens.api.Requests.post;
import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.snappy;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Series;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.xerial.snappy.SnappyFramedOutputStream;

/**
 * Every remote-write rule of docs/DESIGN.md section 2 through the real HTTP endpoint, a real Armeria
 * server on a loopback port and a real RocksDB store in a temporary directory.
 */
class WriteEndpointTest {

  @TempDir static Path dir;
  static InferLensServer server;
  static URI base;
  static final long NOW = System.currentTimeMillis();

  @BeforeAll
  static void start() throws Exception {
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data")), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static String[] labels(String... kv) {
    return kv;
  }

  static List<Series> stored(String metric) {
    try {
      return server.store().select(List.of(Matcher.eq("__name__", metric)), 0, Long.MAX_VALUE);
    } catch (io.inferlens.storage.StorageException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A body, headers, the expected status and a text the response must contain. */
  record Case(String name, byte[] body, String contentType, String encoding, int status,
      String mentions) {
    @Override
    public String toString() {
      return name;
    }
  }

  static byte[] framed(WriteRequest r) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (SnappyFramedOutputStream f = new SnappyFramedOutputStream(out)) {
        f.write(r.toByteArray());
      }
      return out.toByteArray();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static Stream<Case> cases() {
    WriteRequest good = request(series(labels("__name__", "case_good"), NOW, 1));
    byte[] block = snappy(good);
    return Stream.of(
        new Case("duplicate label zone", snappy(request(series(
            labels("__name__", "case_zone", "zone", "a", "zone", "b"), NOW, 1))),
            RW1_CONTENT_TYPE, "snappy", 400, "zone"),
        new Case("snappy framed format", framed(good), RW1_CONTENT_TYPE, "snappy", 400, "framed"),
        new Case("raw protobuf labelled snappy", good.toByteArray(), RW1_CONTENT_TYPE, "snappy",
            400, "snappy"),
        new Case("truncated snappy block", Arrays.copyOf(block, block.length / 2),
            RW1_CONTENT_TYPE, "snappy", 400, "snappy"),
        new Case("metadata only", snappy(Requests.metadataOnly()), RW1_CONTENT_TYPE, "snappy",
            204, ""),
        new Case("single snappy byte 00", new byte[] {0}, RW1_CONTENT_TYPE, "snappy", 204, ""),
        new Case("series without samples", snappy(request(TimeSeries.newBuilder()
            .addLabels(io.inferlens.proto.prometheus.Types.Label.newBuilder()
                .setName("__name__").setValue("case_nosamples")).build())),
            RW1_CONTENT_TYPE, "snappy", 204, ""),
        new Case("zero-length body", new byte[0], RW1_CONTENT_TYPE, "snappy", 400, "empty"),
        new Case("timestamp 0", snappy(request(series(labels("__name__", "case_ts0"), 0, 1))),
            RW1_CONTENT_TYPE, "snappy", 400, "milliseconds"),
        new Case("timestamp in seconds", snappy(request(series(labels("__name__", "case_tss"),
            NOW / 1000, 1))), RW1_CONTENT_TYPE, "snappy", 400, "milliseconds"),
        new Case("negative timestamp", snappy(request(series(labels("__name__", "case_tsneg"),
            -1000, 1))), RW1_CONTENT_TYPE, "snappy", 400, "milliseconds"),
        new Case("timestamp an hour ahead", snappy(request(series(labels("__name__", "case_fut"),
            NOW + 3_600_000, 1))), RW1_CONTENT_TYPE, "snappy", 400, "ahead of now"),
        new Case("empty label name", snappy(request(series(labels("__name__", "case_emptyname",
            "", "x"), NOW, 1))), RW1_CONTENT_TYPE, "snappy", 400, "empty"),
        new Case("no __name__", snappy(request(series(labels("job", "x"), NOW, 1))),
            RW1_CONTENT_TYPE, "snappy", 400, "__name__"),
        new Case("remote write 2.0", snappy(request(series(labels("__name__", "case_rw2"), NOW,
            1))), Requests.RW2_CONTENT_TYPE, "snappy", 415, "2.0"),
        new Case("gzip encoding", snappy(good), RW1_CONTENT_TYPE, "gzip", 415, "gzip"),
        new Case("json content type", snappy(good), "application/json", "snappy", 415, "json"),
        new Case("no content type means 1.0", snappy(request(series(
            labels("__name__", "case_noct"), NOW, 1))), null, "snappy", 204, ""));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void answersEachRuleWithTheRightStatus(Case c) {
    HttpResponse<String> r = post(base.resolve("/api/v1/write"), c.body, c.contentType,
        c.encoding);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(c.status);
    assertThat(r.body().toLowerCase()).contains(c.mentions.toLowerCase());
  }

  /**
   * A chunked body (no {@code Content-Length}) is charged to the in-flight bound once read, at its
   * real size, and stored: charging it {@code --max-request-bytes} up front, more than the
   * 16 MiB bound, would refuse it whenever anything else was in flight.
   */
  @Test
  void chunkedBodyIsStored() throws Exception {
    byte[] body = snappy(request(series(labels("__name__", "case_chunked"), NOW, 7)));
    java.net.http.HttpRequest r = java.net.http.HttpRequest.newBuilder(
            base.resolve("/api/v1/write"))
        .header("Content-Type", RW1_CONTENT_TYPE).header("Content-Encoding", "snappy")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(
            () -> new java.io.ByteArrayInputStream(body)))
        .build();
    java.net.http.HttpResponse<String> a = java.net.http.HttpClient.newBuilder()
        .version(java.net.http.HttpClient.Version.HTTP_1_1).build()
        .send(r, java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(a.statusCode()).as(a.body()).isEqualTo(204);
    assertThat(stored("case_chunked")).hasSize(1);
  }

  @Test
  void theServerRunsOnOneEventLoopPerTwoCores() {
    int cores = Runtime.getRuntime().availableProcessors();
    assertThat(server.eventLoopCount()).isEqualTo(InferLensServer.eventLoops())
        .isEqualTo(Math.max(1, cores / 2));
  }

  @Test
  void remoteWrite2IsRefusedAndNothingIsStored() {
    post(base.resolve("/api/v1/write"), snappy(request(series(labels("__name__", "rw2_only"), NOW,
        1))), Requests.RW2_CONTENT_TYPE, "snappy");
    assertThat(stored("rw2_only")).isEmpty();
  }

  @Test
  void labelOrderDoesNotMakeANewSeries() {
    assertThat(write(base, request(series(labels("zeta", "1", "__name__", "order_m", "alpha", "2"),
        NOW - 2000, 1))).statusCode()).isEqualTo(204);
    assertThat(write(base, request(series(labels("__name__", "order_m", "alpha", "2", "zeta", "1"),
        NOW - 1000, 2))).statusCode()).isEqualTo(204);
    List<Series> s = stored("order_m");
    assertThat(s).hasSize(1);
    assertThat(s.get(0).labels()).isEqualTo(LabelSet.of("__name__", "order_m", "alpha", "2",
        "zeta", "1"));
    assertThat(s.get(0).size()).isEqualTo(2);
  }

  @Test
  void emptyLabelValueIsTheSameSeriesAsNoLabel() {
    assertThat(write(base, request(series(labels("__name__", "empty_m", "a", "", "b", "x"),
        NOW - 2000, 1))).statusCode()).isEqualTo(204);
    assertThat(write(base, request(series(labels("__name__", "empty_m", "b", "x"), NOW - 1000,
        2))).statusCode()).isEqualTo(204);
    assertThat(stored("empty_m")).extracting(Series::labels)
        .containsExactly(LabelSet.of("__name__", "empty_m", "b", "x"));
  }

  @Test
  void conflictingValueAtAStoredTimestampIs400AndKeepsTheOriginal() {
    assertThat(write(base, request(series(labels("__name__", "conflict_m"), NOW - 5000, 1)))
        .statusCode()).isEqualTo(204);
    HttpResponse<String> r = write(base, request(series(labels("__name__", "conflict_m"),
        NOW - 5000, 2)));
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("conflict_m");
    assertThat(stored("conflict_m").get(0).value(0)).isEqualTo(1.0);
  }

  @Test
  void exactDuplicateIs204AndStoredOnce() {
    WriteRequest r = request(series(labels("__name__", "dup_m"), NOW - 5000, 42.5));
    assertThat(write(base, r).statusCode()).isEqualTo(204);
    assertThat(write(base, r).statusCode()).isEqualTo(204);
    assertThat(stored("dup_m").get(0).size()).isEqualTo(1);
  }

  @Test
  void goodSeriesIsStoredWhenAnotherInTheRequestIsBad() {
    HttpResponse<String> r = write(base, request(
        series(labels("__name__", "mixed_good", "job", "a"), NOW - 1000, 7),
        series(labels("__name__", "mixed_bad", "job", "a", "job", "b"), NOW - 1000, 8)));
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("mixed_bad");
    assertThat(stored("mixed_good")).hasSize(1);
    assertThat(stored("mixed_bad")).isEmpty();
  }

  @Test
  void staleMarkerBitsSurviveTheRoundTrip() {
    long stale = 0x7ff0000000000002L;
    WriteRequest r = request(series(labels("__name__", "stale_m"), new long[] {NOW - 2000,
        NOW - 1000}, new double[] {1.5, Double.longBitsToDouble(stale)}));
    assertThat(write(base, r).statusCode()).isEqualTo(204);
    assertThat(stored("stale_m").get(0).valueBits()).containsExactly(
        Double.doubleToRawLongBits(1.5), stale);
  }

  @Test
  void bodyOverTheCapIs413(@TempDir Path other) throws Exception {
    ServerConfig small = new ServerConfig(new InetSocketAddress("127.0.0.1", 0),
        other.resolve("data"), ServerConfig.DEFAULT_RETENTION_MS, 1024,
        ServerConfig.DEFAULT_MAX_FUTURE_MS, false);
    try (InferLensServer s = InferLensServer.start(small, Clock.systemUTC())) {
      URI u = URI.create("http://127.0.0.1:" + s.port() + "/api/v1/write");
      // Over the compressed cap: Armeria refuses the body itself, and says which limit.
      byte[] big = new byte[4096];
      new java.util.Random(1).nextBytes(big);
      HttpResponse<String> tooBig = post(u, big, RW1_CONTENT_TYPE, "snappy");
      assertThat(tooBig.statusCode()).isEqualTo(413);
      assertThat(tooBig.body()).contains("of 4096 bytes exceeds --max-request-bytes 1024 bytes");
      assertThat(tooBig.headers().firstValue("content-type")).hasValueSatisfying(
          ct -> assertThat(ct).startsWith("text/plain"));
      // A JSON route answers the same refusal in the error envelope.
      HttpResponse<String> form = post(URI.create("http://127.0.0.1:" + s.port()
          + "/api/v1/diagnoses"), big, "application/x-www-form-urlencoded", null);
      assertThat(form.statusCode()).isEqualTo(413);
      assertThat(form.headers().firstValue("content-type")).hasValueSatisfying(
          ct -> assertThat(ct).startsWith("application/json"));
      assertThat(form.body()).contains("\"status\":\"error\"", "\"errorType\":\"too_large\"",
          "exceeds --max-request-bytes 1024 bytes");
      // Other statuses keep Armeria's default rendering.
      assertThat(Requests.get(URI.create("http://127.0.0.1:" + s.port() + "/no-such-api"))
          .statusCode()).isEqualTo(404);
      // Under the compressed cap but declaring a decoded size over it: a decompression bomb.
      // Snappy's header is the varint decoded length: these 5 bytes claim 2 GiB.
      byte[] bomb = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x08, 0, 0, 0};
      HttpResponse<String> r = post(u, bomb, RW1_CONTENT_TYPE, "snappy");
      assertThat(r.statusCode()).isEqualTo(413);
      assertThat(r.body()).contains("1024");
    }
  }

  @Test
  void selfMetricsCountRequestsAndRejections() {
    write(base, request(series(labels("__name__", "metrics_m"), NOW - 1000, 1)));
    write(base, request(series(labels("__name__", "metrics_old"), 0, 1)));
    String m = Requests.get(base.resolve("/metrics")).body();
    assertThat(m).contains("inferlens_write_requests_total{code=\"204\"}")
        .contains("inferlens_samples_ingested_total")
        .contains("inferlens_samples_rejected_total{reason=\"too_old\"}")
        .contains("inferlens_store_size_bytes")
        .contains("inferlens_write_decode_seconds");
  }

  @Test
  void getOnTheWriteEndpointIs405() {
    HttpResponse<String> r = Requests.get(base.resolve("/api/v1/write"));
    assertThat(r.statusCode()).isEqualTo(405);
    assertThat(r.body()).contains("POST");
  }

  @Test
  void healthAndReadiness() {
    assertThat(Requests.get(base.resolve("/-/healthy")).statusCode()).isEqualTo(200);
    assertThat(Requests.get(base.resolve("/-/ready")).statusCode()).isEqualTo(200);
  }
}
