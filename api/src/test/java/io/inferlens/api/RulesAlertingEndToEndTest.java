package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.simulator.Scenario;
import io.inferlens.simulator.SimulationModel;
import io.inferlens.simulator.SimulatorServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The exported rules in a real Prometheus (Debian's 2.42): Prometheus scrapes a healthy and a
 * peak-saturation simulator and remote-writes into InferLens, which learns each target's
 * thresholds from the healthy phase both scenarios start with; the rules exported then
 * ({@code for=10s}) are loaded into the same Prometheus, which must fire CAPACITY_EXHAUSTED for
 * the saturating target once its arrivals ramp past capacity, and nothing for the healthy one
 * over the same time.
 *
 * <p>Time is compressed 30× as in {@link ScenarioEndToEndTest}: scrapes and rule evaluations
 * every second (30 simulated seconds), the analysis at a 1 s step with a 10 s rate window and
 * {@code for} (5 simulated minutes each). The scenarios last 6000 simulated seconds, so their
 * healthy 20 % is 40 s of wall time, the ramp to saturation 40 s to 70 s.
 */
class RulesAlertingEndToEndTest {

  static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  static final double SPEED = 30;
  static final double SCENARIO_S = 6000;
  /** Wall time after the first scrape when the healthy phase ends. */
  static final long HEALTHY_WALL_MS =
      (long) (Scenario.HEALTHY_PHASE * SCENARIO_S / SPEED * 1000);
  /** Wall time after the first scrape by which the alert must have fired. */
  static final long DEADLINE_WALL_MS = 120_000;
  static final ObjectMapper JSON = new ObjectMapper();

  @TempDir static Path dir;
  static InferLensServer rx;
  static URI rxBase;
  static ExternalProcesses.Prom prom;
  static final List<SimulatorServer> sims = new ArrayList<>();
  static final Map<String, String> hostOf = new LinkedHashMap<>();
  static Path rules;
  static long startedMs;

  @BeforeAll
  static void start() throws Exception {
    ExternalProcesses.requireBinary(PROMETHEUS, "prometheus");
    rx = InferLensServer.start(ServerConfig.forTests(dir.resolve("inferlens"))
        .withAnalysis(AnalysisConfig.defaults().withTiming(1_000, 10_000, 10_000, 8_000, 5_000))
        .withEvalInterval(0), Clock.systemUTC());
    rxBase = URI.create("http://127.0.0.1:" + rx.port());
    hostOf.put("healthy", "127.0.0.12");
    hostOf.put("peak-saturation", "127.0.0.13");
    int simPort = ExternalProcesses.freePort();
    StringBuilder targets = new StringBuilder();
    for (Map.Entry<String, String> e : hostOf.entrySet()) {
      sims.add(SimulatorServer.start(new SimulationModel(Scenario.byId(e.getKey()), SCENARIO_S,
          11, 2), "Qwen/Qwen3-32B-FP8", e.getValue(), SPEED,
          new InetSocketAddress(e.getValue(), simPort)));
      targets.append(targets.length() == 0 ? "" : ", ").append("'").append(e.getValue())
          .append(':').append(simPort).append("'");
    }
    rules = dir.resolve("inferlens-rules.yml");
    Files.writeString(rules, "groups: []\n");
    prom = ExternalProcesses.startPrometheus(dir, "prometheus", String.join("\n",
        "global:",
        "  scrape_interval: 1s",
        "  scrape_timeout: 900ms",
        "  evaluation_interval: 1s",
        "rule_files: ['" + rules + "']",
        "scrape_configs:",
        "  - job_name: vllm",
        "    static_configs: [{targets: [" + targets + "]}]",
        "  - job_name: dcgm",
        "    metrics_path: /dcgm/metrics",
        "    static_configs: [{targets: [" + targets + "]}]",
        "  - job_name: kafka",
        "    metrics_path: /kafka/metrics",
        "    static_configs: [{targets: [" + targets + "]}]",
        "remote_write:",
        "  - url: " + rxBase + "/api/v1/write",
        "    queue_config: {batch_send_deadline: 1s}",
        ""), "--web.enable-lifecycle");
    prom.awaitReady();
    startedMs = System.currentTimeMillis();
  }

  @AfterAll
  static void stop() throws Exception {
    if (prom != null) {
      ExternalProcesses.stop(prom.process());
    }
    for (SimulatorServer s : sims) {
      s.close();
    }
    if (rx != null) {
      rx.close();
    }
  }

  /** The rule file once both targets have latency rules, exported before the fault begins. */
  static String exportWhenLearned() throws Exception {
    String last = "";
    // Leave the baselines most of the healthy phase, but load the rules before it ends.
    Thread.sleep(Math.max(0, startedMs + HEALTHY_WALL_MS - 12_000 - System.currentTimeMillis()));
    while (System.currentTimeMillis() < startedMs + HEALTHY_WALL_MS - 2_000) {
      HttpResponse<String> r = Requests.get(rxBase.resolve("/api/v1/rules/export?for=10s"));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
      last = r.body();
      if (countOf(last, "alert: PER_REQUEST_SLOWDOWN") == 2
          && countOf(last, "alert: CAPACITY_EXHAUSTED") == 2) {
        return last;
      }
      Thread.sleep(1_000);
    }
    throw new AssertionError("no latency rules for both targets within the healthy phase;"
        + " last export:\n" + last);
  }

  static int countOf(String text, String part) {
    int n = 0;
    for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
      n++;
    }
    return n;
  }

  @Test
  void prometheusFiresTheCauseOnTheFaultAndStaysQuietOnHealthyTraffic() throws Exception {
    String exported = exportWhenLearned();
    Files.writeString(rules, exported);
    HttpResponse<String> reload = Requests.post(prom.base().resolve("/-/reload"), new byte[0],
        "text/plain", null);
    assertThat(reload.statusCode()).as("reload: %s\n%s", reload.body(),
        ExternalProcesses.tail(prom.log())).isEqualTo(200);
    JsonNode groups = JSON.readTree(Requests.get(prom.base().resolve("/api/v1/rules")).body())
        .get("data").get("groups");
    assertThat(groups).as("rule groups loaded by Prometheus").hasSize(2);
    for (JsonNode g : groups) {
      for (JsonNode r : g.get("rules")) {
        assertThat(r.get("health").asText()).as("%s %s: %s", g.get("name"), r.get("name"),
            r.get("lastError")).isNotEqualTo("err");
      }
    }
    String healthyInstance = hostOf.get("healthy") + ":";
    String peakInstance = hostOf.get("peak-saturation") + ":";
    Set<String> peakFiring = new LinkedHashSet<>();
    Set<String> healthyFiring = new LinkedHashSet<>();
    long firedAt = -1;
    StringBuilder timeline = new StringBuilder();
    // Bounded: until the deadline, and at least as long as the fault took to fire once fired.
    while (System.currentTimeMillis() < startedMs + DEADLINE_WALL_MS) {
      StringBuilder seen = new StringBuilder();
      for (JsonNode a : JSON.readTree(Requests.get(prom.base().resolve("/api/v1/alerts"))
          .body()).get("data").get("alerts")) {
        seen.append(' ').append(a.get("labels").get("instance").asText()).append('/')
            .append(a.get("labels").get("alertname").asText()).append('=')
            .append(a.get("state").asText());
        if (!a.get("state").asText().equals("firing")) {
          continue;
        }
        String instance = a.get("labels").get("instance").asText();
        String name = a.get("labels").get("alertname").asText();
        if (instance.startsWith(peakInstance)) {
          peakFiring.add(name);
        } else if (instance.startsWith(healthyInstance)) {
          healthyFiring.add(name + " " + a.get("value").asText());
        }
      }
      timeline.append("\n  t=").append((System.currentTimeMillis() - startedMs) / 1000)
          .append("s:").append(seen);
      if (firedAt < 0 && peakFiring.contains("CAPACITY_EXHAUSTED")) {
        firedAt = System.currentTimeMillis();
      }
      if (firedAt > 0 && System.currentTimeMillis() > firedAt + 5_000) {
        break;
      }
      Thread.sleep(1_000);
    }
    assertThat(peakFiring).as("alerts firing for peak-saturation; seen:%s\nexported:\n%s",
        timeline, exported).contains("CAPACITY_EXHAUSTED");
    assertThat(healthyFiring).as("alerts firing for the healthy target; seen:%s", timeline)
        .isEmpty();
    // The quiet target was watched for as long as the fault needed to fire and more.
    assertThat(System.currentTimeMillis() - startedMs).isGreaterThan(HEALTHY_WALL_MS);
  }
}
