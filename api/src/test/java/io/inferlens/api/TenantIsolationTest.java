package io.inferlens.api;

import static io.inferlens.api.Requests.enc;
import static io.inferlens.api.Requests.request;
import static io.inferlens.api.Requests.series;
import static io.inferlens.api.Requests.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.proto.prometheus.Remote.ReadResponse;
import io.inferlens.proto.prometheus.Types.LabelMatcher;
import io.inferlens.proto.prometheus.Types.TimeSeries;
import io.inferlens.simulator.Scenario;
import io.inferlens.storage.SeriesLimits;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --multitenancy} through a real server on loopback with real RocksDB stores: two tenants
 * write the same metric names (and one identical label set with different values) plus a
 * simulated vLLM each, one healthy, one saturating; then every tenant route (remote read, the
 * PromQL and Prometheus read APIs, metadata, TSDB status, targets, diagnoses, incidents,
 * dashboards, sparklines, trends, alerts, rules) is asked as each tenant and must show that
 * tenant's data and nothing of the other's; without the header every one answers 401, with a
 * malformed one 400; a tenant without a store reads empty. Limits are per tenant, tenants
 * survive a restart, {@code --multitenancy.max-tenants} is enforced, and a data directory laid
 * out for the other mode is refused.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TenantIsolationTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String A = "team-a";
  private static final String B = "team-(b)";
  /** What only tenant A's data contains, and only B's. */
  private static final String A_HOST = "10.0.0.3";
  private static final String B_HOST = "10.0.0.2";

  @TempDir static Path dir;
  private InferLensServer server;
  private URI base;
  private final long now = System.currentTimeMillis();

  @BeforeAll
  void start() throws Exception {
    // 400 series per metric for every tenant, 300 for B (--multitenancy.limits).
    ServerConfig cfg = ServerConfig.forTests(dir.resolve("data")).withEvalInterval(0)
        .withSeriesLimits(new SeriesLimits(SeriesLimits.DEFAULTS.maxSeries(), 400));
    Path limits = Files.writeString(dir.resolve("limits.yml"),
        "overrides:\n  \"" + B + "\": {max-series-per-metric: 300}\n");
    server = InferLensServer.start(cfg.withTenancy(new Multitenancy(true, 3,
        TenantLimits.load(limits, cfg))), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
    new SimulatedWrites(base, Tenants.HEADER, A).playScenario(Scenario.byId("peak-saturation"),
        6 * 3600, A_HOST, "Qwen/Qwen3-8B", now, 7);
    new SimulatedWrites(base, Tenants.HEADER, B).playScenario(Scenario.byId("healthy"),
        6 * 3600, B_HOST, "Qwen/Qwen3-8B", now, 7);
    // The same label set in both tenants, with different values.
    String[] same = {"__name__", "shared_gauge", "job", "shared", "instance", "x:1"};
    assertThat(write(base, request(series(same, now - 1000, 1)), Tenants.HEADER, A)
        .statusCode()).isEqualTo(204);
    assertThat(write(base, request(series(same, now - 1000, 2)), Tenants.HEADER, B)
        .statusCode()).isEqualTo(204);
    server.evaluateNow();
  }

  @AfterAll
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private HttpResponse<String> get(String pathAndQuery, String tenant) {
    URI u = URI.create(base + pathAndQuery);
    return tenant == null ? Requests.get(u) : Requests.get(u, Tenants.HEADER, tenant);
  }

  private JsonNode data(String pathAndQuery, String tenant) throws Exception {
    HttpResponse<String> r = get(pathAndQuery, tenant);
    assertThat(r.statusCode()).as("%s as %s: %s", pathAndQuery, tenant, r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).path("data");
  }

  /** Every GET a user of the UI, Grafana or the API makes, with this tenant's target. */
  private List<String> readPaths(String tenant) throws Exception {
    long s = now / 1000 - 6 * 3600;
    long e = now / 1000;
    String all = enc("{__name__=~\".+\"}");
    String target = data("/api/v1/targets", tenant).path("targets").path(0).path("id").asText();
    String host = tenant.equals(A) ? A_HOST : B_HOST;
    List<String> paths = new ArrayList<>(List.of(
        "/api/v1/labels",
        "/api/v1/label/instance/values",
        "/api/v1/label/__name__/values",
        "/api/v1/series?match[]=" + all,
        "/api/v1/export?match[]=" + enc("{__name__=~\"vllm:num_requests_waiting|shared_gauge\"}"),
        "/api/v1/rollups?match[]=" + enc("{__name__=\"vllm:num_requests_waiting\"}")
            + "&resolution=5m&start=" + s + "&end=" + e,
        "/api/v1/query?query=" + enc("count by (instance) ({__name__=~\".+\"})"),
        "/api/v1/query_range?query=" + enc("sum by (instance) (vllm:num_requests_waiting)")
            + "&start=" + s + "&end=" + e + "&step=300",
        "/api/v1/metadata",
        "/api/v1/status/tsdb",
        "/api/v1/targets",
        "/api/v1/diagnoses?start=" + s + "&end=" + e,
        "/api/v1/incidents",
        "/api/v1/signals?target=" + enc(target) + "&signal=e2e_p95&start=" + s + "&end=" + e,
        "/api/v1/baselines",
        "/api/v1/dashboard?target=" + enc(target) + "&signal=e2e_p95,waiting",
        "/api/v1/sparklines?signal=e2e_p95,waiting&start=" + s + "&end=" + e,
        "/api/v1/trends?target=" + enc(target),
        "/api/v1/trends/versions?instance=" + enc(host + ":8000"),
        "/api/v1/alerts",
        "/api/v1/rules",
        "/api/v1/rules/export"));
    JsonNode incidents = data("/api/v1/incidents", tenant).path("incidents");
    for (JsonNode inc : incidents) {
      paths.add("/api/v1/incidents/" + enc(inc.path("id").asText()));
      paths.add("/api/v1/incidents/" + enc(inc.path("id").asText()) + "/markdown");
    }
    return paths;
  }

  @Test
  void everyReadPathShowsItsTenantsDataAndNothingOfTheOthers() throws Exception {
    Map<String, String> other = Map.of(A, B_HOST, B, A_HOST);
    for (String tenant : List.of(A, B)) {
      String own = tenant.equals(A) ? A_HOST : B_HOST;
      for (String path : readPaths(tenant)) {
        HttpResponse<String> r = get(path, tenant);
        assertThat(r.statusCode()).as("%s as %s: %s", path, tenant, r.body()).isEqualTo(200);
        assertThat(r.body()).as("%s as %s shows nothing of the other tenant", path, tenant)
            .doesNotContain(other.get(tenant));
      }
      assertThat(get("/api/v1/series?match[]=" + enc("{instance=~\".+\"}"), tenant).body())
          .contains(own);
    }
    // One label set, two series: each tenant reads its own value.
    assertThat(data("/api/v1/query?query=shared_gauge", A).path("result").path(0).path("value")
        .path(1).asText()).isEqualTo("1");
    assertThat(data("/api/v1/query?query=shared_gauge", B).path("result").path(0).path("value")
        .path(1).asText()).isEqualTo("2");
  }

  @Test
  void incidentsAndAlertsArePerTenant() throws Exception {
    JsonNode a = data("/api/v1/incidents", A).path("incidents");
    assertThat(a.size()).as("the saturating tenant has an incident").isGreaterThan(0);
    assertThat(data("/api/v1/incidents", B).path("incidents").size())
        .as("the healthy tenant has none").isZero();
    String id = a.path(0).path("id").asText();
    assertThat(get("/api/v1/incidents/" + enc(id), B).statusCode())
        .as("another tenant's incident is not found").isEqualTo(404);
    JsonNode alert = data("/api/v1/alerts", A).path("alerts").path(0);
    assertThat(alert.path("labels").path("tenant").asText()).isEqualTo(A);
    assertThat(alert.path("annotations").path("runbook_url").asText())
        .endsWith("&tenant=team-a");
    assertThat(data("/api/v1/alerts", B).path("alerts").size()).isZero();
  }

  @Test
  void remoteReadReturnsOnlyTheTenantsSeries() throws Exception {
    var q = RemoteReadTest.query(now - 7 * 3_600_000L, now,
        RemoteReadTest.m(LabelMatcher.Type.RE, "__name__", ".+"));
    for (String tenant : List.of(A, B)) {
      ReadResponse resp = RemoteReadTest.samples(RemoteReadTest.read(base,
          RemoteReadTest.request(false, q), Tenants.HEADER, tenant));
      Set<String> instances = new TreeSet<>();
      double shared = Double.NaN;
      for (TimeSeries ts : resp.getResults(0).getTimeseriesList()) {
        String key = RemoteReadTest.key(ts.getLabelsList());
        instances.add(key.replaceAll(".*instance=([^,]*).*", "$1"));
        if (key.contains("shared_gauge")) {
          shared = ts.getSamples(0).getValue();
        }
      }
      String own = tenant.equals(A) ? A_HOST : B_HOST;
      String foreign = tenant.equals(A) ? B_HOST : A_HOST;
      assertThat(instances).anyMatch(i -> i.startsWith(own));
      assertThat(instances).noneMatch(i -> i.startsWith(foreign));
      assertThat(shared).isEqualTo(tenant.equals(A) ? 1 : 2);
    }
    HttpResponse<byte[]> none = RemoteReadTest.read(base, RemoteReadTest.request(false, q));
    assertThat(none.statusCode()).isEqualTo(401);
    assertThat(new String(none.body())).contains("no org id").contains(Tenants.HEADER);
  }

  @Test
  void withoutTheHeaderEveryTenantRouteAnswers401AndAMalformedOne400() throws Exception {
    Set<String> patterns = server.tenant(A).routes().keySet();
    assertThat(patterns).contains("/api/v1/read", "/api/v1/query", "/api/v1/series",
        "/api/v1/diagnoses", "/api/v1/incidents/{id}", "/api/v1/status/tsdb",
        "/api/v1/admin/flush");
    for (String pattern : patterns) {
      String path = pattern.replace("{name}", "job").replace("{id}", "x");
      HttpResponse<String> r = get(path, null);
      assertThat(r.statusCode()).as("%s without %s", path, Tenants.HEADER).isEqualTo(401);
      assertThat(r.body()).contains("no org id");
      for (String bad : List.of("a/b", "..", "a|b", "x".repeat(151), "")) {
        HttpResponse<String> b = get(path, bad);
        assertThat(b.statusCode()).as("%s as \"%s\": %s", path, bad, b.body()).isEqualTo(400);
        assertThat(b.body()).contains(Tenants.HEADER);
      }
    }
    assertThat(write(base, request(series(new String[] {"__name__", "m"}, now, 1)))
        .statusCode()).as("a write without the header").isEqualTo(401);
    HttpResponse<String> slash = write(base, request(series(new String[] {"__name__", "m"}, now,
        1)), Tenants.HEADER, "../x");
    assertThat(slash.statusCode()).isEqualTo(400);
    assertThat(slash.body()).contains("character '/' at offset 2 is not allowed");
    // Header bytes are UTF-8 to the sender and ISO-8859-1 to Armeria (the JDK's client sends no
    // such bytes, so the headers are built here): the message quotes what the sender typed.
    var accented = com.linecorp.armeria.common.RequestHeaders.builder(
        com.linecorp.armeria.common.HttpMethod.GET, "/api/v1/labels").add(Tenants.HEADER,
        new String("t\u00ebam".getBytes(java.nio.charset.StandardCharsets.UTF_8),
            java.nio.charset.StandardCharsets.ISO_8859_1)).build();
    assertThatThrownBy(() -> Tenants.idOf(accented)).hasMessageContaining(
        "\"t\u00ebam\" is not a tenant id: a non-ASCII character at offset 1");
    assertThat(Files.exists(dir.resolve("data").resolve("x"))).isFalse();
    // A sender that cannot set headers names its tenant in the URL; both must agree.
    assertThat(data("/api/v1/query?query=shared_gauge&tenant=" + enc(B), null).path("result")
        .path(0).path("value").path(1).asText()).isEqualTo("2");
    HttpResponse<String> both = Requests.get(URI.create(base + "/api/v1/labels?tenant=" + enc(B)),
        Tenants.HEADER, A);
    assertThat(both.statusCode()).isEqualTo(400);
    assertThat(both.body()).contains("name different tenants");
    assertThat(get("/api/v1/labels?tenant=a%2Fb", null).body()).contains("URL parameter tenant");
    assertThat(Requests.post(URI.create(base + "/api/v1/write?tenant=" + enc(A)),
        Requests.snappy(request(series(new String[] {"__name__", "via_param", "job", "j"}, now,
            5))), Requests.RW1_CONTENT_TYPE, "snappy").statusCode()).isEqualTo(204);
    assertThat(data("/api/v1/query?query=via_param", A).path("result").size()).isEqualTo(1);
    // Process routes need no tenant.
    for (String path : List.of("/-/healthy", "/-/ready", "/metrics", "/api/v1/tenants", "/",
        "/api/v1/openapi.yaml")) {
      assertThat(get(path, null).statusCode()).as(path).isEqualTo(200);
    }
  }

  @Test
  void aWriteThatStoresNothingCreatesNoTenant() throws Exception {
    Path tenantsDir = dir.resolve("data").resolve(Tenants.TENANTS_DIR);
    String[] labels = {"__name__", "m", "job", "j"};
    URI write = URI.create(base + "/api/v1/write");
    List<HttpResponse<String>> answers = List.of(
        Requests.post(write, new byte[] {1, 2, 3}, Requests.RW1_CONTENT_TYPE, "snappy",
            Tenants.HEADER, "garbage"),
        Requests.post(write, Requests.snappy(request(series(labels, now, 1))),
            Requests.RW2_CONTENT_TYPE, "snappy", Tenants.HEADER, "v2"),
        Requests.post(write, Requests.snappy(request(series(labels, now, 1))),
            Requests.RW1_CONTENT_TYPE, "gzip", Tenants.HEADER, "gzip"),
        write(base, request(series(labels, now - 400L * 86_400_000L, 1)), Tenants.HEADER,
            "too-old"),
        write(base, request(series(new String[] {"__name__", "0bad"}, now, 1)), Tenants.HEADER,
            "bad-name"),
        write(base, request(), Tenants.HEADER, "empty"));
    assertThat(answers.stream().map(HttpResponse::statusCode).toList())
        .containsExactly(400, 415, 415, 400, 400, 204);
    for (String id : List.of("garbage", "v2", "gzip", "too-old", "bad-name", "empty")) {
      assertThat(Files.exists(tenantsDir.resolve(id))).as(id).isFalse();
      assertThat(server.tenant(id)).as(id).isNull();
    }
  }

  @Test
  void aRequestNamingTwoTenantsIsRefusedAndCounted() throws Exception {
    URI labels = URI.create(base + "/api/v1/labels");
    HttpResponse<String> twoHeaders = Requests.get(labels, Tenants.HEADER, A, Tenants.HEADER, B);
    assertThat(twoHeaders.statusCode()).isEqualTo(400);
    assertThat(twoHeaders.body()).contains("2 times with different tenants");
    HttpResponse<String> twoParams = Requests.get(URI.create(base + "/api/v1/labels?tenant="
        + enc(A) + "&tenant=" + enc(B)));
    assertThat(twoParams.statusCode()).isEqualTo(400);
    assertThat(Requests.get(labels, Tenants.HEADER, A, Tenants.HEADER, A).statusCode())
        .as("the same tenant twice").isEqualTo(200);
    assertThat(write(base, request(series(new String[] {"__name__", "m"}, now, 1)),
        Tenants.HEADER, A, Tenants.HEADER, B).statusCode()).isEqualTo(400);
    assertThat(get("/api/v1/labels", null).statusCode()).isEqualTo(401);
    String metrics = Requests.get(base.resolve("/metrics")).body();
    assertThat(metrics).containsPattern(
        "inferlens_tenant_refused_requests_total\\{reason=\"conflicting_tenants\"} [3-9]");
    assertThat(metrics).containsPattern(
        "inferlens_tenant_refused_requests_total\\{reason=\"no_org_id\"} [1-9]");
    // Build info is the process's: Grafana asks for it first.
    assertThat(get("/api/v1/status/buildinfo", null).statusCode()).isEqualTo(200);
  }

  @Test
  void aTenantWithoutAStoreReadsEmptyAndCreatesNothing() throws Exception {
    String ghost = "nobody";
    assertThat(data("/api/v1/series?match[]=" + enc("{__name__=~\".+\"}"), ghost).size())
        .isZero();
    assertThat(data("/api/v1/query?query=shared_gauge", ghost).path("result").size()).isZero();
    assertThat(data("/api/v1/targets", ghost).path("targets").size()).isZero();
    assertThat(data("/api/v1/incidents", ghost).path("incidents").size()).isZero();
    assertThat(data("/api/v1/status/tsdb", ghost).path("headStats").path("numSeries").asLong())
        .isZero();
    assertThat(Files.exists(dir.resolve("data").resolve(Tenants.TENANTS_DIR).resolve(ghost)))
        .isFalse();
    assertThat(server.tenant(ghost)).isNull();
    JsonNode list = data("/api/v1/tenants", null);
    assertThat(list.path("multitenancy").asBoolean()).isTrue();
    List<String> ids = new ArrayList<>();
    list.path("tenants").forEach(t -> ids.add(t.path("id").asText()));
    assertThat(ids).contains(A, B).doesNotContain(ghost);
  }

  @Test
  void seriesLimitsArePerTenant() throws Exception {
    // 400 active series per metric and tenant (300 for B by its override): the first tenant's
    // 500 fill its own quota only.
    Map<String, Integer> codes = new LinkedHashMap<>();
    for (String tenant : List.of(A, B)) {
      List<TimeSeries> list = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        list.add(series(new String[] {"__name__", "per_tenant_limit", "user_id", "u" + i},
            now, i));
      }
      HttpResponse<String> r = write(base, request(list.toArray(TimeSeries[]::new)),
          Tenants.HEADER, tenant);
      codes.put(tenant, r.statusCode());
      assertThat(r.body()).contains("--limits.max-series-per-metric");
      if (tenant.equals(B)) {
        assertThat(r.body()).endsWith("; tenant " + B + "'s limits are set by"
            + " --multitenancy.limits (max-series-per-metric=300)\n");
      } else {
        assertThat(r.body()).doesNotContain("--multitenancy.limits");
      }
      assertThat(data("/api/v1/query?query=" + enc("count(per_tenant_limit)"), tenant)
          .path("result").path(0).path("value").path(1).asText())
          .isEqualTo(tenant.equals(A) ? "400" : "300");
    }
    JsonNode tenants = data("/api/v1/tenants", null).path("tenants");
    for (JsonNode t : tenants) {
      if (t.path("id").asText().equals(B)) {
        assertThat(t.path("limits").path("max-series-per-metric").asLong()).isEqualTo(300);
      } else {
        assertThat(t.path("limits").path("max-series-per-metric").asLong()).isEqualTo(400);
      }
    }
    assertThat(codes).containsValues(400, 400);
    assertThat(Requests.get(base.resolve("/metrics")).body())
        .contains("inferlens_samples_rejected_total{reason=\"series_per_metric_limit\","
            + "tenant=\"team-a\"} 100.0");
  }

  @Test
  void tenantsPastTheLimitAreRefusedAndTheLayoutIsChecked() throws Exception {
    // max-tenants 3: A and B exist; a third is created, a fourth refused.
    String[] labels = {"__name__", "m", "job", "j"};
    assertThat(write(base, request(series(labels, now, 1)), Tenants.HEADER, "third")
        .statusCode()).isEqualTo(204);
    HttpResponse<String> fourth = write(base, request(series(labels, now, 1)), Tenants.HEADER,
        "fourth");
    assertThat(fourth.statusCode()).isEqualTo(400);
    assertThat(fourth.body()).contains("--multitenancy.max-tenants").contains("\"fourth\"");
    assertThat(data("/api/v1/labels", "fourth").size()).as("reads empty").isZero();

    // The other mode on this data directory is refused, naming what to do.
    assertThatThrownBy(() -> InferLensServer.start(ServerConfig.forTests(dir.resolve("data")),
        Clock.systemUTC())).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("--multitenancy");
    Path single = dir.resolve("single");
    InferLensServer.start(ServerConfig.forTests(single).withEvalInterval(0), Clock.systemUTC())
        .close();
    assertThatThrownBy(() -> InferLensServer.start(ServerConfig.forTests(single)
        .withTenancy(new Multitenancy(true, 3)), Clock.systemUTC()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(single.resolve("tenants").resolve("ID").toString());
  }

  @Test
  void tenantsComeBackAfterARestart() throws Exception {
    Path d = dir.resolve("restart");
    ServerConfig cfg = ServerConfig.forTests(d).withEvalInterval(0)
        .withTenancy(new Multitenancy(true, 10));
    String[] labels = {"__name__", "restart_gauge", "job", "j"};
    try (InferLensServer s = InferLensServer.start(cfg, Clock.systemUTC())) {
      URI u = URI.create("http://127.0.0.1:" + s.port());
      assertThat(write(u, request(series(labels, now, 7)), Tenants.HEADER, "t1").statusCode())
          .isEqualTo(204);
      assertThat(write(u, request(series(labels, now, 8)), Tenants.HEADER, "t2").statusCode())
          .isEqualTo(204);
    }
    try (InferLensServer s = InferLensServer.start(cfg, Clock.systemUTC())) {
      URI u = URI.create("http://127.0.0.1:" + s.port());
      for (String[] t : new String[][] {{"t1", "7"}, {"t2", "8"}}) {
        JsonNode r = JSON.readTree(Requests.get(u.resolve("/api/v1/query?query=restart_gauge"),
            Tenants.HEADER, t[0]).body());
        assertThat(r.path("data").path("result").path(0).path("value").path(1).asText())
            .isEqualTo(t[1]);
      }
    }
  }
}
