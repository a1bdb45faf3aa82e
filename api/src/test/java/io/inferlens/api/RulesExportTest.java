package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.Indicator;
import io.inferlens.simulator.Scenario;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code GET /api/v1/rules/export} and {@code inferlens rules export} over two hours of several
 * stacks at the default analysis settings: a simulated vLLM engine with its GPUs and a Kafka
 * consumer group, and steady replays of the SGLang, Triton and llama.cpp fixtures (with DCGM
 * for SGLang), plus 20 minutes of TGI, too little for a baseline. An E2E P95 SLO of 120 s
 * is configured, above every replayed engine's E2E. Debian's {@code promtool check rules} must
 * accept the file; thresholds must be the learned ones ({@code /api/v1/baselines}) or the SLO;
 * every expression must be quiet on this healthy data when InferLens's own query API
 * evaluates it.
 */
class RulesExportTest {

  static final Path PROMTOOL = Path.of("/usr/bin/promtool");
  static final ObjectMapper JSON = new ObjectMapper();
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final double E2E_SLO = 120;
  static final long TWO_HOURS = 2 * 3_600_000L;

  @TempDir static Path dir;
  static InferLensServer server;
  static URI base;
  /** Target id by the instance of its engine. */
  static final Map<String, String> ids = new LinkedHashMap<>();
  static String yaml;

  @BeforeAll
  static void load() throws Exception {
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data"))
        .withAnalysis(AnalysisConfig.defaults().withSlos(Map.of(Indicator.E2E_P95, E2E_SLO)))
        .withEvalInterval(0), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
    long now = System.currentTimeMillis();
    SimulatedWrites w = new SimulatedWrites(base);
    w.playScenario(Scenario.byId("healthy"), TWO_HOURS / 1000.0, "10.0.0.2", "Qwen/Qwen3-32B-FP8",
        now, 7);
    w.replayFixture(fixture("kafka-exporter"), "kafka", "10.0.0.2:9308", now - TWO_HOURS, now);
    w.replayFixture(fixture("sglang"), "sglang", "10.0.1.2:30000", now - TWO_HOURS, now);
    w.replayFixture(fixture("dcgm-exporter"), "dcgm", "10.0.1.2:9400", now - TWO_HOURS, now);
    w.replayFixture(fixture("triton"), "triton", "10.0.1.4:8002", now - TWO_HOURS, now);
    w.replayFixture(fixture("llamacpp"), "llamacpp", "10.0.1.5:8080", now - TWO_HOURS, now);
    w.replayFixture(fixture("tgi"), "tgi", "10.0.1.3:8080", now - 20 * 60_000L, now);
    for (JsonNode t : JSON.readTree(Requests.get(base.resolve("/api/v1/targets")).body())
        .get("data").get("targets")) {
      ids.put(t.get("labels").get("instance").asText(), t.get("id").asText());
    }
    assertThat(ids).containsKeys("10.0.0.2:8000", "10.0.1.2:30000", "10.0.1.3:8080",
        "10.0.1.4:8002", "10.0.1.5:8080");
    HttpResponse<String> r = Requests.get(base.resolve("/api/v1/rules/export"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("application/yaml");
    yaml = r.body();
    // Kept for a person to read (target/ is not committed).
    Files.writeString(Path.of("target", "rules-export-sample.yml"), yaml);
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  static String fixture(String name) throws Exception {
    try (InputStream in = RulesExportTest.class.getResourceAsStream("/fixtures/" + name
        + ".prom")) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** Runs {@code promtool check rules} on a file; returns its output, asserting exit 0. */
  static String promtoolCheck(Path file) throws Exception {
    ExternalProcesses.requireBinary(PROMTOOL, "prometheus");
    Process p = new ProcessBuilder(PROMTOOL.toString(), "check", "rules", file.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("promtool check rules:\n%s\n%s", out, Files.readString(file))
        .isZero();
    return out;
  }

  /** @return the group of a target's rules, by alert name */
  static Map<String, JsonNode> rulesOf(JsonNode file, String instance) {
    Map<String, JsonNode> out = new LinkedHashMap<>();
    for (JsonNode g : file.get("groups")) {
      if (g.get("name").asText().equals("inferlens-" + ids.get(instance))) {
        g.get("rules").forEach(r -> out.put(r.get("alert").asText(), r));
      }
    }
    return out;
  }

  /** The number the expression compares an indicator's formula (starting with prefix) with. */
  static double thresholdIn(String expr, String prefix) {
    int at = expr.indexOf(prefix);
    assertThat(at).as("%s in\n%s", prefix, expr).isNotNegative();
    Matcher m = Pattern.compile("\\) > ([0-9.]+)\\)").matcher(expr);
    assertThat(m.find(at)).as(expr).isTrue();
    return Double.parseDouble(m.group(1));
  }

  @Test
  void promtoolAcceptsTheExportedRules() throws Exception {
    Path file = dir.resolve("inferlens-rules.yml");
    Files.writeString(file, yaml);
    String out = promtoolCheck(file);
    assertThat(out).contains("SUCCESS");
    JsonNode parsed = YAML.readTree(yaml);
    TreeSet<String> groups = new TreeSet<>();
    parsed.get("groups").forEach(g -> groups.add(g.get("name").asText()));
    for (String instance : List.of("10.0.0.2:8000", "10.0.1.2:30000", "10.0.1.3:8080",
        "10.0.1.4:8002", "10.0.1.5:8080")) {
      assertThat(groups).as("groups in\n%s", yaml).contains("inferlens-" + ids.get(instance));
    }
  }

  @Test
  void vllmRulesPairLatencyWithQueueAndResourceAtTheLearnedThresholds() throws Exception {
    Map<String, JsonNode> rules = rulesOf(YAML.readTree(yaml), "10.0.0.2:8000");
    assertThat(rules.keySet()).as(yaml).containsExactly("KV_CACHE_PRESSURE",
        "CAPACITY_EXHAUSTED", "CONCURRENCY_LIMIT", "GPU_COMPUTE_BOUND", "WORKLOAD_SHIFT",
        "PER_REQUEST_SLOWDOWN", "UPSTREAM_BACKLOG");
    String id = ids.get("10.0.0.2:8000");
    JsonNode baselines = JSON.readTree(Requests.get(base.resolve("/api/v1/baselines?target="
        + Requests.enc(id))).body()).get("data").get("targets").get(0).get("baselines");
    Map<String, JsonNode> byKey = new LinkedHashMap<>();
    baselines.forEach(b -> byKey.put(b.get("signal").asText(), b));
    assertThat(byKey.get("ttft_p95").get("source").asText()).isEqualTo("baseline");
    double ttftThreshold = byKey.get("ttft_p95").get("threshold").asDouble();
    assertThat(ttftThreshold).isCloseTo(1.5 * byKey.get("ttft_p95").get("baseline").asDouble(),
        org.assertj.core.data.Percentage.withPercentage(0.01));
    for (JsonNode r : rules.values()) {
      String alert = r.get("alert").asText();
      assertThat(r.get("for").asText()).isEqualTo("5m");
      assertThat(r.get("labels").get("severity").asText())
          .isEqualTo(alert.equals("CAPACITY_EXHAUSTED") ? "critical" : "warning");
      assertThat(r.get("labels").get("job").asText()).isEqualTo("vllm");
      assertThat(r.get("labels").get("instance").asText()).isEqualTo("10.0.0.2:8000");
      assertThat(r.get("labels").get("model_name").asText()).isEqualTo("Qwen/Qwen3-32B-FP8");
      assertThat(r.get("labels").get("inferlens_cause").asText()).isEqualTo(alert);
      JsonNode a = r.get("annotations");
      assertThat(a.get("summary").asText()).contains("{{ $value").contains("10.0.0.2:8000");
      assertThat(a.get("recommendations").asText())
          .isEqualTo(String.join("\n", Cause.valueOf(alert).recommendations()));
      // The target id is a query value: its own %-escapes are escaped once more.
      assertThat(a.get("runbook_url").asText()).isEqualTo(base + "/#/incidents?cause=" + alert
          + "&target=" + id.replace("%", "%25"));
      String expr = r.get("expr").asText();
      if (!alert.equals("UPSTREAM_BACKLOG")) {
        assertThat(thresholdIn(expr, "histogram_quantile(0.95, sum by (le) (rate("
            + "vllm:time_to_first_token_seconds_bucket{")).isCloseTo(ttftThreshold,
            org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(thresholdIn(expr, "histogram_quantile(0.95, sum by (le) (rate("
            + "vllm:e2e_request_latency_seconds_bucket{")).isEqualTo(E2E_SLO);
        assertThat(a.get("description").asText()).contains("TTFT P95 above")
            .contains("learned normal P95").contains("E2E P95 above 120 s (SLO)");
      }
    }
    String concurrency = rules.get("CONCURRENCY_LIMIT").get("expr").asText();
    assertThat(concurrency).contains("and on() ((sum(vllm:num_requests_waiting{")
        .contains(">= 0.1 * (sum(vllm:num_requests_running{")
        .contains("unless on() ((avg(DCGM_FI_DEV_GPU_UTIL{");
    assertThat(rules.get("PER_REQUEST_SLOWDOWN").get("expr").asText())
        .contains("unless on() ((sum(vllm:num_requests_waiting{");
    assertThat(rules.get("UPSTREAM_BACKLOG").get("expr").asText())
        .contains("kafka_consumergroup_lag{").contains(">= 1000").contains("deriv((")
        .contains("[5m:30s]");
  }

  @Test
  void everyStackGetsRulesAndATargetWithoutBaselineOnlyItsSloRule() throws Exception {
    JsonNode file = YAML.readTree(yaml);
    assertThat(rulesOf(file, "10.0.1.2:30000").keySet()).as(yaml)
        .contains("CAPACITY_EXHAUSTED", "CONCURRENCY_LIMIT", "PER_REQUEST_SLOWDOWN")
        .doesNotContain("KV_CACHE_PRESSURE"); // SGLang exposes no preemption counter
    // The busy SGLang scrape breaches the static TTFT and TPOT defaults at every step, so
    // it learns no baseline for them: its rules compare E2E with the SLO.
    assertThat(rulesOf(file, "10.0.1.2:30000").get("CONCURRENCY_LIMIT").get("expr").asText())
        .contains("sglang:e2e_request_latency_seconds_bucket{").contains("> 120)")
        .contains("sglang:num_queue_reqs{").contains("sglang:num_running_reqs{");
    assertThat(rulesOf(file, "10.0.1.4:8002").get("PER_REQUEST_SLOWDOWN").get("expr").asText())
        .contains("nv_inference_request_duration_us{");
    assertThat(rulesOf(file, "10.0.1.5:8080").get("PER_REQUEST_SLOWDOWN").get("expr").asText())
        .contains("llamacpp:tokens_predicted_seconds_total{");
    // TGI: 20 minutes of history is less than the 1 h a baseline needs, so only the E2E SLO.
    Map<String, JsonNode> tgi = rulesOf(file, "10.0.1.3:8080");
    assertThat(tgi).containsKey("PER_REQUEST_SLOWDOWN");
    String expr = tgi.get("PER_REQUEST_SLOWDOWN").get("expr").asText();
    assertThat(expr).contains("tgi_request_duration_bucket{").contains("> 120)")
        .doesNotContain("tgi_request_mean_time_per_token_duration_bucket");
    assertThat(yaml).contains("# inferlens-" + ids.get("10.0.1.3:8080")
        + ": no TPOT/ITL P95 rule condition: no baseline learned yet");
    assertThat(tgi.get("PER_REQUEST_SLOWDOWN").get("labels").has("model_name")).isFalse();
  }

  @Test
  void everyExpressionIsQuietOnHealthyData() throws Exception {
    List<String> firing = new ArrayList<>();
    for (JsonNode g : YAML.readTree(yaml).get("groups")) {
      for (JsonNode r : g.get("rules")) {
        String expr = r.get("expr").asText();
        HttpResponse<String> q = Requests.get(base.resolve("/api/v1/query?query="
            + Requests.enc(expr)));
        assertThat(q.statusCode()).as("%s\n%s", expr, q.body()).isEqualTo(200);
        JsonNode result = JSON.readTree(q.body()).get("data").get("result");
        if (result.size() > 0) {
          firing.add(g.get("name").asText() + " " + r.get("alert").asText() + " = " + result);
        }
      }
    }
    assertThat(firing).as("rules true on healthy data").isEmpty();
  }

  @Test
  void parametersShapeTheRulesAndBadOnesAre400NamingThem() throws Exception {
    HttpResponse<String> r = Requests.get(base.resolve("/api/v1/rules/export?for=90s&window=2m"
        + "&external_url=" + Requests.enc("https://inferlens.example/") + "&match[]="
        + Requests.enc("{job=\"vllm\"}")));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode file = YAML.readTree(r.body());
    assertThat(file.get("groups")).hasSize(1);
    for (JsonNode rule : file.get("groups").get(0).get("rules")) {
      assertThat(rule.get("for").asText()).isEqualTo("1m30s");
      assertThat(rule.get("expr").asText()).doesNotContain("[5m]");
      assertThat(rule.get("annotations").get("runbook_url").asText())
          .startsWith("https://inferlens.example/#/incidents?cause=");
    }
    assertThat(file.get("groups").get(0).get("rules").get(0).get("expr").asText())
        .contains("[2m]");
    for (String[] bad : new String[][] {{"for=soon", "for"}, {"window=0", "window"},
        {"for=-5m", "for"}, {"external_url=inferlens:9201", "external_url"},
        {"match[]=" + Requests.enc("{job="), "match[]"}}) {
      HttpResponse<String> e = Requests.get(base.resolve("/api/v1/rules/export?" + bad[0]));
      assertThat(e.statusCode()).as(bad[0]).isEqualTo(400);
      JsonNode body = JSON.readTree(e.body());
      assertThat(body.get("errorType").asText()).isEqualTo("bad_data");
      assertThat(body.get("error").asText()).as(bad[0]).contains("parameter " + bad[1]);
    }
  }

  @Test
  void cliWritesWhatTheEndpointServes() throws Exception {
    Path out = dir.resolve("cli-rules.yml");
    StringWriter err = new StringWriter();
    CommandLine cli = new CommandLine(new Main()).setErr(new PrintWriter(err));
    int code = cli.execute("rules", "export", "--url", base.toString(), "--for", "10m",
        "--window", "5m", "--match", "{job=\"sglang\"}", "--output", out.toString());
    assertThat(code).as(err.toString()).isZero();
    String text = Files.readString(out);
    assertThat(text).startsWith("# Prometheus alerting rules exported by InferLens");
    promtoolCheck(out);
    JsonNode file = YAML.readTree(text);
    assertThat(file.get("groups")).hasSize(1);
    assertThat(file.get("groups").get(0).get("name").asText())
        .isEqualTo("inferlens-" + ids.get("10.0.1.2:30000"));
    assertThat(file.get("groups").get(0).get("rules").get(0).get("for").asText())
        .isEqualTo("10m");
    // Printed to standard output without --output.
    ByteArrayOutputStream stdout = new ByteArrayOutputStream();
    CommandLine printing = new CommandLine(new Main())
        .setOut(new PrintWriter(stdout, true, StandardCharsets.UTF_8));
    assertThat(printing.execute("rules", "export", "--url", base + "/", "--for", "10m",
        "--match", "{job=\"sglang\"}")).isZero();
    assertThat(YAML.readTree(stdout.toString(StandardCharsets.UTF_8)).get("groups"))
        .isEqualTo(file.get("groups"));
    // A refused request is exit 2 with the server's message; no server is exit 1.
    StringWriter err2 = new StringWriter();
    assertThat(new CommandLine(new Main()).setErr(new PrintWriter(err2)).execute("rules",
        "export", "--url", base.toString(), "--for", "soon")).isEqualTo(2);
    assertThat(err2.toString()).contains("400").contains("parameter for");
    int closed = ExternalProcesses.freePort();
    assertThat(new CommandLine(new Main()).setErr(new PrintWriter(new StringWriter()))
        .execute("rules", "export", "--url", "http://127.0.0.1:" + closed)).isEqualTo(1);
  }
}
