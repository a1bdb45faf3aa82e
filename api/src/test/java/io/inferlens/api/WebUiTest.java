package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.simulator.Scenario;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The UI's routes and JSON endpoints without a browser: static files and the uPlot WebJar at
 * {@code /} next to the API, {@code /api/v1/dashboard}, {@code /api/v1/sparklines} and
 * {@code /api/v1/trends} on an hour of
 * the healthy scenario, and the tenant wiring of the served scripts.
 */
class WebUiTest {

  @TempDir static Path dir;
  static InferLensServer server;
  static URI base;
  static String id;
  static final ObjectMapper JSON = new ObjectMapper();

  @BeforeAll
  static void start() throws Exception {
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data")), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
    new SimulatedWrites(base).playScenario(Scenario.byId("healthy"), 3600, "10.0.0.2", "m",
        System.currentTimeMillis(), 3);
    id = JSON.readTree(Requests.get(base.resolve("/api/v1/targets")).body()).get("data")
        .get("targets").get(0).get("id").asText();
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  @Test
  void servesTheAppAndUplotBesideTheApi() {
    HttpResponse<String> index = Requests.get(base.resolve("/"));
    assertThat(index.statusCode()).isEqualTo(200);
    assertThat(index.headers().firstValue("content-type").orElse("")).startsWith("text/html");
    assertThat(index.body()).contains("<script type=\"module\" src=\"/app.js\">")
        .contains("href=\"#/incidents\"") // the header links the incidents page
        .contains("href=\"#/cardinality\""); // and the cardinality page
    assertThat(Requests.get(base.resolve("/app.js")).body())
        .contains("import { renderIncidents } from './incidents.js';")
        .contains("import { renderCardinality } from './cardinality.js';");
    // The cardinality page reads the two routes it names.
    assertThat(Requests.get(base.resolve("/cardinality.js")).body())
        .contains("'/api/v1/status/tsdb'", "cause: 'CARDINALITY_EXPLOSION'");
    for (String js : List.of("/app.js", "/charts.js", "/overview.js", "/target.js",
        "/diagnosis.js", "/trends.js", "/incidents.js", "/cardinality.js", "/state.js",
        "/api.js", "/dom.js",
        "/webjars/uplot/1.6.30/dist/uPlot.esm.js")) {
      HttpResponse<String> r = Requests.get(base.resolve(js));
      assertThat(r.statusCode()).as(js).isEqualTo(200);
      // ES modules only load with a JavaScript media type.
      assertThat(r.headers().firstValue("content-type").orElse("")).as(js)
          .contains("javascript");
    }
    assertThat(Requests.get(base.resolve("/webjars/uplot/1.6.30/dist/uPlot.min.css")).statusCode())
        .isEqualTo(200);
    assertThat(Requests.get(base.resolve("/style.css")).statusCode()).isEqualTo(200);
    assertThat(Requests.get(base.resolve("/no-such-file.js")).statusCode()).isEqualTo(404);
    // The catch-all does not shadow the API, metrics or health checks.
    assertThat(Requests.get(base.resolve("/api/v1/targets")).body()).contains("\"success\"");
    assertThat(Requests.get(base.resolve("/metrics")).body()).contains("inferlens_");
    assertThat(Requests.get(base.resolve("/-/healthy")).statusCode()).isEqualTo(200);
  }

  @Test
  void theAppNamesItsTenantOnEveryRequestAndASingleStoreIgnoresIt() throws Exception {
    // The UI reads /api/v1/tenants once; without --multitenancy its picker stays hidden.
    JsonNode tenancy = JSON.readTree(Requests.get(base.resolve("/api/v1/tenants")).body())
        .get("data");
    assertThat(tenancy.get("multitenancy").asBoolean()).isFalse();
    assertThat(tenancy.get("tenants")).isEmpty();
    assertThat(Requests.get(base.resolve("/")).body())
        .contains("<div class=\"tenant\" id=\"tenant-box\" hidden>")
        .contains("<label>Tenant <select id=\"tenant\"></select></label>");
    assertThat(Requests.get(base.resolve("/app.js")).body())
        .contains("fetch('/api/v1/tenants'", "'inferlens-tenant'", "update({ tenant })");
    // tenant follows the user from view to view, and every request names it.
    assertThat(Requests.get(base.resolve("/state.js")).body())
        .contains("const GLOBAL = ['range', 'from', 'to', 'refresh', 'tenant'];");
    assertThat(Requests.get(base.resolve("/api.js")).body())
        .contains("TENANT_HEADER = 'X-Scope-OrgID'", "[TENANT_HEADER]: tenant");
    // A URL with a tenant on a single-store server reads the one store.
    assertThat(Requests.get(base.resolve("/api/v1/targets"), Tenants.HEADER, "team-a").body())
        .isEqualTo(Requests.get(base.resolve("/api/v1/targets")).body());
  }

  @Test
  void dashboardReturnsSeveralIndicatorsOnOneAxis() throws Exception {
    HttpResponse<String> r = Requests.get(base.resolve("/api/v1/dashboard?target="
        + Requests.enc(id) + "&signal=e2e_p95,waiting&signal=gpu_util&smoothing=sma"));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode d = JSON.readTree(r.body()).get("data");
    int n = d.get("timestamps").size();
    assertThat(n).isGreaterThan(100);
    assertThat(d.get("step").asDouble()).isEqualTo(15.0);
    assertThat(d.get("signals")).hasSize(3);
    JsonNode e2e = d.get("signals").get(0);
    assertThat(e2e.get("signal").asText()).isEqualTo("e2e_p95");
    assertThat(e2e.get("unit").asText()).isEqualTo("s");
    assertThat(e2e.get("raw")).hasSize(n);
    assertThat(e2e.get("threshold")).hasSize(n);
    assertThat(d.get("signals").get(2).get("unit").asText()).isEqualTo("%");
    assertThat(d.get("diagnoses")).isEmpty();
    assertThat(Requests.get(base.resolve("/api/v1/dashboard?target=" + Requests.enc(id)
        + "&signal=nonsense")).statusCode()).isEqualTo(400);
    assertThat(Requests.get(base.resolve("/api/v1/dashboard?signal=waiting")).statusCode())
        .isEqualTo(400);
  }

  @Test
  void sparklinesGiveEveryTargetInOneRequestWithTheDashboardsValues() throws Exception {
    long end = System.currentTimeMillis() / 1000;
    long start = end - 3600;
    String url = "/api/v1/sparklines?signal=e2e_p95,waiting,gpu_util&points=61&start=" + start
        + "&end=" + end;
    HttpResponse<String> r = Requests.get(base.resolve(url));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    // Asked again, the cached steps give the same answer.
    assertThat(Requests.get(base.resolve(url)).body()).isEqualTo(r.body());
    JsonNode d = JSON.readTree(r.body()).get("data");
    assertThat(d.get("step").asDouble()).isEqualTo(60.0); // 61 points in 1 h: 4 analysis steps
    JsonNode ts = d.get("timestamps");
    assertThat(ts.size()).isBetween(60, 61);
    assertThat(ts.get(0).asLong() % 60_000).isZero();
    assertThat(d.get("signals").get(2).get("unit").asText()).isEqualTo("%");
    assertThat(d.get("targets")).hasSize(1);
    JsonNode row = d.get("targets").get(0);
    assertThat(row.get("id").asText()).isEqualTo(id);
    JsonNode e2e = row.get("values").get("e2e_p95");
    assertThat(e2e).hasSize(ts.size());
    // The same formula and rate window as the dashboard's raw values at the same step.
    JsonNode dash = JSON.readTree(Requests.get(base.resolve("/api/v1/dashboard?target="
        + Requests.enc(id) + "&signal=e2e_p95&step=60&start=" + start + "&end=" + end)).body())
        .get("data");
    java.util.Map<Long, Double> byTime = new java.util.HashMap<>();
    for (int i = 0; i < dash.get("timestamps").size(); i++) {
      JsonNode v = dash.get("signals").get(0).get("raw").get(i);
      byTime.put(dash.get("timestamps").get(i).asLong(), v.isNull() ? null : v.asDouble());
    }
    int compared = 0;
    for (int i = 0; i < ts.size(); i++) {
      Double want = byTime.get(ts.get(i).asLong());
      if (want != null && !e2e.get(i).isNull()) {
        assertThat(e2e.get(i).asDouble()).as("at %d", ts.get(i).asLong())
            .isCloseTo(want, org.assertj.core.data.Offset.offset(1e-9));
        compared++;
      }
    }
    assertThat(compared).isGreaterThan(40);
    for (String bad : List.of("signal=nonsense", "signal=waiting&points=1",
        "signal=waiting&points=1001", "signal=waiting&points=x", "signal=waiting&target=nope",
        "points=10")) {
      HttpResponse<String> b = Requests.get(base.resolve("/api/v1/sparklines?" + bad));
      assertThat(b.statusCode()).as(bad).isEqualTo(400);
      assertThat(b.body()).as(bad).contains("bad_data");
    }
  }

  @Test
  void aYearOfDiagnosesIsAnsweredAtACoarserMultipleOfTheAnalysisStep() throws Exception {
    long yearAgo = System.currentTimeMillis() / 1000 - 365 * 86_400L;
    for (String path : List.of("/api/v1/diagnoses?start=" + yearAgo,
        "/api/v1/dashboard?target=" + Requests.enc(id) + "&signal=e2e_p95&start=" + yearAgo)) {
      HttpResponse<String> r = Requests.get(base.resolve(path));
      assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(200);
      assertThat(r.body()).contains("\"success\"");
    }
    JsonNode d = JSON.readTree(Requests.get(base.resolve("/api/v1/dashboard?target="
        + Requests.enc(id) + "&signal=e2e_p95&start=" + yearAgo)).body()).get("data");
    double stepS = d.get("step").asDouble();
    assertThat(stepS).isGreaterThan(15).isEqualTo(15 * Math.rint(stepS / 15));
    assertThat(Requests.get(base.resolve("/api/v1/diagnoses")).statusCode()).isEqualTo(200);
  }

  @Test
  void trendsGiveDailyP95AndVersions() throws Exception {
    HttpResponse<String> r = Requests.get(base.resolve("/api/v1/trends?target="
        + Requests.enc(id) + "&signal=e2e_p95&start=" + (System.currentTimeMillis() / 1000 - 7200)));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode d = JSON.readTree(r.body()).get("data");
    JsonNode s = d.get("signals").get(0);
    assertThat(s.get("signal").asText()).isEqualTo("e2e_p95");
    assertThat(s.get("days").size()).isBetween(1, 2); // the hour may straddle midnight UTC
    assertThat(s.get("days").get(0).get("p95").asDouble()).isBetween(0.5, 20.0);
    assertThat(s.get("weekOverWeek").get("lastWeek").isNull()).isTrue();
    assertThat(s.get("weekOverWeek").get("change").isNull()).isTrue();
    JsonNode v = JSON.readTree(Requests.get(base.resolve(
        "/api/v1/trends/versions?instance=10.0.0.2:8000")).body()).get("data");
    assertThat(v.get("versions")).hasSize(1);
    assertThat(v.get("versions").get(0).get("model_name").asText()).isEqualTo("m");
    assertThat(v.get("versions").get(0).get("e2e_p95").asDouble()).isGreaterThan(0);
    assertThat(Requests.get(base.resolve("/api/v1/trends?target=nope")).statusCode())
        .isEqualTo(400);
    assertThat(Requests.get(base.resolve("/api/v1/trends/versions")).statusCode())
        .isEqualTo(400);
  }

  @Test
  void trendQuantileInterpolatesLikeNumpy() {
    assertThat(TrendsApi.quantile(List.of(1.0, 2.0, 3.0, 4.0, 5.0), 0.95)).isEqualTo(4.8);
    assertThat(TrendsApi.quantile(List.of(3.0, 1.0), 0.5)).isEqualTo(2.0);
    assertThat(TrendsApi.quantile(List.of(7.0), 0.95)).isEqualTo(7.0);
  }
}
