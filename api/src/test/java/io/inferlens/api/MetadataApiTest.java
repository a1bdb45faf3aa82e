package io.inferlens.api;

import static io.inferlens.api.Requests.enc;
import static io.inferlens.api.Requests.get;
import static io.inferlens.api.Requests.post;
import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types.MetricMetadata;
import io.inferlens.proto.prometheus.Types.MetricMetadata.MetricType;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /api/v1/metadata} after remote write and a restart, {@code /api/v1/status/buildinfo}
 * and {@code /api/v1/query_exemplars}, against a real server and store, in Prometheus's shapes.
 */
class MetadataApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String FORM = "application/x-www-form-urlencoded";

  @TempDir Path dir;
  private InferLensServer server;
  private URI base;

  private void start() throws Exception {
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data")), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static MetricMetadata.Builder meta(String family, MetricType type, String help,
      String unit) {
    return MetricMetadata.newBuilder().setMetricFamilyName(family).setType(type).setHelp(help)
        .setUnit(unit);
  }

  /** What a Prometheus scraping a vLLM engine sends in its metadata request, in short. */
  private static WriteRequest vllmMetadata() {
    return WriteRequest.newBuilder()
        .addMetadata(meta("vllm:num_requests_waiting", MetricType.GAUGE,
            "Number of requests waiting to be processed.", ""))
        .addMetadata(meta("vllm:e2e_request_latency_seconds", MetricType.HISTOGRAM,
            "Histogram of end to end request latency in seconds.", "seconds"))
        .addMetadata(meta("vllm:prompt_tokens_total", MetricType.COUNTER,
            "Number of prefill tokens processed.", ""))
        .addMetadata(meta("vllm:cache_config_info", MetricType.INFO, "Information of the"
            + " LLMEngine CacheConfig — \"quoted\" and ünïcode.", ""))
        .build();
  }

  private JsonNode json(String pathAndQuery) throws Exception {
    HttpResponse<String> r = get(base.resolve(pathAndQuery));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("application/json");
    JsonNode n = JSON.readTree(r.body());
    assertThat(n.get("status").asText()).isEqualTo("success");
    return n.get("data");
  }

  private JsonNode error(HttpResponse<String> r, int status) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    JsonNode n = JSON.readTree(r.body());
    assertThat(n.get("status").asText()).isEqualTo("error");
    return n;
  }

  private static final String ALL = "{"
      + "\"vllm:cache_config_info\":[{\"type\":\"info\",\"help\":\"Information of the LLMEngine"
      + " CacheConfig — \\\"quoted\\\" and ünïcode.\",\"unit\":\"\"}],"
      + "\"vllm:e2e_request_latency_seconds\":[{\"type\":\"histogram\",\"help\":\"Histogram of"
      + " end to end request latency in seconds.\",\"unit\":\"seconds\"}],"
      + "\"vllm:num_requests_waiting\":[{\"type\":\"gauge\",\"help\":\"Number of requests"
      + " waiting to be processed.\",\"unit\":\"\"}],"
      + "\"vllm:prompt_tokens_total\":[{\"type\":\"counter\",\"help\":\"Number of prefill tokens"
      + " processed.\",\"unit\":\"\"}]}";

  @Test
  void remoteWrittenMetadataIsServedAndKeptAcrossARestart() throws Exception {
    start();
    assertThat(json("/api/v1/metadata")).isEmpty();
    long now = System.currentTimeMillis();
    assertThat(write(base, vllmMetadata()).statusCode()).isEqualTo(204);
    // Samples arrive in requests of their own, as Prometheus sends them.
    assertThat(write(base, request(series(new String[] {"__name__", "vllm:num_requests_waiting",
        "instance", "a:8000"}, now, 3))).statusCode()).isEqualTo(204);
    assertThat(json("/api/v1/metadata")).isEqualTo(JSON.readTree(ALL));

    server.close();
    server = null;
    start();
    assertThat(json("/api/v1/metadata")).isEqualTo(JSON.readTree(ALL));
    assertThat(json("/api/v1/metadata?metric=" + enc("vllm:e2e_request_latency_seconds")))
        .isEqualTo(JSON.readTree("{\"vllm:e2e_request_latency_seconds\":[{\"type\":"
            + "\"histogram\",\"help\":\"Histogram of end to end request latency in seconds.\","
            + "\"unit\":\"seconds\"}]}"));

    // The minute's re-send changes nothing; a changed help is a second entry, newest first.
    assertThat(write(base, vllmMetadata()).statusCode()).isEqualTo(204);
    assertThat(write(base, WriteRequest.newBuilder().addMetadata(meta("vllm:prompt_tokens_total",
        MetricType.COUNTER, "Prefill tokens.", "")).build()).statusCode()).isEqualTo(204);
    JsonNode tokens = json("/api/v1/metadata?metric=vllm:prompt_tokens_total").get(
        "vllm:prompt_tokens_total");
    assertThat(tokens).hasSize(2);
    assertThat(tokens.get(0).get("help").asText()).isEqualTo("Prefill tokens.");
    assertThat(json("/api/v1/metadata?metric=vllm:prompt_tokens_total&limit_per_metric=1")
        .get("vllm:prompt_tokens_total")).hasSize(1);
    assertThat(json("/api/v1/metadata?limit=2")).hasSize(2);
    assertThat(json("/api/v1/metadata?limit=0")).isEmpty();
    assertThat(json("/api/v1/metadata?limit=-1")).hasSize(4);
    assertThat(json("/api/v1/metadata?metric=nope")).isEmpty();
    String metrics = get(base.resolve("/metrics")).body();
    assertThat(metrics).contains("inferlens_metadata_received_total 5.0")
        .contains("inferlens_metadata_rejected_total 0.0");
  }

  @Test
  void badLimitsAndMethodsAreRefusedAsPrometheusDoes() throws Exception {
    start();
    assertThat(error(get(base.resolve("/api/v1/metadata?limit=ten")), 400).get("error").asText())
        .isEqualTo("limit must be a number");
    assertThat(error(get(base.resolve("/api/v1/metadata?limit_per_metric=1.5")), 400)
        .get("errorType").asText()).isEqualTo("bad_data");
    assertThat(error(post(base.resolve("/api/v1/metadata"), new byte[0], FORM, null), 405)
        .get("errorType").asText()).isEqualTo("method_not_allowed");
  }

  @Test
  void aRefusedMetadataEntryIs400WhileTheOthersAreStored() throws Exception {
    start();
    HttpResponse<String> r = write(base, WriteRequest.newBuilder()
        .addMetadata(meta("", MetricType.COUNTER, "Nameless.", ""))
        .addMetadata(meta("kept", MetricType.GAUGE, "Kept.", ""))
        .build());
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("metadata entry 1 of the request")
        .contains("metric_family_name is empty");
    assertThat(json("/api/v1/metadata").fieldNames()).toIterable().containsExactly("kept");
    assertThat(get(base.resolve("/metrics")).body())
        .contains("inferlens_metadata_rejected_total 1.0");
  }

  @Test
  void buildInfoReportsThePrometheusApiVersionAndInferLensInTheOtherFields() throws Exception {
    start();
    JsonNode data = json("/api/v1/status/buildinfo");
    assertThat(data.fieldNames()).toIterable().containsExactly("version", "revision", "branch",
        "buildUser", "buildDate", "goVersion");
    assertThat(data.get("version").asText()).isEqualTo("2.42.0");
    assertThat(data.get("revision").asText()).isEqualTo("inferlens-" + VersionProvider.version());
    assertThat(data.get("branch").asText()).isEqualTo("inferlens");
    assertThat(data.get("goVersion").asText())
        .isEqualTo("java" + System.getProperty("java.version"));
    assertThat(error(post(base.resolve("/api/v1/status/buildinfo"), new byte[0], FORM, null), 405)
        .get("errorType").asText()).isEqualTo("method_not_allowed");
  }

  @Test
  void queryExemplarsIsAnEmptyListForValidParametersAnd400Otherwise() throws Exception {
    start();
    assertThat(json("/api/v1/query_exemplars?query=" + enc("rate(x[5m])")
        + "&start=1700000000&end=1700000600")).isEqualTo(JSON.createArrayNode());
    HttpResponse<String> form = post(base.resolve("/api/v1/query_exemplars"),
        ("query=" + enc("up") + "&start=2023-11-14T22:13:20Z").getBytes(StandardCharsets.UTF_8),
        FORM, null);
    assertThat(form.statusCode()).as(form.body()).isEqualTo(200);
    assertThat(JSON.readTree(form.body()))
        .isEqualTo(JSON.readTree("{\"status\":\"success\",\"data\":[]}"));

    JsonNode noQuery = error(get(base.resolve("/api/v1/query_exemplars")), 400);
    assertThat(noQuery.get("errorType").asText()).isEqualTo("bad_data");
    assertThat(noQuery.get("error").asText()).contains("\"query\"");
    assertThat(error(get(base.resolve("/api/v1/query_exemplars?query=up&start=yesterday")), 400)
        .get("error").asText()).contains("start");
    assertThat(error(get(base.resolve(
        "/api/v1/query_exemplars?query=up&start=1700000600&end=1700000000")), 400)
        .get("error").asText()).contains("end").contains("before start");
    assertThat(error(post(base.resolve("/api/v1/query_exemplars"), new byte[0], FORM, null), 400)
        .get("errorType").asText()).isEqualTo("bad_data");
    assertThat(error(get(base.resolve("/api/v1/query_exemplars?query=" + enc("sum("))), 400)
        .get("error").asText()).startsWith("invalid parameter \"query\"").contains("parse error");
  }
}
