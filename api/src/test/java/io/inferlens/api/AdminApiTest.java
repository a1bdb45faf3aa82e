package io.inferlens.api;

import static io.inferlens.api.Requests.get;
import static io.inferlens.api.Requests.post;
import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Series;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin flush and compact endpoints (on with {@code --web.enable-admin-api}) and the RocksDB
 * gauges, through a real server on a loopback port with a real RocksDB store.
 */
class AdminApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int SERIES = 50;
  private static final int SAMPLES = 200;

  @TempDir Path dir;
  InferLensServer server;
  URI base;
  final long now = System.currentTimeMillis();

  @BeforeEach
  void start() throws Exception {
    server = InferLensServer.start(
        ServerConfig.forTests(dir.resolve("data")).withBlockCacheBytes(8L << 20)
            .withWeb(WebOptions.DEFAULTS.withAdminApi(true)),
        Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  /** Writes SERIES x SAMPLES samples, 15 s apart, ending now; returns their count. */
  private long writeSamples() {
    List<TimeSeries> all = new ArrayList<>();
    for (int s = 0; s < SERIES; s++) {
      long[] ts = new long[SAMPLES];
      double[] vs = new double[SAMPLES];
      for (int i = 0; i < SAMPLES; i++) {
        ts[i] = now - (SAMPLES - 1 - i) * 15_000L;
        vs[i] = s * 1000 + i * 0.5;
      }
      all.add(series(new String[] {"__name__", "admin_test", "s", Integer.toString(s)}, ts, vs));
    }
    HttpResponse<String> r = write(base, request(all.toArray(TimeSeries[]::new)));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(204);
    return (long) SERIES * SAMPLES;
  }

  private JsonNode admin(String op) throws Exception {
    HttpResponse<String> r = post(base.resolve("/api/v1/admin/" + op), new byte[0], null, null);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.path("status").asText()).isEqualTo("success");
    JsonNode data = body.path("data");
    assertThat(data.path("operation").asText()).isEqualTo(op);
    for (String when : List.of("before", "after")) {
      for (String k : List.of("dir_bytes", "live_sst_bytes", "memtable_bytes")) {
        assertThat(data.path(when).path(k).isIntegralNumber()).as(when + "." + k).isTrue();
      }
      for (String k : List.of("chunks", "rollup5m", "rollup1h", "head_log", "index")) {
        assertThat(data.path(when).path("bytes_by_kind").path(k).isIntegralNumber())
            .as(when + ".bytes_by_kind." + k).isTrue();
      }
    }
    return data;
  }

  private long storedSamples() throws Exception {
    long n = 0;
    for (Series s : server.store().select(List.of(Matcher.eq("__name__", "admin_test")), 0,
        Long.MAX_VALUE)) {
      n += s.timestampsMs().length;
    }
    return n;
  }

  @Test
  void flushMovesTheMemtableToSstAndCompactKeepsEverySample() throws Exception {
    long written = writeSamples();

    JsonNode flush = admin("flush");
    assertThat(flush.path("before").path("live_sst_bytes").asLong()).isZero();
    assertThat(flush.path("after").path("live_sst_bytes").asLong())
        .as("the samples are in SST files after a flush").isPositive();
    assertThat(flush.path("after").path("memtable_bytes").asLong())
        .isLessThan(flush.path("before").path("memtable_bytes").asLong());

    // A second batch on top, then a full compaction merges both SST files into the bottom level.
    long[] ts = {now + 1000};
    double[] vs = {42};
    assertThat(write(base, request(series(new String[] {"__name__", "admin_test", "s", "new"},
        ts, vs))).statusCode()).isEqualTo(204);
    JsonNode compact = admin("compact");
    assertThat(compact.path("after").path("live_sst_bytes").asLong()).isPositive();
    assertThat(compact.path("after").path("bytes_by_kind").path("chunks").asLong())
        .as("the samples are chunks once flushed").isPositive();
    assertThat(compact.path("after").path("memtable_bytes").asLong())
        .isLessThanOrEqualTo(compact.path("before").path("memtable_bytes").asLong());
    assertThat(compact.path("duration_ms").asLong()).isNotNegative();

    assertThat(storedSamples()).isEqualTo(written + 1);
    assertThat(server.store().sampleCountEstimate()).isEqualTo(written + 1);
  }

  @Test
  void withoutTheFlagTheyAnswerPrometheusAdminApisDisabled() throws Exception {
    try (InferLensServer off = InferLensServer.start(ServerConfig.forTests(dir.resolve("off")),
        Clock.systemUTC())) {
      URI offBase = URI.create("http://127.0.0.1:" + off.port());
      for (String op : List.of("flush", "compact")) {
        HttpResponse<String> r = post(offBase.resolve("/api/v1/admin/" + op), new byte[0], null,
            null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(403);
        assertThat(JSON.readTree(r.body()).path("error").asText())
            .isEqualTo("admin APIs disabled");
        assertThat(JSON.readTree(r.body()).path("errorType").asText()).isEqualTo("forbidden");
      }
    }
  }

  @Test
  void getIsNotAllowed() {
    for (String op : List.of("flush", "compact")) {
      assertThat(get(base.resolve("/api/v1/admin/" + op)).statusCode()).isEqualTo(405);
    }
  }

  @Test
  void metricsExposeTheRocksDbFigures() throws Exception {
    writeSamples();
    admin("flush");
    String metrics = get(base.resolve("/metrics")).body();
    for (String name : List.of("inferlens_rocksdb_live_sst_bytes",
        "inferlens_rocksdb_memtable_bytes", "inferlens_rocksdb_block_cache_usage_bytes",
        "inferlens_rocksdb_estimate_keys", "inferlens_rocksdb_pending_compaction_bytes")) {
      assertThat(metrics).contains("\n" + name + " ");
    }
    double sst = gauge(metrics, "inferlens_rocksdb_live_sst_bytes");
    assertThat(sst).isPositive();
    assertThat(gauge(metrics, "inferlens_rocksdb_estimate_keys")).isPositive();
    assertThat(gauge(metrics, "inferlens_store_samples")).isEqualTo((double) SERIES * SAMPLES);
    assertThat(gauge(metrics, "inferlens_store_head_samples")).isZero();
  }

  private static double gauge(String metrics, String name) {
    for (String line : metrics.split("\n")) {
      if (line.startsWith(name + " ")) {
        return Double.parseDouble(line.substring(name.length() + 1).trim());
      }
    }
    throw new AssertionError(name + " not in /metrics");
  }
}
