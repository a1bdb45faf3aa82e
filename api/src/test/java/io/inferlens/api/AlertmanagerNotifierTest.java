package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.server.Server;
import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.ChainLayer;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.incident.IncidentEvaluator;
import io.inferlens.analysis.diagnose.Evidence;
import io.inferlens.simulator.Scenario;
import io.micrometer.core.instrument.Counter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Incidents reach a real Alertmanager (Debian's {@code prometheus-alertmanager} 0.25) and through
 * it a webhook receiver that records what arrives: an alert fires with the labels and
 * annotations of the contract, is re-sent after the resend delay, resolves; Alertmanager down,
 * then back, still gets it; a full queue drops the oldest and counts them; a 4xx is not retried.
 * The last test goes through the server: simulated data, one evaluation, the alert in
 * Alertmanager and in {@code /api/v1/alerts} and {@code /api/v1/rules}.
 */
class AlertmanagerNotifierTest {

  static final Path AM = Path.of("/usr/bin/prometheus-alertmanager");
  static final ObjectMapper JSON = new ObjectMapper();
  static final String EXTERNAL = "http://inferlens.example:9201";

  @TempDir
  Path dir;

  Server hook;
  final List<JsonNode> received = new CopyOnWriteArrayList<>();
  final AtomicInteger refusedPosts = new AtomicInteger();
  final List<ExternalProcesses.Prom> ams = new ArrayList<>();
  final List<AlertmanagerNotifier> notifiers = new ArrayList<>();
  final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  @BeforeEach
  void startReceiver() {
    ExternalProcesses.requireBinary(AM, "prometheus-alertmanager");
    hook = Server.builder().http(new InetSocketAddress("127.0.0.1", 0))
        .service("/hook", (ctx, req) -> HttpResponse.of(req.aggregate().thenApply(agg -> {
          try {
            received.add(JSON.readTree(agg.contentUtf8()));
          } catch (java.io.IOException e) {
            return HttpResponse.of(HttpStatus.BAD_REQUEST);
          }
          return HttpResponse.of(HttpStatus.OK);
        })))
        // Stands for an Alertmanager that refuses the alerts for good.
        .service("/refusing/api/v2/alerts", (ctx, req) -> HttpResponse.of(
            req.aggregate().thenApply(agg -> {
              refusedPosts.incrementAndGet();
              return HttpResponse.of(HttpStatus.BAD_REQUEST);
            })))
        .build();
    hook.start().join();
  }

  @AfterEach
  void stopAll() throws Exception {
    notifiers.forEach(AlertmanagerNotifier::close);
    for (ExternalProcesses.Prom p : ams) {
      ExternalProcesses.stop(p.process());
    }
    hook.stop().join();
  }

  private String amConfig() {
    return ExternalProcesses.webhookAlertmanagerConfig(hook.activeLocalPort());
  }

  private ExternalProcesses.Prom startAm(int port, String name) throws Exception {
    ExternalProcesses.Prom am = ExternalProcesses.startAlertmanager(dir, name, port, amConfig());
    ams.add(am);
    am.awaitReady();
    return am;
  }

  private AlertmanagerNotifier notifier(URI am, long resendMs, int capacity) {
    Map<String, String> external = new LinkedHashMap<>();
    external.put("cluster", "eu-1");
    external.put("severity", "must-not-override");
    AlertmanagerNotifier n = new AlertmanagerNotifier(new AlertingConfig(List.of(am), external,
        resendMs, capacity, EXTERNAL), 15_000, Clock.systemUTC(), registry);
    notifiers.add(n);
    return n;
  }

  static Diagnosis diagnosis(String instance, long startMs, Long endMs) {
    Map<String, String> t = new LinkedHashMap<>();
    t.put("job", "vllm");
    t.put("instance", instance);
    t.put("model_name", "Qwen/Qwen3-8B");
    String id = "vllm~" + URLEncoder.encode(instance, StandardCharsets.UTF_8)
        + "~Qwen%2FQwen3-8B/capacity_exhausted/" + startMs;
    List<ChainLayer> chain = List.of(
        new ChainLayer("latency", "breached", List.of(new Evidence("ttft_p95", 2.5, 1.0, 0.4,
            "s", "5m", 2.0, 3.0, "histogram_quantile(0.95, ...)", "baseline"))),
        new ChainLayer("queue", "saturated", List.of(new Evidence("waiting", 12, 5.0, 1.0,
            "requests", "5m", 10, 14, "vllm:num_requests_waiting", "baseline"))),
        new ChainLayer("resource", "saturated", List.of(new Evidence("kv_cache", 0.97, 0.9, null,
            "ratio", "5m", 0.95, 0.99, "vllm:kv_cache_usage_perc", "static"))));
    return new Diagnosis(id, Cause.CAPACITY_EXHAUSTED, "critical", t, startMs, endMs,
        "TTFT P95 2.5 s over 1 s while 12 requests wait and the KV cache is 97 % full", chain,
        Cause.CAPACITY_EXHAUSTED.recommendations(), false);
  }

  private JsonNode awaitWebhook(Predicate<JsonNode> alert, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (System.currentTimeMillis() < deadline) {
      for (JsonNode n : received) {
        for (JsonNode a : n.path("alerts")) {
          if (alert.test(a)) {
            return a;
          }
        }
      }
      Thread.sleep(100);
    }
    throw new AssertionError("no webhook notification matched within " + timeoutMs + " ms; got "
        + received);
  }

  private static JsonNode amAlerts(ExternalProcesses.Prom am) throws Exception {
    return JSON.readTree(Requests.get(am.base().resolve("/api/v2/alerts")).body());
  }

  private double count(String name, String... tags) {
    double sum = 0;
    for (Counter c : registry.find(name).tags(tags).counters()) {
      sum += c.count();
    }
    return sum;
  }

  private void awaitCount(String name, double atLeast, long timeoutMs, String... tags)
      throws InterruptedException {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (count(name, tags) < atLeast && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    assertThat(count(name, tags)).as(name).isGreaterThanOrEqualTo(atLeast);
  }

  @Test
  void firesIsResentAndResolves() throws Exception {
    int port = ExternalProcesses.freePort();
    ExternalProcesses.Prom am = startAm(port, "am");
    // 3 s: the webhook round trip on a loaded machine takes more than 1 s.
    AlertmanagerNotifier n = notifier(am.base(), 3000, 100);
    long start = System.currentTimeMillis() - 600_000;
    Diagnosis open = diagnosis("10.0.0.2:8000", start, null);

    n.evaluated(List.of(open), System.currentTimeMillis());
    JsonNode firing = awaitWebhook(a -> a.path("status").asText().equals("firing"), 20_000);
    JsonNode labels = firing.path("labels");
    assertThat(labels.path("alertname").asText()).isEqualTo("CAPACITY_EXHAUSTED");
    assertThat(labels.path("severity").asText()).as("external labels do not override")
        .isEqualTo("critical");
    assertThat(labels.path("cluster").asText()).isEqualTo("eu-1");
    assertThat(labels.path("job").asText()).isEqualTo("vllm");
    assertThat(labels.path("instance").asText()).isEqualTo("10.0.0.2:8000");
    assertThat(labels.path("model_name").asText()).isEqualTo("Qwen/Qwen3-8B");
    JsonNode ann = firing.path("annotations");
    assertThat(ann.path("summary").asText()).startsWith("TTFT P95 2.5 s over 1 s");
    assertThat(ann.path("description").asText())
        .contains("latency breached: ttft_p95 2.50 s (threshold 1, baseline)")
        .contains("queue saturated: waiting 12 requests").contains("resource saturated");
    assertThat(ann.path("recommendations").asText())
        .isEqualTo(String.join("\n", Cause.CAPACITY_EXHAUSTED.recommendations()));
    // Query values: URLSearchParams decodes them to the target's and the incident's ids.
    assertThat(ann.path("runbook_url").asText()).isEqualTo(EXTERNAL
        + "/#/incidents?cause=CAPACITY_EXHAUSTED&target=vllm~10.0.0.2%253A8000~Qwen%252FQwen3-8B"
        + "&id=vllm~10.0.0.2%253A8000~Qwen%252FQwen3-8B%2Fcapacity_exhausted%2F" + start);
    assertThat(firing.path("generatorURL").asText()).isEqualTo(EXTERNAL + "/#/incidents/"
        + URLEncoder.encode(open.id(), StandardCharsets.UTF_8).replace("%7E", "~"));
    assertThat(Instant.parse(firing.path("startsAt").asText()).toEpochMilli()).isEqualTo(start);
    awaitCount("inferlens.notifications.sent", 1, 5_000);

    // Not due yet: nothing is sent again.
    n.evaluated(List.of(open), System.currentTimeMillis());
    Thread.sleep(300);
    assertThat(count("inferlens.notifications.sent")).isEqualTo(1);

    // Due after the resend delay: Alertmanager sees the alert again, valid for longer.
    Instant firstEnds = Instant.parse(amAlerts(am).path(0).path("endsAt").asText());
    Thread.sleep(3100);
    n.evaluated(List.of(open), System.currentTimeMillis());
    awaitCount("inferlens.notifications.sent", 2, 5_000);
    JsonNode again = amAlerts(am).path(0);
    assertThat(Instant.parse(again.path("endsAt").asText())).isAfter(firstEnds);
    assertThat(again.path("status").path("state").asText()).isEqualTo("active");
    // 4 × max(resend 3 s, interval 15 s) ahead, as Prometheus's ValidUntil.
    assertThat(Instant.parse(again.path("endsAt").asText()).toEpochMilli()
        - System.currentTimeMillis()).isBetween(50_000L, 61_000L);

    long end = System.currentTimeMillis() - 30_000;
    n.evaluated(List.of(diagnosis("10.0.0.2:8000", start, end)), System.currentTimeMillis());
    JsonNode resolved = awaitWebhook(a -> a.path("status").asText().equals("resolved"), 20_000);
    assertThat(resolved.path("labels")).isEqualTo(labels);
    assertThat(Instant.parse(resolved.path("endsAt").asText()).toEpochMilli()).isEqualTo(end);
    assertThat(count("inferlens.notifications.errors")).isZero();
  }

  /** Evaluates {@code incidents} every 200 ms, as the evaluator would, until one matches. */
  private JsonNode evaluateUntil(AlertmanagerNotifier n, List<Diagnosis> incidents,
      Predicate<JsonNode> alert, long timeoutMs) throws Exception {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (true) {
      n.evaluated(incidents, System.currentTimeMillis());
      try {
        return awaitWebhook(alert, 200);
      } catch (AssertionError e) {
        if (System.currentTimeMillis() > deadline) {
          throw e;
        }
      }
    }
  }

  /**
   * An incident resolves, and another opens on the same target with the same cause (the same
   * alert labels) while the first is still re-sent resolved: the new one reaches the webhook
   * within one resend delay (plus Alertmanager's group_wait), not when the re-sending ends.
   */
  @Test
  void anAlertFiringAgainWithTheSameLabelsArrivesAtOnce() throws Exception {
    int port = ExternalProcesses.freePort();
    ExternalProcesses.Prom am = startAm(port, "am-refire");
    long resend = 2_000;
    AlertmanagerNotifier n = notifier(am.base(), resend, 100);
    long start = System.currentTimeMillis() - 900_000;
    long end = System.currentTimeMillis() - 300_000;
    Diagnosis first = diagnosis("10.0.0.4:8000", start, null);
    Diagnosis firstResolved = diagnosis("10.0.0.4:8000", start, end);
    evaluateUntil(n, List.of(first), a -> a.path("status").asText().equals("firing"), 20_000);
    evaluateUntil(n, List.of(firstResolved), a -> a.path("status").asText().equals("resolved"),
        20_000);

    long restart = System.currentTimeMillis() - 60_000;
    Diagnosis second = diagnosis("10.0.0.4:8000", restart, null);
    // The evaluator's order: open incidents, then those resolved in the last 15 minutes.
    long t0 = System.currentTimeMillis();
    JsonNode firing = evaluateUntil(n, List.of(second, firstResolved),
        a -> a.path("status").asText().equals("firing")
            && Instant.parse(a.path("startsAt").asText()).toEpochMilli() == restart,
        resend + 10_000);
    long took = System.currentTimeMillis() - t0;
    assertThat(took).as("ms until the webhook got the new alert").isLessThan(resend + 4_000);
    assertThat(firing.path("labels").path("instance").asText()).isEqualTo("10.0.0.4:8000");
    // And it stays firing while the old one would still be re-sent.
    for (int i = 0; i < 3; i++) {
      Thread.sleep(resend);
      n.evaluated(List.of(second, firstResolved), System.currentTimeMillis());
    }
    Thread.sleep(500);
    JsonNode inAm = amAlerts(am);
    assertThat(inAm.size()).isEqualTo(1);
    assertThat(inAm.path(0).path("status").path("state").asText()).isEqualTo("active");
    assertThat(count("inferlens.notifications.errors")).isZero();
  }

  /**
   * An incident found only after it ended (late data) is sent so that the team hears of it: the
   * webhook gets it firing with its real startsAt and the annotation ended_at, then resolved
   * with its real endsAt. On the first evaluation after a start the resolved incidents are sent
   * resolved only, since a previous run may have announced them.
   */
  @Test
  void anIncidentFoundAfterItEndedIsStillSent() throws Exception {
    int port = ExternalProcesses.freePort();
    ExternalProcesses.Prom am = startAm(port, "am-late-found");
    long resend = 2_000;
    AlertmanagerNotifier n = notifier(am.base(), resend, 100);
    long start = System.currentTimeMillis() - 3_600_000;
    long end = System.currentTimeMillis() - 1_800_000;
    Diagnosis late = diagnosis("10.0.0.5:8000", start, end);
    n.evaluated(List.of(), System.currentTimeMillis());
    n.evaluated(List.of(late), System.currentTimeMillis());
    JsonNode firing = awaitWebhook(a -> a.path("status").asText().equals("firing"), 20_000);
    assertThat(Instant.parse(firing.path("startsAt").asText()).toEpochMilli()).as("data time")
        .isEqualTo(start);
    assertThat(firing.path("annotations").path(AlertmanagerNotifier.ENDED_AT).asText())
        .isEqualTo(Instant.ofEpochMilli(end).toString());
    Thread.sleep(resend);
    JsonNode resolved = evaluateUntil(n, List.of(late),
        a -> a.path("status").asText().equals("resolved"), 20_000);
    assertThat(Instant.parse(resolved.path("startsAt").asText()).toEpochMilli()).isEqualTo(start);
    assertThat(Instant.parse(resolved.path("endsAt").asText()).toEpochMilli()).isEqualTo(end);

    // A restarted notifier's first evaluation: resolved, not announced again.
    received.clear();
    AlertmanagerNotifier restarted = notifier(am.base(), resend, 100);
    Diagnosis other = diagnosis("10.0.0.6:8000", start, end);
    restarted.evaluated(List.of(other), System.currentTimeMillis());
    awaitCount("inferlens.notifications.sent", count("inferlens.notifications.sent") + 1, 5_000);
    Thread.sleep(3_000);
    assertThat(received).as("nothing announced after a start").isEmpty();
  }

  @Test
  void alertmanagerDownThenBackGetsTheAlertByRetry() throws Exception {
    int port = ExternalProcesses.freePort();
    AlertmanagerNotifier n = notifier(URI.create("http://127.0.0.1:" + port), 3_600_000, 100);
    Diagnosis open = diagnosis("10.0.0.3:8000", System.currentTimeMillis() - 600_000, null);
    n.evaluated(List.of(open), System.currentTimeMillis());
    // Nobody listens: the POST fails and is retried with backoff.
    awaitCount("inferlens.notifications.errors", 2, 10_000);
    assertThat(count("inferlens.notifications.sent")).isZero();

    ExternalProcesses.Prom am = startAm(port, "am-late");
    // No further evaluation (the resend delay is an hour): only the retry can deliver it.
    JsonNode firing = awaitWebhook(a -> a.path("labels").path("instance").asText()
        .equals("10.0.0.3:8000"), AlertmanagerNotifier.MAX_BACKOFF_MS + 20_000);
    assertThat(firing.path("status").asText()).isEqualTo("firing");
    assertThat(amAlerts(am).size()).isEqualTo(1);
    awaitCount("inferlens.notifications.sent", 1, 5_000);
    assertThat(count("inferlens.notifications.dropped")).isZero();
  }

  @Test
  void fullQueueDropsTheOldestAndARefusalIsNotRetried() throws Exception {
    int closed = ExternalProcesses.freePort();
    AlertmanagerNotifier down = notifier(URI.create("http://127.0.0.1:" + closed), 3_600_000, 2);
    List<Diagnosis> five = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      five.add(diagnosis("10.0.1." + i + ":8000", System.currentTimeMillis() - 600_000, null));
    }
    down.evaluated(five, System.currentTimeMillis());
    // Five alerts into a queue of two, in one step: the three oldest are dropped.
    assertThat(count("inferlens.notifications.dropped", "reason", "queue_full")).isEqualTo(3);
    down.close();

    URI refusing = URI.create("http://127.0.0.1:" + hook.activeLocalPort() + "/refusing");
    AlertmanagerNotifier n = notifier(refusing, 3_600_000, 100);
    n.evaluated(List.of(five.get(0)), System.currentTimeMillis());
    awaitCount("inferlens.notifications.dropped", 1, 5_000, "reason", "rejected");
    Thread.sleep(1500);
    assertThat(refusedPosts.get()).as("a 400 is not retried").isEqualTo(1);
  }

  @Test
  void serverSendsItsIncidentsAndShowsThemAsPrometheusAlerts() throws Exception {
    int port = ExternalProcesses.freePort();
    ExternalProcesses.Prom am = startAm(port, "am-server");
    ServerConfig cfg = ServerConfig.forTests(dir.resolve("data")).withEvalInterval(0)
        .withAlerting(new AlertingConfig(List.of(am.base()), Map.of("cluster", "eu-1"),
            60_000, 100, null));
    try (InferLensServer server = InferLensServer.start(cfg, Clock.systemUTC())) {
      URI base = URI.create("http://127.0.0.1:" + server.port());
      SimulatedWrites w = new SimulatedWrites(base);
      long now = System.currentTimeMillis();
      w.playScenario(Scenario.byId("healthy"), 6 * 3600, "10.0.0.2", "Qwen/Qwen3-8B", now, 7);
      w.playScenario(Scenario.byId("peak-saturation"), 6 * 3600, "10.0.0.3", "Qwen/Qwen3-8B",
          now, 7);
      server.evaluateNow();

      JsonNode firing = awaitWebhook(a -> a.path("labels").path("alertname").asText()
          .equals("CAPACITY_EXHAUSTED"), 20_000);
      assertThat(firing.path("labels").path("instance").asText()).isEqualTo("10.0.0.3:8000");
      assertThat(firing.path("labels").path("cluster").asText()).isEqualTo("eu-1");
      assertThat(firing.path("generatorURL").asText())
          .startsWith("http://127.0.0.1:" + server.port() + "/#/incidents/vllm~10.0.0.3%253A8000~");
      for (JsonNode n : received) {
        for (JsonNode a : n.path("alerts")) {
          assertThat(a.path("labels").path("instance").asText()).as("healthy stays silent")
              .isNotEqualTo("10.0.0.2:8000");
        }
      }

      JsonNode alerts = JSON.readTree(Requests.get(base.resolve("/api/v1/alerts")).body());
      assertThat(alerts.path("status").asText()).isEqualTo("success");
      JsonNode first = alerts.path("data").path("alerts").path(0);
      assertThat(first.path("state").asText()).isEqualTo("firing");
      assertThat(first.path("labels").path("alertname").asText()).isEqualTo("CAPACITY_EXHAUSTED");
      assertThat(first.path("labels").has("cluster")).as("no external labels, as Prometheus")
          .isFalse();
      assertThat(first.path("annotations").path("runbook_url").asText()).contains("#/incidents?");
      Instant.parse(first.path("activeAt").asText());
      Double.parseDouble(first.path("value").asText());

      JsonNode rules = JSON.readTree(Requests.get(base.resolve("/api/v1/rules")).body());
      JsonNode group = rules.path("data").path("groups").path(0);
      assertThat(group.path("name").asText()).isEqualTo("inferlens");
      JsonNode capacity = null;
      for (JsonNode r : group.path("rules")) {
        assertThat(r.path("type").asText()).isEqualTo("alerting");
        assertThat(r.path("health").asText()).isEqualTo("ok");
        if (r.path("name").asText().equals("CAPACITY_EXHAUSTED")) {
          capacity = r;
        }
      }
      assertThat(capacity).isNotNull();
      assertThat(capacity.path("state").asText()).isEqualTo("firing");
      assertThat(capacity.path("duration").asDouble()).isEqualTo(300);
      assertThat(capacity.path("alerts").size()).isEqualTo(1);
      JsonNode recordOnly = JSON.readTree(Requests.get(base.resolve("/api/v1/rules?type=record"))
          .body());
      assertThat(recordOnly.path("data").path("groups").size()).isZero();
      assertThat(Requests.get(base.resolve("/api/v1/rules?type=bogus")).statusCode())
          .isEqualTo(400);

      String metrics = Requests.get(base.resolve("/metrics")).body();
      assertThat(metrics).contains("inferlens_notifications_sent_total{alertmanager=\"" + am.base()
          + "/api/v2/alerts\"}").contains("inferlens_notifications_queue_capacity 100.0");
    }
  }

  /**
   * Under --multitenancy each tenant's evaluator reports through its own listener: two tenants
   * whose incidents have the same id (the same target and start in two stores) are two alerts
   * in Alertmanager, told apart by the label {@code tenant}, with links that open the UI on
   * their tenant; one tenant's incident ending resolves its alert only.
   */
  @Test
  void eachTenantsIncidentsAreItsOwnAlerts() throws Exception {
    int port = ExternalProcesses.freePort();
    ExternalProcesses.Prom am = startAm(port, "am-tenants");
    AlertmanagerNotifier n = notifier(am.base(), 3_600_000, 100);
    long start = System.currentTimeMillis() - 600_000;
    Diagnosis same = diagnosis("10.0.0.9:8000", start, null);
    IncidentEvaluator.Listener a = n.forTenant("team-a");
    IncidentEvaluator.Listener b = n.forTenant("team-b");
    a.evaluated(List.of(same), System.currentTimeMillis());
    b.evaluated(List.of(same), System.currentTimeMillis());
    JsonNode firingA = awaitWebhook(x -> x.path("labels").path("tenant").asText()
        .equals("team-a") && x.path("status").asText().equals("firing"), 20_000);
    awaitWebhook(x -> x.path("labels").path("tenant").asText().equals("team-b")
        && x.path("status").asText().equals("firing"), 20_000);
    assertThat(firingA.path("generatorURL").asText()).endsWith("?tenant=team-a");
    assertThat(firingA.path("annotations").path("runbook_url").asText())
        .endsWith("&tenant=team-a");
    assertThat(amAlerts(am).size()).as("one alert per tenant").isEqualTo(2);

    // team-a's incident is gone from its evaluation: only its alert ends.
    a.evaluated(List.of(), System.currentTimeMillis());
    b.evaluated(List.of(same), System.currentTimeMillis());
    awaitWebhook(x -> x.path("labels").path("tenant").asText().equals("team-a")
        && x.path("status").asText().equals("resolved"), 20_000);
    for (JsonNode batch : received) {
      for (JsonNode x : batch.path("alerts")) {
        if (x.path("labels").path("tenant").asText().equals("team-b")) {
          assertThat(x.path("status").asText()).as("team-b's alert").isEqualTo("firing");
        }
      }
    }
  }
}
