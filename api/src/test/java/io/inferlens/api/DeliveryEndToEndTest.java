package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.server.Server;
import io.inferlens.analysis.diagnose.ChainConsistency;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.simulator.Scenario;
import io.inferlens.simulator.Stack;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delivery as the world delivers it, on every stack of the catalog: three hours of simulator
 * output for a dozen targets (every stack with a fault and a healthy neighbour, a Kafka backlog,
 * a 12-minute scrape gap 50 minutes before the end) are remote-written at full speed in time
 * order, as a Prometheus replays its WAL after an outage, into a server whose evaluator runs
 * every second and pages a real Alertmanager (Debian's {@code prometheus-alertmanager}) with a
 * webhook receiver. Then nothing more is written, as when the sender is down.
 *
 * <ul>
 *   <li>Every fault reaches the webhook, with its cause, within one evaluation interval (plus
 *       Alertmanager's group wait) after the data that shows it arrived, not when the clock
 *       reaches it;
 *   <li>healthy targets page nothing;
 *   <li>the silence is one REMOTE_WRITE_STOPPED alert, not a gap alert per target;
 *   <li>the ongoing faults stay open, marked stale, through the silence, and none is resolved.
 * </ul>
 */
class DeliveryEndToEndTest {

  static final Path AM = Path.of("/usr/bin/prometheus-alertmanager");
  static final ObjectMapper JSON = new ObjectMapper();
  static final String MODEL = "Qwen/Qwen3-32B-FP8";
  static final long EVAL_MS = 1_000;
  static final double LEAD_IN_S = 2 * 3600;
  static final double DURATION_S = 60 * 60;
  static final long CHUNK_MS = 5 * 60_000L;

  @TempDir Path dir;

  /** One webhook notification and the wall-clock time it arrived. */
  record Received(long atMs, JsonNode body) {}

  /** A played target: its stack, scenario, host and the only cause it may page (null: none). */
  record Play(Stack stack, Scenario scenario, String host, String cause, boolean kafka) {}

  @Test
  void aWalReplayPagesEveryFaultAsItsDataArrivesAndTheSilenceAfterItIsOneCondition()
      throws Exception {
    ExternalProcesses.requireBinary(AM, "prometheus-alertmanager");
    List<Received> received = new CopyOnWriteArrayList<>();
    Server hook = Server.builder().http(new InetSocketAddress("127.0.0.1", 0))
        .service("/hook", (ctx, req) -> HttpResponse.of(req.aggregate().thenApply(agg -> {
          try {
            received.add(new Received(System.currentTimeMillis(),
                JSON.readTree(agg.contentUtf8())));
          } catch (java.io.IOException e) {
            return HttpResponse.of(HttpStatus.BAD_REQUEST);
          }
          return HttpResponse.of(HttpStatus.OK);
        }))).build();
    hook.start().join();
    int amPort = ExternalProcesses.freePort();
    ExternalProcesses.Prom am = ExternalProcesses.startAlertmanager(dir, "am", amPort,
        ExternalProcesses.webhookAlertmanagerConfig(hook.activeLocalPort()));
    try {
      am.awaitReady();
      ServerConfig cfg = ServerConfig.forTests(dir.resolve("data")).withEvalInterval(EVAL_MS)
          .withAlerting(new AlertingConfig(List.of(am.base()), Map.of(), 5_000, 10_000, null));
      try (InferLensServer server = InferLensServer.start(cfg, Clock.systemUTC())) {
        replayAndCheck(server, received);
      }
    } finally {
      ExternalProcesses.stop(am.process());
      hook.stop().join();
    }
  }

  private void replayAndCheck(InferLensServer server, List<Received> received) throws Exception {
    URI base = URI.create("http://127.0.0.1:" + server.port());
    // Every incident handed to the notifier must say something true: its cause, summary and
    // chain agree.
    List<String> untrue = new CopyOnWriteArrayList<>();
    server.addIncidentListener((incidents, nowMs) -> {
      for (Diagnosis d : incidents) {
        for (String problem : ChainConsistency.problems(d)) {
          untrue.add(d.id() + ": " + problem);
        }
      }
    });
    // The data ends now: three hours of it, written as fast as the server takes it.
    long endMs = System.currentTimeMillis() / 15_000 * 15_000;
    long startMs = endMs - Math.round((LEAD_IN_S + DURATION_S) * 1000);
    SimulatedWrites w = new SimulatedWrites(base);
    List<Play> plays = addFleet(w, endMs, LEAD_IN_S, 11);
    String gapHost = host(Stack.VLLM_0_10, "gap");
    // When each chunk of data time had arrived, by the clock.
    TreeMap<Long, Long> arrived = new TreeMap<>();
    long replayStart = System.currentTimeMillis();
    for (long t = startMs + CHUNK_MS; ; t = Math.min(endMs, t + CHUNK_MS)) {
      w.catchUp(t);
      arrived.put(t, System.currentTimeMillis());
      if (t == endMs) {
        break;
      }
    }
    long replayEnd = System.currentTimeMillis();
    System.out.printf("replayed %d samples of %d targets in %.1f s%n", w.samplesWritten,
        plays.size(), (replayEnd - replayStart) / 1e3);

    // Then the sender is silent for two and a half minutes: its silence is told after 55 s,
    // and nothing may resolve or open for a target through the rest of it.
    long silenceMs = 150_000;
    Thread.sleep(Math.max(0, replayEnd + silenceMs - System.currentTimeMillis()));

    Map<String, List<JsonNode>> firstFiring = new LinkedHashMap<>();
    Map<String, Long> firstAt = new LinkedHashMap<>();
    List<String> resolved = new ArrayList<>();
    for (Received r : received) {
      for (JsonNode a : r.body().path("alerts")) {
        String name = a.path("labels").path("alertname").asText();
        String key = name + " " + a.path("labels").path("instance").asText();
        if (a.path("status").asText().equals("firing")) {
          firstFiring.computeIfAbsent(key, k -> new ArrayList<>()).add(a);
          firstAt.putIfAbsent(key, r.atMs());
        } else {
          resolved.add(key);
        }
      }
    }
    System.out.println("webhook, first firing: " + firstAt.keySet() + "; resolved: " + resolved);

    for (Play p : plays) {
      String instance = p.host() + ":8000";
      List<String> paged = firstAt.keySet().stream().filter(k -> k.endsWith(" " + instance))
          .toList();
      if (p.cause() == null) {
        assertThat(paged).as("a healthy %s target pages nothing", p.stack().id()).isEmpty();
        continue;
      }
      String key = p.cause() + " " + instance;
      assertThat(paged).as("%s %s pages its cause", p.stack().id(), p.scenario().id())
          .contains(key);
      // A period whose cause sharpened as the fault grew (a queue first, then preemptions) was
      // paged under its earlier cause too: that page must have been resolved, not left open.
      for (String other : paged) {
        if (!other.equals(key)) {
          assertThat(resolved).as("%s replaced by %s", other, key).contains(other);
        }
      }
      JsonNode alert = firstFiring.get(key).get(0);
      long startsAt = Instant.parse(alert.path("startsAt").asText()).toEpochMilli();
      // The data that held the condition for `for` (5 min) arrived by the end of its chunk;
      // the page is due one evaluation (plus the delivery grace of the data's present, and
      // Alertmanager's group wait) later.
      long heldAt = startsAt + 5 * 60_000L + 25_000L + 15_000L;
      Map.Entry<Long, Long> chunk = arrived.ceilingEntry(heldAt);
      long dataArrived = chunk == null ? replayEnd : chunk.getValue();
      long due = dataArrived + 2 * EVAL_MS + 1_000 + 4_000;
      assertThat(firstAt.get(key)).as("%s paged %d ms after its data arrived", key,
          firstAt.get(key) - dataArrived).isLessThanOrEqualTo(due);
    }
    assertThat(untrue).as("pages whose summary contradicts their chain").isEmpty();
    // The silence: one condition of the sender, no gap per target.
    assertThat(firstAt.keySet()).filteredOn(k -> k.startsWith("MONITORING_GAP "))
        .containsExactly("MONITORING_GAP " + gapHost + ":8000");
    List<String> stopped = firstAt.keySet().stream()
        .filter(k -> k.startsWith("REMOTE_WRITE_STOPPED ")).toList();
    assertThat(stopped).hasSize(1);
    // Told from the clock, after the last write: a replay's old samples are not a silence.
    assertThat(firstAt.get(stopped.get(0))).isGreaterThan(replayEnd + 50_000L);
    assertThat(firstFiring.get(stopped.get(0)).get(0).path("annotations").path("summary")
        .asText()).contains("since the last sample at " + Instant.ofEpochMilli(endMs));
    // The ongoing faults stay open through it, stale, and none was resolved.
    JsonNode incidents = JSON.readTree(Requests.get(base.resolve(
        "/api/v1/diagnoses?start=" + startMs / 1000 + "&end=" + System.currentTimeMillis() / 1000))
        .body());
    for (Play p : plays) {
      if (p.cause() == null || p.cause().equals("MONITORING_GAP")) {
        continue;
      }
      JsonNode open = null;
      for (JsonNode d : incidents.path("data").path("diagnoses")) {
        if (d.path("cause").asText().equals(p.cause())
            && d.path("target").path("instance").asText().equals(p.host() + ":8000")
            && d.path("end").isNull()) {
          open = d;
        }
      }
      assertThat(open).as("%s still open through the silence", p.cause() + " " + p.host())
          .isNotNull();
      assertThat(open.path("stale").asBoolean()).as("marked stale").isTrue();
      assertThat(resolved).doesNotContain(p.cause() + " " + p.host() + ":8000");
    }
  }

  /**
   * Adds the replayed fleet to {@code w} without writing it: per stack a fault and a healthy
   * target, a Kafka backlog, and a healthy target whose engine is not scraped from 62 to 50
   * minutes before {@code endMs}; each plays {@code leadInS} of its healthy state, then 60
   * minutes of its scenario, ending at {@code endMs}.
   *
   * @return the plays, with the cause each may page
   */
  static List<Play> addFleet(SimulatedWrites w, long endMs, double leadInS, long seed) {
    List<Play> plays = new ArrayList<>();
    for (Stack stack : Stack.values()) {
      String fault = switch (stack) {
        case VLLM_0_6, VLLM_0_10 -> "kv-pressure";
        case SGLANG -> "per-request-slowdown";
        default -> "peak-saturation";
      };
      Scenario sc = Scenario.byId(fault);
      plays.add(new Play(stack, sc, host(stack, fault), cause(sc), false));
      plays.add(new Play(stack, Scenario.HEALTHY, host(stack, "healthy"), null, false));
    }
    plays.add(new Play(Stack.VLLM_0_13, Scenario.byId("kafka-backlog"),
        host(Stack.VLLM_0_13, "kafka-backlog"), "UPSTREAM_BACKLOG", true));
    String gapHost = host(Stack.VLLM_0_10, "gap");
    plays.add(new Play(Stack.VLLM_0_10, Scenario.HEALTHY, gapHost, "MONITORING_GAP", false));
    // A new model version, slower at the same load, replaces the old one 45 minutes before
    // the end and is still serving.
    String upgradeHost = host(Stack.VLLM_0_13, "new-version");
    w.addModelSwitch(Stack.VLLM_0_13, upgradeHost, MODEL, MODEL + "-v2",
        Scenario.byId("per-request-slowdown"), endMs - 45 * 60_000L, leadInS, DURATION_S, endMs,
        seed + 100);
    plays.add(new Play(Stack.VLLM_0_13, Scenario.byId("per-request-slowdown"), upgradeHost,
        "VERSION_REGRESSION", false));
    for (Play p : plays) {
      if (p.host().equals(upgradeHost)) {
        continue;
      }
      boolean gap = p.host().equals(gapHost);
      w.addStack(p.stack(), p.stack().defaultEngines(), p.scenario(), leadInS, DURATION_S,
          p.host(), MODEL, endMs, seed++, p.kafka(),
          gap ? endMs - 62 * 60_000L : Long.MAX_VALUE, gap ? endMs - 50 * 60_000L : 0);
    }
    return plays;
  }

  private static String host(Stack stack, String what) {
    return ("replay-" + stack.id() + "-" + what).replace('.', '-');
  }

  private static String cause(Scenario sc) {
    return switch (sc.id()) {
      case "peak-saturation" -> "CAPACITY_EXHAUSTED";
      case "kv-pressure" -> "KV_CACHE_PRESSURE";
      case "per-request-slowdown" -> "PER_REQUEST_SLOWDOWN";
      case "kafka-backlog" -> "UPSTREAM_BACKLOG";
      default -> throw new IllegalArgumentException(sc.id());
    };
  }
}
