package io.inferlens.api;

import static io.inferlens.api.Requests.enc;
import static io.inferlens.api.Requests.get;
import static io.inferlens.api.Requests.post;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.ChainLayer;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.Evidence;
import io.inferlens.analysis.incident.IncidentNote;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The incident REST API through a real server on a loopback port with a real RocksDB journal,
 * fed real diagnoses through {@code server.journal().record}; the evaluator is off so only
 * these incidents exist.
 */
class IncidentsApiTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final long HOUR = 3_600_000L;

  @TempDir Path dir;
  InferLensServer server;
  URI base;
  final long now = System.currentTimeMillis();

  @BeforeEach
  void start() throws Exception {
    server = InferLensServer.start(
        ServerConfig.forTests(dir.resolve("data")).withEvalInterval(0), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static Map<String, String> target(String instance, String model) {
    Map<String, String> t = new LinkedHashMap<>();
    t.put("job", "vllm");
    t.put("instance", instance);
    t.put("model_name", model);
    return t;
  }

  private static String targetId(Map<String, String> t) {
    List<String> parts = new ArrayList<>();
    for (String v : t.values()) {
      parts.add(java.net.URLEncoder.encode(v, StandardCharsets.UTF_8).replace("+", "%20")
          .replace("~", "%7E"));
    }
    return String.join("~", parts);
  }

  /** A diagnosis as the engine makes them: latency, queue and resource layers of evidence. */
  private static Diagnosis diagnosis(Cause cause, Map<String, String> t, long startMs, Long endMs,
      double waiting, double kv) {
    String id = targetId(t) + "/" + cause.name().toLowerCase(java.util.Locale.ROOT) + "/"
        + startMs;
    List<ChainLayer> chain = List.of(
        new ChainLayer("latency", "TTFT P95 above threshold", List.of(new Evidence("ttft_p95",
            2.5, 1.0, 0.4, "s", "5m", 2.0, 3.0,
            "histogram_quantile(0.95, rate(vllm:time_to_first_token_seconds_bucket[5m]))",
            "baseline"))),
        new ChainLayer("queue", "requests waiting", List.of(new Evidence("waiting", waiting,
            5.0, 1.0, "requests", "5m", waiting, waiting, "vllm:num_requests_waiting",
            "baseline"))),
        new ChainLayer("resource", "KV cache full", List.of(new Evidence("kv_cache", kv,
            0.9, null, "ratio", "5m", kv, kv, "vllm:gpu_cache_usage_perc", "default"))));
    return new Diagnosis(id, cause, "critical", t, startMs, endMs,
        "TTFT P95 2.5 s over 1 s while " + waiting + " requests wait", chain,
        List.of("reduce --max-num-seqs", "enable prefix caching (--enable-prefix-caching)"),
        false);
  }

  private JsonNode data(HttpResponse<String> r, int status) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.path("status").asText()).as(r.body()).isEqualTo("success");
    return body.path("data");
  }

  private JsonNode error(HttpResponse<String> r, int status) throws Exception {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("content-type").orElse("")).contains("json");
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.path("status").asText()).isEqualTo("error");
    return body;
  }

  private HttpResponse<String> getPath(String pathAndQuery) {
    return get(URI.create(base + pathAndQuery));
  }

  private static List<String> ids(JsonNode incidents) {
    List<String> out = new ArrayList<>();
    incidents.forEach(n -> out.add(n.path("id").asText()));
    return out;
  }

  private final Map<String, String> a = target("vllm-a:8000", "Qwen/Qwen3-32B");
  private final Map<String, String> b = target("vllm-b:8000", "Qwen/Qwen3-32B");
  private final Map<String, String> c = target("vllm-c:8000", "meta/Llama-3-8B");

  /** Journals: on a, three past KV incidents and one open; a capacity one on c. */
  private List<Diagnosis> seed() throws Exception {
    List<Diagnosis> ds = List.of(
        diagnosis(Cause.KV_CACHE_PRESSURE, a, now - 5 * HOUR, now - 5 * HOUR + 600_000L, 50, 0.97),
        diagnosis(Cause.KV_CACHE_PRESSURE, a, now - 4 * HOUR, now - 4 * HOUR + 600_000L, 12, 0.95),
        diagnosis(Cause.KV_CACHE_PRESSURE, b, now - 3 * HOUR, now - 3 * HOUR + 600_000L, 30, 0.96),
        diagnosis(Cause.CAPACITY_EXHAUSTED, c, now - 2 * HOUR, now - 2 * HOUR + 300_000L, 9, 0.5),
        diagnosis(Cause.KV_CACHE_PRESSURE, a, now - HOUR, null, 11, 0.95));
    for (Diagnosis d : ds) {
      assertThat(server.journal().record(d, now)).isNotNull();
    }
    return ds;
  }

  @Test
  void listsNewestFirstWithFiltersAndRejectsBadParameters() throws Exception {
    List<Diagnosis> ds = seed();
    JsonNode all = data(getPath("/api/v1/incidents?start=" + (now - 6 * HOUR) / 1000), 200)
        .path("incidents");
    assertThat(ids(all)).containsExactly(ds.get(4).id(), ds.get(3).id(), ds.get(2).id(),
        ds.get(1).id(), ds.get(0).id());
    JsonNode open = all.get(0);
    assertThat(open.path("end").isNull()).isTrue();
    assertThat(open.path("resolvedAt").isNull()).isTrue();
    assertThat(open.path("openedAt").asText()).isEqualTo(java.time.Instant.ofEpochMilli(now)
        .toString());
    assertThat(open.path("notes").isArray()).isTrue();
    assertThat(open.path("chain").size()).isEqualTo(3);
    assertThat(all.get(1).path("resolvedAt").asText()).isNotEmpty();

    String start = "start=" + (now - 6 * HOUR) / 1000;
    assertThat(ids(data(getPath("/api/v1/incidents?" + start + "&state=open"), 200)
        .path("incidents"))).containsExactly(ds.get(4).id());
    assertThat(ids(data(getPath("/api/v1/incidents?" + start + "&state=resolved"
        + "&cause=capacity_exhausted"), 200).path("incidents"))).containsExactly(ds.get(3).id());
    assertThat(ids(data(getPath("/api/v1/incidents?" + start + "&match[]="
        + enc("{instance=\"vllm-b:8000\"}")), 200).path("incidents")))
        .containsExactly(ds.get(2).id());
    assertThat(ids(data(getPath("/api/v1/incidents?" + start + "&limit=2"), 200)
        .path("incidents"))).containsExactly(ds.get(4).id(), ds.get(3).id());
    // the default range is the last 6 hours; a range ending before an incident excludes it
    assertThat(ids(data(getPath("/api/v1/incidents?start=" + (now - 6 * HOUR) / 1000
        + "&end=" + (now - 3 * HOUR - 60_000L) / 1000), 200).path("incidents")))
        .containsExactly(ds.get(1).id(), ds.get(0).id());

    assertThat(error(getPath("/api/v1/incidents?cause=slow"), 400).path("error").asText())
        .contains("parameter cause").contains("KV_CACHE_PRESSURE").contains("slow");
    assertThat(error(getPath("/api/v1/incidents?state=closed"), 400).path("error").asText())
        .contains("parameter state").contains("open, resolved or all");
    assertThat(error(getPath("/api/v1/incidents?limit=0"), 400).path("error").asText())
        .contains("parameter limit").contains("10000");
    assertThat(error(getPath("/api/v1/incidents?match[]=" + enc("{instance=")), 400)
        .path("errorType").asText()).isEqualTo("bad_data");
  }

  @Test
  void getsAnIncidentWithSimilarOnesClosestFirstAndUnknownIdsAre404() throws Exception {
    List<Diagnosis> ds = seed();
    String id = ds.get(4).id();
    assertThat(id).contains("/").contains("~").contains("%");
    JsonNode inc = data(getPath("/api/v1/incidents/" + enc(id)), 200);
    assertThat(inc.path("id").asText()).isEqualTo(id);
    assertThat(inc.path("cause").asText()).isEqualTo("KV_CACHE_PRESSURE");
    // same cause, same target or model: the 12-waiting one on a is closest (11 now), then b
    // (30, same model), then the 50-waiting one on a; the capacity one on c never
    assertThat(ids(inc.path("similar"))).containsExactly(ds.get(1).id(), ds.get(2).id(),
        ds.get(0).id());
    assertThat(inc.path("similar").get(0).has("notes")).isFalse();
    assertThat(inc.path("similar").get(0).path("openedAt").asText()).isNotEmpty();

    JsonNode err = error(getPath("/api/v1/incidents/" + enc("vllm~nope/kv_cache_pressure/1")),
        404);
    assertThat(err.path("errorType").asText()).isEqualTo("not_found");
    assertThat(err.path("error").asText()).contains("vllm~nope/kv_cache_pressure/1");
    assertThat(error(post(URI.create(base + "/api/v1/incidents/" + enc(id)), new byte[0],
        "application/json", null), 405).path("error").asText()).contains("GET");
  }

  @Test
  void addsNotesAndRejectsBadOnes() throws Exception {
    List<Diagnosis> ds = seed();
    String id = ds.get(4).id();
    URI notes = URI.create(base + "/api/v1/incidents/" + enc(id) + "/notes");
    JsonNode inc = data(post(notes, ("{\"text\":\"max-num-seqs 32 → 24, TTFT back under 1 s\","
        + "\"author\":\"ana\"}").getBytes(StandardCharsets.UTF_8), "application/json", null), 201);
    assertThat(inc.path("id").asText()).isEqualTo(id);
    assertThat(inc.path("notes").size()).isEqualTo(1);
    assertThat(inc.path("notes").get(0).path("text").asText())
        .isEqualTo("max-num-seqs 32 → 24, TTFT back under 1 s");
    assertThat(inc.path("notes").get(0).path("author").asText()).isEqualTo("ana");
    assertThat(inc.path("notes").get(0).path("at").asText()).endsWith("Z");
    data(post(notes, "{\"text\":\"second\"}".getBytes(StandardCharsets.UTF_8),
        "application/json", null), 201);
    // durable in the journal and served by GET, oldest first
    assertThat(server.journal().get(id).notes()).extracting(IncidentNote::text)
        .containsExactly("max-num-seqs 32 → 24, TTFT back under 1 s", "second");
    assertThat(data(getPath("/api/v1/incidents/" + enc(id)), 200).path("notes").get(1)
        .path("author").asText()).isEmpty();

    assertThat(error(post(notes, "{\"text\":\"  \"}".getBytes(StandardCharsets.UTF_8),
        "application/json", null), 400).path("error").asText()).contains("'text'")
        .contains("empty");
    assertThat(error(post(notes, ("{\"text\":\"" + "x".repeat(IncidentNote.MAX_TEXT_CHARS + 1)
        + "\"}").getBytes(StandardCharsets.UTF_8), "application/json", null), 400)
        .path("error").asText()).contains("'text'").contains("4096");
    assertThat(error(post(notes, ("{\"text\":\"ok\",\"author\":\"" + "y".repeat(300) + "\"}")
        .getBytes(StandardCharsets.UTF_8), "application/json", null), 400)
        .path("error").asText()).contains("'author'").contains("256");
    assertThat(error(post(notes, "text=hello".getBytes(StandardCharsets.UTF_8),
        "application/x-www-form-urlencoded", null), 400).path("error").asText())
        .contains("not JSON");
    assertThat(error(post(notes, "[1]".getBytes(StandardCharsets.UTF_8),
        "application/json", null), 400).path("error").asText()).contains("JSON object");
    assertThat(error(post(URI.create(base + "/api/v1/incidents/" + enc("x/y/1") + "/notes"),
        "{\"text\":\"hi\"}".getBytes(StandardCharsets.UTF_8), "application/json", null), 404)
        .path("errorType").asText()).isEqualTo("not_found");
    assertThat(error(getPath("/api/v1/incidents/" + enc(id) + "/notes"), 405)
        .path("error").asText()).contains("POST");
    assertThat(server.journal().get(id).notes()).hasSize(2);
  }

  @Test
  void rendersAMarkdownPostmortem() throws Exception {
    List<Diagnosis> ds = seed();
    String id = ds.get(1).id();
    server.journal().addNote(id, new IncidentNote(now, "ana", "raised gpu-memory-utilization"));
    HttpResponse<String> r = getPath("/api/v1/incidents/" + enc(id) + "/markdown");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElse("")).startsWith("text/markdown");
    String md = r.body();
    assertThat(md).startsWith("# KV_CACHE_PRESSURE on {job=\"vllm\", instance=\"vllm-a:8000\"");
    assertThat(md).contains("- **Start:** " + java.time.Instant.ofEpochMilli(now - 4 * HOUR))
        .contains("- **End:** " + java.time.Instant.ofEpochMilli(now - 4 * HOUR + 600_000L))
        .contains("- **Duration:** 10m")
        .contains("## Summary\n\nTTFT P95 2.5 s over 1 s while 12.0 requests wait")
        .contains("## Evidence (latency → queue → resource)")
        .contains("| Layer | Verdict | Signal | Value | Threshold | Basis | Baseline | Unit | PromQL |")
        .contains("| queue | requests waiting | waiting | 12 | 5 | baseline | 1 | requests"
            + " | `vllm:num_requests_waiting` |")
        .contains("| resource | KV cache full | kv_cache | 0.9500 | 0.9000 | default |  | ratio")
        .contains("## Recommendations\n\n- reduce --max-num-seqs\n")
        .contains("## Notes\n\n- " + java.time.Instant.ofEpochMilli(now)
            + " (ana): raised gpu-memory-utilization")
        .contains("## Similar past incidents\n\n- " + java.time.Instant.ofEpochMilli(now - 5 * HOUR));
    // the open one: end "open", duration so far; its similar list has the three before it
    String open = getPath("/api/v1/incidents/" + enc(ds.get(4).id()) + "/markdown").body();
    assertThat(open).contains("- **End:** open").contains(" so far")
        .contains(ds.get(1).id()).contains(ds.get(2).id()).contains(ds.get(0).id())
        .doesNotContain(ds.get(3).id());
    assertThat(getPath("/api/v1/incidents/" + enc("no/such/1") + "/markdown").statusCode())
        .isEqualTo(404);
  }
}
