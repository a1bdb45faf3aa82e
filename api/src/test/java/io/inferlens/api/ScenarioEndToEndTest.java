package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.simulator.Scenario;
import io.inferlens.simulator.SimulationModel;
import io.inferlens.simulator.SimulatorServer;
import io.inferlens.simulator.Stack;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every simulator scenario end to end: the real Prometheus (Debian) scrapes one simulator per
 * scenario — each on its own loopback address, so GPU and Kafka series join by host — and
 * remote-writes into InferLens; {@code GET /api/v1/diagnoses} must then name each scenario's cause
 * and find nothing for {@code healthy}.
 *
 * <p>A few scenarios also play on other stacks ({@link #STACK_CASES}: vLLM 0.6 V0, SGLang, TGI,
 * each scraped as its own Prometheus job), side by side with the others, so the real scrape path
 * of their expositions is covered at no extra wall time; {@code StackScenarioMatrixTest} covers
 * every pair without Prometheus.
 *
 * <p>Time is compressed 30×: a scenario's hour plays in two minutes of wall time, Prometheus
 * scrapes every second (30 simulated seconds), and the analysis runs at a 1 s step with a 10 s
 * rate window and a 10 s {@code for} (5 simulated minutes each, the defaults' proportions).
 */
class ScenarioEndToEndTest {

  static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  static final double SPEED = 30;
  /** Wall time the scenarios play before the diagnoses are read: the hour is 120 s at 30×. */
  static final Duration PLAY = Duration.ofSeconds(115);
  static final ObjectMapper JSON = new ObjectMapper();

  /** Scenario → the cause it must produce (null: none at all). */
  static final Map<Scenario, String> EXPECTED = new LinkedHashMap<>();

  static {
    EXPECTED.put(Scenario.byId("healthy"), null);
    EXPECTED.put(Scenario.byId("peak-saturation"), "CAPACITY_EXHAUSTED");
    EXPECTED.put(Scenario.byId("kv-pressure"), "KV_CACHE_PRESSURE");
    EXPECTED.put(Scenario.byId("per-request-slowdown"), "PER_REQUEST_SLOWDOWN");
    EXPECTED.put(Scenario.byId("long-prompts"), "WORKLOAD_SHIFT");
    EXPECTED.put(Scenario.byId("kafka-backlog"), "UPSTREAM_BACKLOG");
    EXPECTED.put(Scenario.byId("scrape-gap"), "MONITORING_GAP");
  }

  /** A scenario on a non-default stack and the cause it must produce. */
  record StackCase(Stack stack, Scenario scenario, String cause) {}

  static final List<StackCase> STACK_CASES = List.of(
      new StackCase(Stack.VLLM_0_6, Scenario.byId("kv-pressure"), "KV_CACHE_PRESSURE"),
      new StackCase(Stack.SGLANG, Scenario.byId("peak-saturation"), "CAPACITY_EXHAUSTED"),
      new StackCase(Stack.TGI, Scenario.byId("per-request-slowdown"), "PER_REQUEST_SLOWDOWN"));

  @TempDir static Path dir;
  static InferLensServer rx;
  static URI rxBase;
  static Process prom;
  static Path promLog;
  static final List<SimulatorServer> sims = new ArrayList<>();
  static final Map<Scenario, String> hosts = new LinkedHashMap<>();
  static final Map<StackCase, String> stackHosts = new LinkedHashMap<>();
  static long startedMs;

  @BeforeAll
  static void playAllScenarios() throws Exception {
    ExternalProcesses.requireBinary(PROMETHEUS, "prometheus");
    AnalysisConfig analysis = AnalysisConfig.defaults()
        .withTiming(1_000, 10_000, 10_000, 8_000, 5_000);
    int rxPort = ExternalProcesses.freePort();
    rx = InferLensServer.start(new ServerConfig(new InetSocketAddress("127.0.0.1", rxPort),
        dir.resolve("inferlens"), ServerConfig.DEFAULT_RETENTION_MS,
        ServerConfig.DEFAULT_MAX_REQUEST_BYTES, ServerConfig.DEFAULT_MAX_FUTURE_MS, false)
        .withAnalysis(analysis), Clock.systemUTC());
    rxBase = URI.create("http://127.0.0.1:" + rxPort);

    int simPort = ExternalProcesses.freePort();
    StringBuilder targets = new StringBuilder();
    int n = 2;
    for (Scenario sc : EXPECTED.keySet()) {
      String host = "127.0.0." + n++;
      hosts.put(sc, host);
      sims.add(SimulatorServer.start(new SimulationModel(sc, 3600, 7, 2), "Qwen/Qwen3-32B-FP8",
          host, SPEED, new InetSocketAddress(host, simPort)));
      targets.append(targets.length() == 0 ? "" : ", ").append("'").append(host).append(':')
          .append(simPort).append("'");
    }
    Map<String, StringBuilder> jobTargets = new LinkedHashMap<>();
    jobTargets.put("vllm", new StringBuilder(targets));
    StringBuilder all = new StringBuilder(targets);
    for (StackCase c : STACK_CASES) {
      String host = "127.0.0." + n++;
      stackHosts.put(c, host);
      sims.add(SimulatorServer.start(new SimulationModel(c.scenario(), 3600, 7,
          c.stack().defaultEngines()), c.stack(), "Qwen/Qwen3-32B-FP8", host, SPEED,
          new InetSocketAddress(host, simPort)));
      String t = "'" + host + ":" + simPort + "'";
      StringBuilder job = jobTargets.computeIfAbsent(c.stack().job(), k -> new StringBuilder());
      job.append(job.length() == 0 ? "" : ", ").append(t);
      all.append(", ").append(t);
    }
    List<String> scrapeJobs = new ArrayList<>();
    jobTargets.forEach((job, t) -> {
      scrapeJobs.add("  - job_name: " + job);
      scrapeJobs.add("    static_configs: [{targets: [" + t + "]}]");
    });
    int promPort = ExternalProcesses.freePort();
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(config, String.join("\n",
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 900ms",
        "scrape_configs:",
        String.join("\n", scrapeJobs),
        "  - job_name: dcgm",
        "    metrics_path: /dcgm/metrics",
        "    static_configs: [{targets: [" + all + "]}]",
        "  - job_name: kafka",
        "    metrics_path: /kafka/metrics",
        "    static_configs: [{targets: [" + all + "]}]",
        "remote_write:",
        "  - url: " + rxBase + "/api/v1/write",
        ""));
    promLog = dir.resolve("prometheus.log");
    prom = new ProcessBuilder(PROMETHEUS.toString(), "--config.file=" + config,
        "--storage.tsdb.path=" + dir.resolve("prom-data"),
        "--web.listen-address=127.0.0.1:" + promPort)
        .redirectErrorStream(true).redirectOutput(promLog.toFile()).start();
    ExternalProcesses.awaitOk(URI.create("http://127.0.0.1:" + promPort + "/-/ready"), prom,
        Duration.ofSeconds(60), promLog);
    startedMs = System.currentTimeMillis();
    Thread.sleep(PLAY.toMillis());
    assertThat(prom.isAlive()).as("prometheus alive; log:\n%s", ExternalProcesses.tail(promLog))
        .isTrue();
  }

  @AfterAll
  static void stopAll() throws Exception {
    ExternalProcesses.stop(prom);
    for (SimulatorServer s : sims) {
      s.close();
    }
    if (rx != null) {
      rx.close();
    }
  }

  static List<JsonNode> diagnosesOf(String host) throws Exception {
    HttpResponse<String> r = Requests.get(rxBase.resolve("/api/v1/diagnoses?start="
        + (startedMs / 1000 - 60) + "&match[]=" + Requests.enc("{instance=~\"" + host.replace(".",
            "\\\\.") + ":.*\"}")));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode root = JSON.readTree(r.body());
    assertThat(root.get("status").asText()).isEqualTo("success");
    List<JsonNode> out = new ArrayList<>();
    root.get("data").get("diagnoses").forEach(out::add);
    return out;
  }

  static String describe(List<JsonNode> ds) {
    StringBuilder sb = new StringBuilder();
    for (JsonNode d : ds) {
      sb.append("\n  ").append(d.get("cause").asText()).append(' ').append(d.get("start"))
          .append("..").append(d.get("end")).append(": ").append(d.get("summary").asText());
    }
    return sb.toString();
  }

  @Test
  void everyScenarioIsDiagnosedAsItsCause() throws Exception {
    List<String> failures = new ArrayList<>();
    for (Map.Entry<Scenario, String> e : EXPECTED.entrySet()) {
      List<JsonNode> ds = diagnosesOf(hosts.get(e.getKey()));
      List<String> causes = ds.stream().map(d -> d.get("cause").asText()).distinct().toList();
      String expected = e.getValue();
      boolean ok = expected == null ? ds.isEmpty()
          : causes.contains(expected) && causes.stream().allMatch(c -> c.equals(expected)
              || c.equals("MONITORING_GAP") && !expected.equals("MONITORING_GAP"));
      if (!ok) {
        failures.add(e.getKey().id() + ": expected " + (expected == null ? "none" : expected)
            + ", got" + describe(ds));
      }
    }
    for (StackCase c : STACK_CASES) {
      List<JsonNode> ds = diagnosesOf(stackHosts.get(c));
      List<String> causes = ds.stream().map(d -> d.get("cause").asText()).distinct().toList();
      if (!causes.contains(c.cause()) || !causes.stream().allMatch(x -> x.equals(c.cause())
          || x.equals("MONITORING_GAP"))) {
        failures.add(c.stack().id() + "/" + c.scenario().id() + ": expected " + c.cause()
            + ", got" + describe(ds));
      }
    }
    assertThat(failures).as("scenario diagnoses").isEmpty();
  }

  @Test
  void peakSaturationCarriesQueueAndResourceEvidence() throws Exception {
    JsonNode d = diagnosesOf(hosts.get(Scenario.byId("peak-saturation"))).stream()
        .filter(x -> x.get("cause").asText().equals("CAPACITY_EXHAUSTED")).findFirst()
        .orElseThrow();
    JsonNode chain = d.get("chain");
    assertThat(chain.get(0).get("verdict").asText()).isEqualTo("breached");
    assertThat(chain.get(1).get("layer").asText()).isEqualTo("queue");
    assertThat(chain.get(1).get("verdict").asText()).isEqualTo("saturated");
    assertThat(chain.get(2).get("verdict").asText()).isEqualTo("saturated");
    List<String> resourceSignals = new ArrayList<>();
    chain.get(2).get("evidence").forEach(ev -> resourceSignals.add(ev.get("signal").asText()));
    assertThat(resourceSignals).contains("gpu_util", "kv_cache_usage");
    JsonNode waiting = null;
    for (JsonNode ev : chain.get(1).get("evidence")) {
      if (ev.get("signal").asText().equals("waiting")) {
        waiting = ev;
      }
    }
    assertThat(waiting).isNotNull();
    assertThat(waiting.get("value").asDouble()).isGreaterThan(5);
    // The evidence names its PromQL; the query API answers it over the diagnosed period.
    String promql = waiting.get("promql").asText();
    assertThat(promql).startsWith("sum(vllm:num_requests_waiting{");
    long from = java.time.Instant.parse(d.get("start").asText()).getEpochSecond();
    java.net.http.HttpResponse<String> r = Requests.get(rxBase.resolve("/api/v1/query_range?query="
        + Requests.enc(promql) + "&start=" + from + "&end=" + (from + 600) + "&step=15"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode values = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body())
        .get("data").get("result").get(0).get("values");
    assertThat(values.size()).isGreaterThan(10);
    assertThat(d.get("summary").asText()).contains("waiting").contains("GPU");
    assertThat(d.get("recommendations").toString()).contains("max-num-seqs");
  }

  @Test
  void targetsSignalsAndBaselinesDescribeTheSameTargets() throws Exception {
    String start = "&start=" + (startedMs / 1000 - 60);
    JsonNode targets = JSON.readTree(Requests.get(rxBase.resolve("/api/v1/targets?" + start))
        .body()).get("data").get("targets");
    assertThat(targets).hasSize(EXPECTED.size() + STACK_CASES.size());
    String peakHost = hosts.get(Scenario.byId("peak-saturation"));
    String id = null;
    for (JsonNode t : targets) {
      String instance = t.get("labels").get("instance").asText();
      String job = "vllm";
      for (Map.Entry<StackCase, String> c : stackHosts.entrySet()) {
        if (instance.startsWith(c.getValue() + ":")) {
          job = c.getKey().stack().job();
        }
      }
      assertThat(t.get("labels").get("job").asText()).as(instance).isEqualTo(job);
      if (t.get("labels").get("instance").asText().startsWith(peakHost + ":")) {
        id = t.get("id").asText();
      }
    }
    assertThat(id).isNotNull();
    for (String smoothing : List.of("ema", "sma", "none")) {
      HttpResponse<String> r = Requests.get(rxBase.resolve("/api/v1/signals?target="
          + Requests.enc(id) + "&signal=e2e_p95&step=1s&smoothing=" + smoothing + start));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      JsonNode data = JSON.readTree(r.body()).get("data");
      assertThat(data.get("metric").asText()).isEqualTo("vllm:e2e_request_latency_seconds");
      assertThat(data.get("unit").asText()).isEqualTo("s");
      int n = data.get("timestamps").size();
      assertThat(n).isGreaterThan(60);
      assertThat(data.get("raw")).hasSize(n);
      assertThat(data.get("smoothed")).hasSize(n);
      assertThat(data.get("threshold")).hasSize(n);
      double maxRaw = 0;
      for (JsonNode v : data.get("raw")) {
        maxRaw = Math.max(maxRaw, v.isNull() ? 0 : v.asDouble());
      }
      assertThat(maxRaw).as("E2E P95 under saturation, seconds").isGreaterThan(5);
    }
    HttpResponse<String> bad = Requests.get(rxBase.resolve("/api/v1/signals?target="
        + Requests.enc(id) + "&signal=nonsense" + start));
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("nonsense");
    JsonNode baselines = JSON.readTree(Requests.get(rxBase.resolve("/api/v1/baselines?target="
        + Requests.enc(id) + start)).body()).get("data");
    assertThat(baselines.get("headroom").asDouble()).isEqualTo(1.5);
    JsonNode e2e = null;
    for (JsonNode b : baselines.get("targets").get(0).get("baselines")) {
      if (b.get("signal").asText().equals("e2e_p95")) {
        e2e = b;
      }
    }
    assertThat(e2e).isNotNull();
    assertThat(e2e.get("source").asText()).isEqualTo("baseline");
    assertThat(e2e.get("threshold").asDouble())
        .isCloseTo(1.5 * e2e.get("baseline").asDouble(), org.assertj.core.data.Offset.offset(1e-6));
  }
}
