package io.inferlens.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class SimulatorServerTest {

  private static final HttpClient HTTP = HttpClient.newBuilder()
      // HTTP/1.1 as Prometheus speaks it: the JDK client's default h2c upgrade once failed
      // with "EOF reached while reading" against Armeria in CI (SimulatorServerTest).
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private static HttpResponse<String> get(int port, String path) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void servesAllThreeEndpointsWhileTheClockRuns() throws Exception {
    SimulationModel model = new SimulationModel(Scenario.PEAK_SATURATION, 3600, 1, 2);
    try (SimulatorServer server = SimulatorServer.start(model, "Qwen/Qwen3-32B-FP8", "sim-host",
        600, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      Thread.sleep(1500);
      HttpResponse<String> vllm = get(server.port(), "/metrics");
      assertThat(vllm.statusCode()).isEqualTo(200);
      assertThat(vllm.headers().firstValue("content-type")).hasValueSatisfying(
          v -> assertThat(v).startsWith("text/plain; version=0.0.4"));
      assertThat(vllm.body())
          .contains("# TYPE vllm:num_requests_running gauge\n")
          .contains("vllm:num_requests_running{engine=\"0\",model_name=\"Qwen/Qwen3-32B-FP8\"} ")
          .contains("vllm:e2e_request_latency_seconds_bucket{engine=\"1\",le=\"7680.0\"");
      HttpResponse<String> dcgm = get(server.port(), "/dcgm/metrics");
      assertThat(dcgm.statusCode()).isEqualTo(200);
      assertThat(dcgm.body()).contains("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"")
          .contains("Hostname=\"sim-host\"");
      HttpResponse<String> kafka = get(server.port(), "/kafka/metrics");
      assertThat(kafka.statusCode()).isEqualTo(200);
      assertThat(kafka.body()).contains(
          "kafka_consumergroup_lag_sum{consumergroup=\"inference-dispatcher\","
              + "topic=\"llm-requests\"} ");
      synchronized (model) {
        assertThat(model.nowSeconds()).as("simulated seconds after ~1.5 s at speed 600")
            .isBetween(300.0, 3000.0);
        assertThat(model.engines().get(0).e2e().count()).isPositive();
      }
      assertThat(get(server.port(), "/").body()).contains("scenario peak-saturation");
    }
  }

  @Test
  void servesTheChosenStacksExposition() throws Exception {
    SimulationModel model = new SimulationModel(Scenario.HEALTHY, 3600, 1, 1);
    try (SimulatorServer server = SimulatorServer.start(model, Stack.SGLANG, "Qwen/Qwen3-8B",
        "sim-host", 60, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      HttpResponse<String> r = get(server.port(), "/metrics");
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).contains("# TYPE sglang:num_queue_reqs gauge\n")
          .contains("sglang:token_usage{engine_type=\"unified\",model_name=\"Qwen/Qwen3-8B\"")
          .doesNotContain("vllm:");
      assertThat(get(server.port(), "/").body()).contains("sglang, scenario healthy");
    }
    SimulationModel two = new SimulationModel(Scenario.HEALTHY, 3600, 1, 2);
    assertThatThrownBy(() -> SimulatorServer.start(two, Stack.TGI, "m", "h", 60,
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--engines 2");
  }

  @Test
  void metricsAnswers503DuringAScrapeGap() throws Exception {
    // 100 s scenario: the first gap is at 20 + 300 .. 390 simulated seconds, ~0.5 s wall at 600x
    SimulationModel model = new SimulationModel(Scenario.SCRAPE_GAP, 100, 1, 2);
    try (SimulatorServer server = SimulatorServer.start(model, "m", "h", 600,
        new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
      assertThat(get(server.port(), "/metrics").statusCode()).isEqualTo(200);
      boolean saw503 = false;
      long deadline = System.nanoTime() + 5_000_000_000L;
      while (!saw503 && System.nanoTime() < deadline) {
        HttpResponse<String> r = get(server.port(), "/metrics");
        saw503 = r.statusCode() == 503;
        if (saw503) {
          assertThat(get(server.port(), "/dcgm/metrics").statusCode()).isEqualTo(200);
        }
        Thread.sleep(20);
      }
      assertThat(saw503).isTrue();
    }
  }
}
