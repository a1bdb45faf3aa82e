package io.inferlens.api;

import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README walk-through's flags ({@code --eval-step 1s --rate-window 10s --for 10s
 * --baseline-min-history 8s}) on real wiring: RocksDB in a temp dir, Armeria on a loopback port.
 * A 30-day range is answered at a coarsened step instead of refused, and the warm-up evaluates
 * nothing until a client asked, then only what was asked.
 */
class AnalysisWarmupTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long DAY_S = 86_400;

  @TempDir Path dir;
  InferLensServer server;
  URI base;
  long nowMs;

  @BeforeEach
  void start() throws Exception {
    AnalysisConfig analysis = AnalysisConfig.defaults()
        .withTiming(1_000, 10_000, 10_000, 8_000, 5_000);
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data"))
        .withAnalysis(analysis).withAnalysisWarmup(true), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
    nowMs = System.currentTimeMillis();
    long[] ts = new long[30];
    double[] v = new double[30];
    for (int i = 0; i < ts.length; i++) {
      ts[i] = nowMs - 30_000 + i * 1_000L;
      v[i] = i % 4;
    }
    assertThat(write(base, request(series(new String[] {"__name__", "vllm:num_requests_waiting",
        "instance", "a:8000", "model_name", "qwen"}, ts, v))).statusCode()).isEqualTo(204);
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private JsonNode get(String pathAndQuery, int status) throws Exception {
    HttpResponse<String> r = Requests.get(base.resolve(pathAndQuery));
    assertThat(r.statusCode()).as(pathAndQuery + ": " + r.body()).isEqualTo(status);
    return JSON.readTree(r.body());
  }

  @Test
  void pureIngestWarmsNothingAndAskedRangesAreWarmedAtAFittingStep() throws Exception {
    // Ingest and non-analysis reads are not asks.
    get("/api/v1/labels", 200);
    assertThat(server.warmAnalysis()).isZero();

    long end = nowMs / 1000;
    long start = end - 30 * DAY_S;
    // 30 days at the 1 s eval step is 2,592,000 steps: answered at a coarser step, not refused.
    JsonNode targets = get("/api/v1/targets?start=" + start + "&end=" + end, 200);
    String id = targets.get("data").get("targets").get(0).get("id").asText();
    assertThat(get("/api/v1/diagnoses?start=" + start + "&end=" + end, 200)
        .get("status").asText()).isEqualTo("success");
    JsonNode dash = get("/api/v1/dashboard?signal=waiting&target=" + Requests.enc(id)
        + "&start=" + start + "&end=" + end, 200);
    double stepS = dash.get("data").get("step").asDouble();
    assertThat(stepS).isGreaterThan(1).isEqualTo(Math.rint(stepS)); // a multiple of 1 s

    // Two asks: every target over 30 days (targets and diagnoses alike), and the one target.
    assertThat(server.warmAnalysis()).isEqualTo(2);
    assertThat(server.engine().fitStepMs(30 * DAY_S * 1000)).isEqualTo(7_000);
  }
}
