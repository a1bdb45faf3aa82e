package io.inferlens.api;

import static io.inferlens.api.Requests.get;
import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.storage.FailingStores;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /-/healthy} and {@code /-/ready} of a real server over a real RocksDB store whose
 * writes fail as on a full disk while a flag is set ({@link FailingStores}): the disk fills →
 * writes answer 503 and the instance is not ready (with the reason), still healthy → the disk
 * has room again → ready, by a probe write without any sender, or by the next write.
 */
class HealthApiTest {

  @TempDir Path dir;
  final AtomicBoolean diskFull = new AtomicBoolean();
  InferLensServer server;
  URI base;
  long now;

  @BeforeEach
  void start() throws Exception {
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data")).withEvalInterval(0),
        Clock.systemUTC(), Clock.systemUTC(),
        (options, clock) -> FailingStores.open(options, clock, diskFull));
    base = URI.create("http://127.0.0.1:" + server.port());
    now = System.currentTimeMillis();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> writeOne(long ts) {
    return write(base, request(series(new String[] {"__name__", "health_test"}, ts, 1.0)));
  }

  private int writableGauge() {
    for (String line : get(base.resolve("/metrics")).body().split("\n")) {
      if (line.startsWith("inferlens_store_writable ")) {
        return (int) Double.parseDouble(line.substring(line.indexOf(' ') + 1).trim());
      }
    }
    throw new AssertionError("inferlens_store_writable not in /metrics");
  }

  /** Polls /-/ready for up to 10 s until it answers {@code status}. */
  private HttpResponse<String> awaitReady(int status) throws InterruptedException {
    HttpResponse<String> r = get(base.resolve("/-/ready"));
    for (int i = 0; i < 100 && r.statusCode() != status; i++) {
      Thread.sleep(100);
      r = get(base.resolve("/-/ready"));
    }
    return r;
  }

  @Test
  void aFullDiskMakesTheInstanceNotReadyUntilAProbeWriteSucceeds() throws Exception {
    HttpResponse<String> ready = get(base.resolve("/-/ready"));
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.body()).isEqualTo("InferLens is Ready.\n");
    assertThat(writeOne(now).statusCode()).isEqualTo(204);
    assertThat(writableGauge()).isEqualTo(1);

    diskFull.set(true);
    HttpResponse<String> refused = writeOne(now + 1000);
    assertThat(refused.statusCode()).as(refused.body()).isEqualTo(503);

    HttpResponse<String> notReady = get(base.resolve("/-/ready"));
    assertThat(notReady.statusCode()).isEqualTo(503);
    assertThat(notReady.body())
        .startsWith("InferLens is not ready: the store cannot write since ")
        .contains("No space left on device")
        .endsWith("\n");
    assertThat(notReady.body().strip()).as("one line").doesNotContain("\n");
    HttpResponse<String> healthy = get(base.resolve("/-/healthy"));
    assertThat(healthy.statusCode()).as("the process lives").isEqualTo(200);
    assertThat(healthy.body()).isEqualTo("InferLens is Healthy.\n");
    assertThat(writableGauge()).isZero();
    // Still full: the probe writes of later checks fail too.
    Thread.sleep(HealthApi.PROBE_INTERVAL_MS + 100);
    assertThat(get(base.resolve("/-/ready")).statusCode()).isEqualTo(503);

    // Room again, and no sender writes: the probe of a readiness check sees it.
    diskFull.set(false);
    HttpResponse<String> back = awaitReady(200);
    assertThat(back.statusCode()).as(back.body()).isEqualTo(200);
    assertThat(back.body()).isEqualTo("InferLens is Ready.\n");
    assertThat(writableGauge()).isEqualTo(1);
    assertThat(writeOne(now + 1000).statusCode()).isEqualTo(204);
  }

  @Test
  void aSuccessfulWriteMakesItReadyAtOnce() throws Exception {
    diskFull.set(true);
    assertThat(writeOne(now).statusCode()).isEqualTo(503);
    assertThat(get(base.resolve("/-/ready")).statusCode()).isEqualTo(503);

    diskFull.set(false);
    // The sender's retry succeeds: ready without waiting for a probe.
    assertThat(writeOne(now).statusCode()).isEqualTo(204);
    assertThat(server.store().writeHealth().failure()).isNull();
    assertThat(get(base.resolve("/-/ready")).statusCode()).isEqualTo(200);
  }
}
