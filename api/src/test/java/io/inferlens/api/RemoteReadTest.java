package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedInputStream;
import io.inferlens.proto.prometheus.Remote.ChunkedReadResponse;
import io.inferlens.proto.prometheus.Remote.Query;
import io.inferlens.proto.prometheus.Remote.ReadRequest;
import io.inferlens.proto.prometheus.Remote.ReadResponse;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types.Chunk;
import io.inferlens.proto.prometheus.Types.ChunkedSeries;
import io.inferlens.proto.prometheus.Types.Label;
import io.inferlens.proto.prometheus.Types.LabelMatcher;
import io.inferlens.proto.prometheus.Types.Sample;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import io.inferlens.storage.chunk.XorChunk;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.xerial.snappy.Snappy;

/**
 * {@code POST /api/v1/read} on a real server on loopback: the data is remote-written first, then
 * read back in both response types and decoded with the generated classes (frames parsed here:
 * uvarint length, CRC-32C, message; chunks decoded with {@link XorChunk#decode}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RemoteReadTest {

  static final long STALE = 0x7ff0000000000002L;
  static final HttpClient HTTP = HttpClient.newBuilder()
      // HTTP/1.1 as Prometheus speaks it: the JDK client's default h2c upgrade once failed
      // with "EOF reached while reading" against Armeria in CI (SimulatorServerTest).
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private InferLensServer server;
  private URI base;
  private long t0;
  /** What was written: labels "name=value,..." in canonical order → (timestamps, bits). */
  private final Map<String, long[][]> written = new LinkedHashMap<>();

  @BeforeAll
  void start(@TempDir Path dir) throws Exception {
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data")), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
    long now = System.currentTimeMillis();
    t0 = now - 7_200_000L;
    Random rnd = new Random(7);
    WriteRequest.Builder req = WriteRequest.newBuilder();
    // three series of one metric on 15 s scrapes, 300 samples each (3 chunks), a stale marker
    for (String instance : new String[] {"a:1", "b:1", "c:2"}) {
      long[] ts = new long[300];
      long[] bits = new long[300];
      double v = 0;
      for (int i = 0; i < ts.length; i++) {
        ts[i] = t0 + i * 15_000L + rnd.nextInt(200);
        v += rnd.nextInt(10);
        bits[i] = i == 150 ? STALE : Double.doubleToRawLongBits(v);
      }
      req.addTimeseries(series(new String[] {"__name__", "rr_requests_total", "instance", instance,
          "job", "rr"}, ts, bits));
    }
    // one other metric with odd values
    long[] ts = {t0, t0 + 1, t0 + 1_000, t0 + 900_000};
    long[] bits = {Double.doubleToRawLongBits(-0.0), 0x7ff8000000000123L,
        Double.doubleToRawLongBits(Double.NEGATIVE_INFINITY), Double.doubleToRawLongBits(1e300)};
    req.addTimeseries(series(new String[] {"__name__", "rr_odd", "job", "rr"}, ts, bits));
    HttpResponse<String> w = Requests.write(base, req.build());
    assertThat(w.statusCode()).as(w.body()).isEqualTo(204);
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private TimeSeries series(String[] labels, long[] ts, long[] bits) {
    TimeSeries.Builder b = TimeSeries.newBuilder();
    StringBuilder key = new StringBuilder();
    for (int i = 0; i < labels.length; i += 2) {
      b.addLabels(Label.newBuilder().setName(labels[i]).setValue(labels[i + 1]));
      key.append(i == 0 ? "" : ",").append(labels[i]).append('=').append(labels[i + 1]);
    }
    for (int i = 0; i < ts.length; i++) {
      b.addSamples(Sample.newBuilder().setTimestamp(ts[i])
          .setValue(Double.longBitsToDouble(bits[i])));
    }
    written.put(key.toString(), new long[][] {ts, bits});
    return b.build();
  }

  // ------------------------------------------------------------------------------------------
  // helpers

  static LabelMatcher m(LabelMatcher.Type type, String name, String value) {
    return LabelMatcher.newBuilder().setType(type).setName(name).setValue(value).build();
  }

  static Query query(long startMs, long endMs, LabelMatcher... matchers) {
    Query.Builder q = Query.newBuilder().setStartTimestampMs(startMs).setEndTimestampMs(endMs);
    for (LabelMatcher x : matchers) {
      q.addMatchers(x);
    }
    return q.build();
  }

  static ReadRequest request(boolean streamed, Query... queries) {
    ReadRequest.Builder r = ReadRequest.newBuilder();
    for (Query q : queries) {
      r.addQueries(q);
    }
    if (streamed) {
      r.addAcceptedResponseTypes(ReadRequest.ResponseType.STREAMED_XOR_CHUNKS);
    }
    return r.build();
  }

  /** POSTs a remote-read body, with {@code extra} headers as alternating names and values. */
  static HttpResponse<byte[]> post(URI base, byte[] body, String... extra) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve("/api/v1/read"))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/x-protobuf")
        .header("Content-Encoding", "snappy")
        .header("X-Prometheus-Remote-Read-Version", "0.1.0");
    for (int i = 0; i < extra.length; i += 2) {
      b.header(extra[i], extra[i + 1]);
    }
    return HTTP.send(b.POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  static HttpResponse<byte[]> read(URI base, ReadRequest r, String... extra) throws Exception {
    return post(base, Snappy.compress(r.toByteArray()), extra);
  }

  static String key(List<Label> labels) {
    StringBuilder b = new StringBuilder();
    for (Label l : labels) {
      b.append(b.length() == 0 ? "" : ",").append(l.getName()).append('=').append(l.getValue());
    }
    return b.toString();
  }

  static ReadResponse samples(HttpResponse<byte[]> r) throws IOException {
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/x-protobuf");
    assertThat(r.headers().firstValue("Content-Encoding")).hasValue("snappy");
    return ReadResponse.parseFrom(Snappy.uncompress(r.body()));
  }

  /** Parses frames: uvarint length, 4-byte big-endian CRC-32C of the message, the message. */
  static List<ChunkedReadResponse> frames(HttpResponse<byte[]> r) throws IOException {
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValue("application/x-streamed-protobuf; proto=prometheus.ChunkedReadResponse");
    assertThat(r.headers().firstValue("Content-Encoding")).isEmpty();
    List<ChunkedReadResponse> out = new ArrayList<>();
    ByteBuffer buf = ByteBuffer.wrap(r.body());
    while (buf.hasRemaining()) {
      long len = 0;
      for (int shift = 0; ; shift += 7) {
        int b = buf.get() & 0xff;
        len |= (long) (b & 0x7f) << shift;
        if (b < 0x80) {
          break;
        }
      }
      int crc = buf.getInt();
      byte[] msg = new byte[Math.toIntExact(len)];
      buf.get(msg);
      CRC32C c = new CRC32C();
      c.update(msg);
      assertThat((int) c.getValue()).as("CRC-32C of frame %d", out.size()).isEqualTo(crc);
      out.add(ChunkedReadResponse.parseFrom(CodedInputStream.newInstance(msg)));
    }
    return out;
  }

  /** Samples of every series in the frames of one query, series key → (timestamps, bits). */
  static Map<String, long[][]> decodeChunks(List<ChunkedReadResponse> frames, long queryIndex) {
    return decodeChunks(frames, queryIndex, XorChunk.MAX_SAMPLES);
  }

  /** As above, for chunks of up to {@code maxPerChunk} samples (Prometheus's run a little over). */
  static Map<String, long[][]> decodeChunks(List<ChunkedReadResponse> frames, long queryIndex,
      int maxPerChunk) {
    Map<String, List<long[]>> acc = new LinkedHashMap<>();
    for (ChunkedReadResponse f : frames) {
      if (f.getQueryIndex() != queryIndex) {
        continue;
      }
      assertThat(f.getChunkedSeriesCount()).as("series per frame").isEqualTo(1);
      for (ChunkedSeries cs : f.getChunkedSeriesList()) {
        List<long[]> samples = acc.computeIfAbsent(key(cs.getLabelsList()), k -> new ArrayList<>());
        for (Chunk c : cs.getChunksList()) {
          assertThat(c.getType()).isEqualTo(Chunk.Encoding.XOR);
          XorChunk.Samples s = XorChunk.decode(c.getData().toByteArray());
          assertThat(s.size()).isBetween(1, maxPerChunk);
          assertThat(c.getMinTimeMs()).isEqualTo(s.timestampsMs()[0]);
          assertThat(c.getMaxTimeMs()).isEqualTo(s.timestampsMs()[s.size() - 1]);
          for (int i = 0; i < s.size(); i++) {
            samples.add(new long[] {s.timestampsMs()[i], s.valueBits()[i]});
          }
        }
      }
    }
    Map<String, long[][]> out = new LinkedHashMap<>();
    acc.forEach((k, list) -> {
      long[] ts = new long[list.size()];
      long[] bits = new long[list.size()];
      for (int i = 0; i < ts.length; i++) {
        ts[i] = list.get(i)[0];
        bits[i] = list.get(i)[1];
      }
      out.put(k, new long[][] {ts, bits});
    });
    return out;
  }

  static Map<String, long[][]> fromSamples(List<TimeSeries> series) {
    Map<String, long[][]> out = new LinkedHashMap<>();
    for (TimeSeries ts : series) {
      long[] t = new long[ts.getSamplesCount()];
      long[] bits = new long[t.length];
      for (int i = 0; i < t.length; i++) {
        t[i] = ts.getSamples(i).getTimestamp();
        bits[i] = Double.doubleToRawLongBits(ts.getSamples(i).getValue());
      }
      out.put(key(ts.getLabelsList()), new long[][] {t, bits});
    }
    return out;
  }

  /** The written samples of the given series inside [startMs, endMs]. */
  private Map<String, long[][]> expected(long startMs, long endMs, String... keys) {
    Map<String, long[][]> out = new LinkedHashMap<>();
    for (String k : keys) {
      long[][] w = written.get(k);
      List<Integer> idx = new ArrayList<>();
      for (int i = 0; i < w[0].length; i++) {
        if (w[0][i] >= startMs && w[0][i] <= endMs) {
          idx.add(i);
        }
      }
      out.put(k, new long[][] {idx.stream().mapToLong(i -> w[0][i]).toArray(),
          idx.stream().mapToLong(i -> w[1][i]).toArray()});
    }
    return out;
  }

  static void assertSameSamples(Map<String, long[][]> actual, Map<String, long[][]> expected) {
    assertThat(actual.keySet()).containsExactlyElementsOf(expected.keySet());
    for (String k : expected.keySet()) {
      if (java.util.Arrays.equals(actual.get(k)[0], expected.get(k)[0])
          && java.util.Arrays.equals(actual.get(k)[1], expected.get(k)[1])) {
        continue; // AssertJ's element-wise comparison is slow on 150 000 samples; it reports
      }
      assertThat(actual.get(k)[0]).as("timestamps of %s", k).containsExactly(expected.get(k)[0]);
      assertThat(actual.get(k)[1]).as("raw value bits of %s", k)
          .containsExactly(expected.get(k)[1]);
    }
  }

  static final String A = "__name__=rr_requests_total,instance=a:1,job=rr";
  static final String B = "__name__=rr_requests_total,instance=b:1,job=rr";
  static final String C = "__name__=rr_requests_total,instance=c:2,job=rr";
  static final String ODD = "__name__=rr_odd,job=rr";

  // ------------------------------------------------------------------------------------------
  // round trips

  @Test
  void samplesResponseHasOneResultPerQueryInOrderWithRawBits() throws Exception {
    long end = t0 + 7_000_000L;
    ReadResponse resp = samples(read(base, request(false,
        query(t0, end, m(LabelMatcher.Type.EQ, "__name__", "rr_odd")),
        query(t0 + 1_000_000, t0 + 2_000_000,
            m(LabelMatcher.Type.EQ, "__name__", "rr_requests_total")))));
    assertThat(resp.getResultsCount()).isEqualTo(2);
    assertSameSamples(fromSamples(resp.getResults(0).getTimeseriesList()),
        expected(t0, end, ODD));
    Map<String, long[][]> second = fromSamples(resp.getResults(1).getTimeseriesList());
    assertSameSamples(second, expected(t0 + 1_000_000, t0 + 2_000_000, A, B, C));
    // the stale marker at scrape 150 (t0 + 2 250 000 ms) is not in this window; the full one:
    ReadResponse all = samples(read(base, request(false,
        query(t0, end, m(LabelMatcher.Type.EQ, "job", "rr"),
            m(LabelMatcher.Type.EQ, "__name__", "rr_requests_total")))));
    Map<String, long[][]> full = fromSamples(all.getResults(0).getTimeseriesList());
    assertSameSamples(full, expected(t0, end, A, B, C));
    assertThat(full.get(A)[1][150]).isEqualTo(STALE);
  }

  @Test
  void streamedChunksCarryTheSameSamplesInPrometheusXorChunks() throws Exception {
    long end = t0 + 7_000_000L;
    HttpResponse<byte[]> r = read(base, request(true,
        query(t0, end, m(LabelMatcher.Type.EQ, "__name__", "rr_requests_total")),
        query(t0, end, m(LabelMatcher.Type.EQ, "__name__", "rr_odd"))));
    List<ChunkedReadResponse> frames = frames(r);
    // one series a frame, query 0's frames first
    assertThat(frames).extracting(ChunkedReadResponse::getQueryIndex)
        .containsExactly(0L, 0L, 0L, 1L);
    assertThat(frames.get(0).getChunkedSeries(0).getChunksCount()).isEqualTo(3); // 120+120+60
    Map<String, long[][]> q0 = decodeChunks(frames, 0);
    assertSameSamples(q0, expected(t0, end, A, B, C));
    assertThat(q0.get(B)[1][150]).isEqualTo(STALE);
    assertSameSamples(decodeChunks(frames, 1), expected(t0, end, ODD));
  }

  @Test
  void acceptedResponseTypesAreTakenInTheClientsOrder() throws Exception {
    Query q = query(t0, t0 + 7_000_000L, m(LabelMatcher.Type.EQ, "__name__", "rr_odd"));
    ReadRequest samplesFirst = request(false, q).toBuilder()
        .addAcceptedResponseTypes(ReadRequest.ResponseType.SAMPLES)
        .addAcceptedResponseTypes(ReadRequest.ResponseType.STREAMED_XOR_CHUNKS).build();
    assertThat(samples(read(base, samplesFirst)).getResultsCount()).isEqualTo(1);
    ReadRequest unknownThenStreamed = request(false, q).toBuilder()
        .addAcceptedResponseTypesValue(7)
        .addAcceptedResponseTypes(ReadRequest.ResponseType.STREAMED_XOR_CHUNKS).build();
    assertThat(frames(read(base, unknownThenStreamed))).hasSize(1);
    HttpResponse<byte[]> none = read(base, request(false, q).toBuilder()
        .addAcceptedResponseTypesValue(7).build());
    assertThat(none.statusCode()).isEqualTo(400);
    assertThat(new String(none.body())).contains("none of the accepted response types");
  }

  @Test
  void aSeriesLargerThanAFrameContinuesInTheNextFrame() throws Exception {
    // random value bits cost ~10 bytes a sample in XOR: 150 000 samples pass 1 MiB
    int n = 150_000;
    long[] ts = new long[n];
    long[] bits = new long[n];
    Random rnd = new Random(11);
    long start = System.currentTimeMillis() - 2 * 3_600_000L;
    for (int i = 0; i < n; i++) {
      ts[i] = start + i * 10L;
      bits[i] = rnd.nextLong() & 0x7fefffffffffffffL; // finite positive doubles, random bits
    }
    assertThat(Requests.write(base, WriteRequest.newBuilder()
        .addTimeseries(series(new String[] {"__name__", "rr_big"}, ts, bits)).build())
        .statusCode()).isEqualTo(204);
    List<ChunkedReadResponse> frames = frames(read(base, request(true,
        query(start, start + 3_600_000L, m(LabelMatcher.Type.EQ, "__name__", "rr_big")))));
    assertThat(frames.size()).isGreaterThanOrEqualTo(2);
    for (ChunkedReadResponse f : frames) {
      assertThat(key(f.getChunkedSeries(0).getLabelsList())).isEqualTo("__name__=rr_big");
      assertThat(f.getSerializedSize())
          .isLessThan(RemoteReadService.MAX_FRAME_BYTES + 4 * XorChunk.MAX_SAMPLES * 18);
    }
    assertSameSamples(decodeChunks(frames, 0), expected(start, start + 3_600_000L,
        "__name__=rr_big"));
  }

  // ------------------------------------------------------------------------------------------
  // matchers

  private TreeSet<String> selected(LabelMatcher... matchers) throws Exception {
    ReadResponse resp = samples(read(base, request(false,
        query(t0, t0 + 7_000_000L, matchers))));
    TreeSet<String> out = new TreeSet<>();
    for (TimeSeries ts : resp.getResults(0).getTimeseriesList()) {
      out.add(key(ts.getLabelsList()));
    }
    return out;
  }

  @Test
  void matcherTypesSelectAsInPromql() throws Exception {
    LabelMatcher job = m(LabelMatcher.Type.EQ, "job", "rr");
    LabelMatcher name = m(LabelMatcher.Type.EQ, "__name__", "rr_requests_total");
    assertThat(selected(name, m(LabelMatcher.Type.EQ, "instance", "b:1"))).containsExactly(B);
    assertThat(selected(name, m(LabelMatcher.Type.NEQ, "instance", "b:1"))).containsExactly(A, C);
    assertThat(selected(name, m(LabelMatcher.Type.RE, "instance", ".*:1"))).containsExactly(A, B);
    // anchored: "a" alone matches nothing
    assertThat(selected(name, m(LabelMatcher.Type.RE, "instance", "a"))).isEmpty();
    assertThat(selected(name, m(LabelMatcher.Type.NRE, "instance", "a.*|c.*")))
        .containsExactly(B);
    // an absent label matches the empty string
    assertThat(selected(job, m(LabelMatcher.Type.EQ, "instance", ""))).containsExactly(ODD);
    assertThat(selected(m(LabelMatcher.Type.RE, "__name__", "rr_(odd|requests_total)"),
        m(LabelMatcher.Type.NEQ, "instance", "a:1"))).containsExactly(ODD, B, C);
    assertThat(selected(m(LabelMatcher.Type.EQ, "__name__", "no_such_metric"))).isEmpty();
  }

  // ------------------------------------------------------------------------------------------
  // limits and bad input

  @Test
  void limitsAnswer413NamingTheLimitAndTheNumbers(@TempDir Path dir) throws Exception {
    ServerConfig cfg = ServerConfig.forTests(dir.resolve("data")).withReadLimits(2, 3_000);
    try (InferLensServer small = InferLensServer.start(cfg, Clock.systemUTC())) {
      URI smallBase = URI.create("http://127.0.0.1:" + small.port());
      WriteRequest.Builder w = WriteRequest.newBuilder();
      long now = System.currentTimeMillis();
      for (String i : new String[] {"x", "y", "z"}) {
        w.addTimeseries(Requests.series(new String[] {"__name__", "lim", "i", i},
            new long[] {now - 2_000, now - 1_000}, new double[] {1, 2}));
      }
      long[] ts = new long[500];
      double[] vs = new double[500];
      for (int k = 0; k < ts.length; k++) {
        ts[k] = now - 600_000 + k * 1_000L;
        vs[k] = Math.sqrt(k);
      }
      w.addTimeseries(Requests.series(new String[] {"__name__", "big"}, ts, vs));
      assertThat(Requests.write(smallBase, w.build()).statusCode()).isEqualTo(204);

      for (boolean streamed : new boolean[] {false, true}) {
        HttpResponse<byte[]> tooMany = read(smallBase, request(streamed,
            query(now - 3_600_000, now, m(LabelMatcher.Type.EQ, "__name__", "lim"))));
        assertThat(tooMany.statusCode()).isEqualTo(413);
        assertThat(new String(tooMany.body())).contains("query 0").contains("selects 3 series")
            .contains("--max-read-series 2");
        HttpResponse<byte[]> tooBig = read(smallBase, request(streamed,
            query(now - 3_600_000, now, m(LabelMatcher.Type.EQ, "__name__", "lim"),
                m(LabelMatcher.Type.NEQ, "i", "z")),
            query(now - 3_600_000, now, m(LabelMatcher.Type.EQ, "__name__", "big"))));
        assertThat(tooBig.statusCode()).as("streamed %s", streamed).isEqualTo(413);
        assertThat(new String(tooBig.body())).contains("at query 1")
            .contains("--max-read-bytes 3000");
        // under both limits: answered
        HttpResponse<byte[]> ok = read(smallBase, request(streamed,
            query(now - 3_600_000, now, m(LabelMatcher.Type.EQ, "__name__", "lim"),
                m(LabelMatcher.Type.RE, "i", "x|y"))));
        assertThat(ok.statusCode()).as(new String(ok.body())).isEqualTo(200);
      }
    }
  }

  @Test
  void malformedRequestsAnswer400NamingTheProblem() throws Exception {
    Map<String, byte[]> cases = new LinkedHashMap<>();
    cases.put("not a valid snappy block", "hello, this is not snappy".getBytes());
    cases.put("empty body", new byte[0]);
    // valid snappy, invalid protobuf (field 1 length-delimited, length past the end)
    cases.put("not a prometheus.ReadRequest", Snappy.compress(new byte[] {0x0a, 0x7f, 0x01}));
    cases.put("invalid regex", Snappy.compress(request(false, query(0, 1000,
        m(LabelMatcher.Type.RE, "job", "(unclosed"))).toByteArray()));
    cases.put("is after end_timestamp_ms", Snappy.compress(request(false, query(2000, 1000,
        m(LabelMatcher.Type.EQ, "job", "rr"))).toByteArray()));
    cases.put("empty label name", Snappy.compress(request(true, query(0, 1000,
        m(LabelMatcher.Type.EQ, "", "rr"))).toByteArray()));
    cases.put("match the empty string", Snappy.compress(request(false, query(0, 1000,
        m(LabelMatcher.Type.EQ, "job", ""))).toByteArray()));
    cases.put("has no matchers", Snappy.compress(request(false, query(0, 1000)).toByteArray()));
    cases.put("unknown matcher type", Snappy.compress(request(false, query(0, 1000,
        LabelMatcher.newBuilder().setTypeValue(9).setName("job").setValue("rr").build()))
        .toByteArray()));
    for (Map.Entry<String, byte[]> c : cases.entrySet()) {
      HttpResponse<byte[]> r = post(base, c.getValue());
      assertThat(r.statusCode()).as("%s: %s", c.getKey(), new String(r.body())).isEqualTo(400);
      assertThat(new String(r.body())).as(c.getKey()).contains(c.getKey());
    }
    // a snappy header claiming far more than --max-request-bytes: refused before allocating
    // (the varint decoded length 0x80 0x80 0x80 0x80 0x04 claims 1 GiB)
    byte[] bomb = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 0x04, 0, 0, 0};
    HttpResponse<byte[]> r = post(base, bomb);
    assertThat(r.statusCode()).as(new String(r.body())).isEqualTo(413);
    assertThat(new String(r.body())).contains("--max-request-bytes");
    HttpResponse<String> get = Requests.get(base.resolve("/api/v1/read"));
    assertThat(get.statusCode()).isEqualTo(405);
  }
}
