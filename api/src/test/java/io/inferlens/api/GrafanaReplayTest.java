package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.inferlens.api.GrafanaQueryRules.LabelValuesQuery;
import io.inferlens.api.GrafanaQueryRules.Selection;
import io.inferlens.api.GrafanaQueryRules.Timing;
import io.inferlens.simulator.Scenario;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Option;

/**
 * Replays what Grafana (9/10, the Prometheus data source as {@code grafana/provisioning}
 * configures it) sends for the shipped dashboards, against an InferLens server holding three
 * hours of simulator data (vLLM 0.13 and dcgm-exporter of two engines, {@code healthy} on
 * 10.0.0.2 serving {@value #MODEL_A}, {@code peak-saturation} on 10.0.0.3 serving
 * {@value #MODEL_B}, 15 s scrapes):
 *
 * <ol>
 *   <li>"Save &amp; test": {@code POST /api/v1/query} {@code query=1+1&time=<now>} (Grafana 9/10's
 *       frontend test, and 11's backend health check), the same at {@code time=4} (Grafana 10's
 *       backend health check evaluates over the fixed range 1 s…4 s), and
 *       {@code GET /api/v1/status/buildinfo};
 *   <li>every dashboard variable, in order, each {@code label_values} as
 *       {@code GET /api/v1/label/<label>/values?match[]=&start=&end=}, its {@code regex} applied;
 *   <li>every target of every panel of every file in {@code grafana/dashboards/}, read from the
 *       files, as {@code POST /api/v1/query_range} with the form Grafana's backend posts.
 * </ol>
 *
 * Each dashboard is replayed over its own default range and over the last 24 hours, first with
 * its variables as saved (All), then narrowed to the first value of each. Steps and
 * {@code $__rate_interval} are Grafana's for a {@value #PANEL_WIDTH_PX} px wide panel and a
 * 15 s {@code timeInterval} ({@link GrafanaQueryRules#timing}): step
 * {@code max(max(roundInterval(range / 1000), 15 s), roundInterval(range / 11000))}, rate interval
 * {@code max(4 × 15 s, interval + 15 s)}; start and end floored to a multiple of the step. Every
 * answer must be HTTP 200, {@code status: success}, a non-empty matrix of
 * {@code [number, "string"]} pairs on the step grid with at least one finite value (label values:
 * a non-empty list of strings); all failures are reported together.
 *
 * <p>With {@code -D}{@value #TARGET_PROPERTY}{@code =prometheus} the same data is remote-written
 * to Debian's Prometheus 2.42 ({@code --web.enable-remote-write-receiver}) and the replay runs
 * against it instead, which checks the replay itself.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GrafanaReplayTest {

  static final String TARGET_PROPERTY = "inferlens.grafanaReplay.target";
  static final int PANEL_WIDTH_PX = 1000;
  static final long SCRAPE_MS = SimulatedWrites.SCRAPE_MS;
  static final double PLAY_S = 3 * 3600;
  static final String MODEL_A = "Qwen/Qwen3-32B-FP8";
  static final String MODEL_B = "meta-llama/Llama-3.1-8B-Instruct";
  static final String ALL = "$__all";
  /** Extra ranges replayed for every dashboard besides its own, as Grafana's time picker. */
  static final List<String> EXTRA_RANGES = List.of("now-24h");
  static final ObjectMapper JSON = new ObjectMapper();
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final Pattern RELATIVE_RANGE = Pattern.compile("now-(\\d+)([smhdw])");
  static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  /** Values each known variable must take when every parent variable is All. */
  static final Map<String, List<String>> EXPECTED_ALL = Map.of(
      "model_name", List.of(MODEL_A, MODEL_B),
      "instance", List.of("10.0.0.2:8000", "10.0.0.3:8000"),
      "host", List.of("10.0.0.2", "10.0.0.3"));

  private Path grafana;
  private InferLensServer server;
  private Process prom;
  private URI base;
  private String target;
  /** One line per request sent, method and path first. */
  private final List<String> replayed = new ArrayList<>();

  @BeforeAll
  void loadSimulatorData(@TempDir Path dir) throws Exception {
    grafana = grafanaDir();
    target = System.getProperty(TARGET_PROPERTY, "inferlens");
    if (target.equals("prometheus")) {
      ExternalProcesses.requireBinary(Path.of("/usr/bin/prometheus"), "prometheus");
      ExternalProcesses.Prom p = ExternalProcesses.startPrometheus(dir, "prometheus",
          "global:\n  scrape_interval: 15s\n", "--web.enable-remote-write-receiver");
      prom = p.process();
      p.awaitReady();
      base = p.base();
    } else {
      assertThat(target).as(TARGET_PROPERTY).isEqualTo("inferlens");
      server = InferLensServer.start(ServerConfig.forTests(dir.resolve("data")),
          Clock.systemUTC());
      base = URI.create("http://127.0.0.1:" + server.port());
    }
    long t0 = System.nanoTime();
    long now = System.currentTimeMillis();
    SimulatedWrites w = new SimulatedWrites(base);
    w.addScenario(Scenario.byId("healthy"), PLAY_S, "10.0.0.2", MODEL_A, now, 7);
    w.addScenario(Scenario.byId("peak-saturation"), PLAY_S, "10.0.0.3", MODEL_B, now, 7);
    w.catchUp(now);
    w.catchUp(System.currentTimeMillis());
    System.out.printf(Locale.ROOT, "GrafanaReplayTest: %,d samples written to %s in %.1f s%n",
        w.samplesWritten, target, (System.nanoTime() - t0) / 1e9);
  }

  @AfterAll
  void stop() throws Exception {
    System.out.printf(Locale.ROOT, "GrafanaReplayTest: replayed %d requests against %s%n",
        replayed.size(), target);
    // The exact requests, for reading and for replaying by hand with curl.
    Path log = Path.of("target", "grafana-replay-" + target + ".txt");
    if (Files.isDirectory(log.getParent())) {
      Files.write(log, replayed);
    }
    ExternalProcesses.stop(prom);
    if (server != null) {
      server.close();
    }
  }

  @Test
  void provisioningFilesFitTheServerAndTheDashboards() throws Exception {
    JsonNode ds = YAML.readTree(grafana.resolve("provisioning/datasources/inferlens.yaml")
        .toFile()).get("datasources");
    assertThat(ds).hasSize(1);
    JsonNode d = ds.get(0);
    String listen = Main.Serve.class.getDeclaredField("listen").getAnnotation(Option.class)
        .defaultValue();
    assertThat(d.get("type").asText()).isEqualTo("prometheus");
    assertThat(d.get("name").asText()).isEqualTo("InferLens");
    assertThat(d.get("url").asText()).as("the default --listen %s", listen)
        .isEqualTo("http://localhost:" + ServerConfig.parseListen(listen).getPort());
    JsonNode jd = d.get("jsonData");
    // What the replay assumes: form POSTs, the label-values API with match[], 15 s scrapes.
    assertThat(jd.get("httpMethod").asText()).isEqualTo("POST");
    assertThat(jd.get("prometheusType").asText()).isEqualTo("Prometheus");
    assertThat(jd.get("prometheusVersion").asText()).isEqualTo("2.42.0");
    assertThat(TimeParams.parseDurationMs("timeInterval", jd.get("timeInterval").asText()))
        .isEqualTo(SCRAPE_MS);
    String uid = d.get("uid").asText();

    JsonNode providers = YAML.readTree(grafana.resolve("provisioning/dashboards/inferlens.yaml")
        .toFile()).get("providers");
    assertThat(providers).hasSize(1);
    assertThat(providers.get(0).get("type").asText()).isEqualTo("file");
    assertThat(providers.get(0).get("options").get("path").asText()).isNotEmpty();

    List<Path> files = dashboardFiles();
    assertThat(files).extracting(p -> p.getFileName().toString())
        .contains("live-overview.json", "ttft-tpot.json");
    for (Path f : files) {
      JsonNode dash = JSON.readTree(f.toFile());
      List<String> refs = new ArrayList<>();
      collectDatasourceUids(dash, refs);
      assertThat(refs).as("%s: data source uids", f.getFileName()).isNotEmpty()
          .allMatch(u -> u.equals(uid) || u.equals("-- Grafana --"));
      for (JsonNode panel : panels(dash)) {
        String type = panel.get("type").asText();
        if (!panel.has("targets")) {
          assertThat(type).as("%s: panel \"%s\" without queries", f.getFileName(),
              panel.path("title").asText()).isIn("row", "text");
        }
      }
    }
    JsonNode live = JSON.readTree(grafana.resolve("dashboards/live-overview.json").toFile());
    assertThat(panels(live)).as("the open-diagnoses panel links to the InferLens UI")
        .anyMatch(p -> p.path("title").asText().equals("Open diagnoses")
            && p.path("options").path("content").asText().contains("http://localhost:9201/#/"));
  }

  @Test
  void saveAndTestSucceeds() throws Exception {
    SoftAssertions soft = new SoftAssertions();
    long now = System.currentTimeMillis();
    for (String time : List.of(GrafanaQueryRules.seconds(now), "4")) {
      Map<String, String> form = new LinkedHashMap<>();
      form.put("query", "1+1");
      form.put("time", time);
      JsonNode r = send(soft, "POST", "/api/v1/query", GrafanaQueryRules.form(form));
      if (r != null) {
        JsonNode data = r.path("data");
        soft.assertThat(data.path("resultType").asText()).as("1+1 at %s", time)
            .isEqualTo("scalar");
        JsonNode result = data.path("result");
        soft.assertThat(result.size() == 2 && result.get(0).isNumber()
            && result.get(0).asDouble() == Double.parseDouble(time)
            && result.get(1).asText().equals("2"))
            .as("1+1 at %s is [%s, \"2\"], got %s", time, time, result).isTrue();
      }
    }
    JsonNode info = send(soft, "GET", "/api/v1/status/buildinfo", null);
    if (info != null) {
      soft.assertThat(info.path("data").path("version").asText()).as("buildinfo version")
          .isNotBlank();
    }
    soft.assertAll();
  }

  @Test
  void everyDashboardQueryAnswersANonEmptyMatrix() throws Exception {
    SoftAssertions soft = new SoftAssertions();
    int panelQueries = 0;
    for (Path f : dashboardFiles()) {
      JsonNode dash = JSON.readTree(f.toFile());
      List<String> ranges = new ArrayList<>();
      ranges.add(dash.get("time").get("from").asText());
      assertThat(dash.get("time").get("to").asText()).as("%s: range end", f).isEqualTo("now");
      for (String r : EXTRA_RANGES) {
        if (!ranges.contains(r)) {
          ranges.add(r);
        }
      }
      for (String range : ranges) {
        for (boolean narrowed : new boolean[] {false, true}) {
          long toMs = System.currentTimeMillis();
          long fromMs = toMs - relativeMs(range);
          String what = f.getFileName() + " " + range + (narrowed ? " first values" : " as saved");
          Map<String, Selection> vars = resolveVariables(soft, what, dash, fromMs, toMs, narrowed);
          for (JsonNode panel : panels(dash)) {
            panelQueries += replayPanel(soft, what, panel, vars, fromMs, toMs);
          }
        }
      }
    }
    System.out.printf(Locale.ROOT, "GrafanaReplayTest: %d panel queries%n", panelQueries);
    // 2 ranges × 2 selections × the 16 targets shipped (8 in each dashboard), or more.
    soft.assertThat(panelQueries).as("panel queries replayed").isGreaterThanOrEqualTo(2 * 2 * 16);
    soft.assertAll();
  }

  /** Resolves the variables in order, as Grafana does on load and on each range change. */
  private Map<String, Selection> resolveVariables(SoftAssertions soft, String what, JsonNode dash,
      long fromMs, long toMs, boolean narrowed) {
    Map<String, Selection> vars = new LinkedHashMap<>();
    boolean allSoFar = true;
    for (JsonNode v : dash.path("templating").path("list")) {
      String name = v.get("name").asText();
      if (!v.get("type").asText().equals("query")) {
        soft.fail("%s: variable %s is of type %s; the replay knows query variables", what, name,
            v.get("type").asText());
        continue;
      }
      JsonNode q = v.get("query");
      String query = GrafanaQueryRules.interpolate(q.isTextual() ? q.asText()
          : q.get("query").asText(), vars);
      LabelValuesQuery lv;
      try {
        lv = GrafanaQueryRules.labelValues(query);
      } catch (IllegalArgumentException e) {
        soft.fail("%s: variable %s: %s", what, name, e.getMessage());
        continue;
      }
      JsonNode r = send(soft, "GET", lv.request(fromMs, toMs), null);
      LinkedHashSet<String> values = new LinkedHashSet<>();
      if (r != null && r.path("data").isArray()) {
        for (JsonNode value : r.get("data")) {
          soft.assertThat(value.isTextual()).as("%s: %s value %s", what, name, value).isTrue();
          String kept = GrafanaQueryRules.applyRegex(v.path("regex").asText(), value.asText());
          if (kept != null) {
            values.add(kept);
          }
        }
      }
      List<String> sorted = new ArrayList<>(values);
      soft.assertThat(v.path("sort").asInt()).as("%s: %s sort (the replay knows 0 and 1)", what,
          name).isIn(0, 1);
      if (v.path("sort").asInt() == 1) {
        sorted.sort(null);
      }
      if (allSoFar && EXPECTED_ALL.containsKey(name)) {
        soft.assertThat(sorted).as("%s: %s values", what, name).isEqualTo(EXPECTED_ALL.get(name));
      }
      soft.assertThat(sorted).as("%s: %s values", what, name).isNotEmpty();
      if (sorted.isEmpty()) {
        sorted.add("no-value-" + name); // keeps the panel queries going; the failure is recorded
      }
      JsonNode current = v.path("current").path("value");
      List<String> chosen;
      if (narrowed) {
        chosen = List.of(sorted.get(0));
        allSoFar = false;
      } else if (current.toString().contains(ALL)) {
        chosen = sorted;
      } else {
        chosen = new ArrayList<>();
        for (JsonNode c : current.isArray() ? current : JSON.createArrayNode().add(current)) {
          chosen.add(c.asText());
        }
        allSoFar = false;
      }
      vars.put(name, new Selection(chosen, v.path("multi").asBoolean(),
          v.path("includeAll").asBoolean()));
    }
    return vars;
  }

  /** Sends every visible target of one panel; returns how many. */
  private int replayPanel(SoftAssertions soft, String what, JsonNode panel,
      Map<String, Selection> vars, long fromMs, long toMs) {
    String title = what + " / " + panel.path("title").asText();
    if (panel.has("interval")) {
      soft.fail("%s: a min interval, which the replay does not compute", title);
      return 0;
    }
    long maxDataPoints = panel.path("maxDataPoints").asLong(PANEL_WIDTH_PX);
    Timing t = GrafanaQueryRules.timing(toMs - fromMs, maxDataPoints, SCRAPE_MS);
    int n = 0;
    for (JsonNode target : panel.path("targets")) {
      if (target.path("hide").asBoolean() || target.path("expr").asText().isEmpty()) {
        continue;
      }
      String expr = GrafanaQueryRules.interpolateBuiltIns(
          GrafanaQueryRules.interpolate(target.get("expr").asText(), vars), t, toMs - fromMs);
      if (target.path("instant").asBoolean() || target.has("interval")
          || target.has("intervalFactor") || expr.contains("$")) {
        soft.fail("%s %s: an instant query, a min step, an interval factor or a variable the"
            + " replay does not know: %s", title, target.path("refId").asText(), expr);
        continue;
      }
      long startMs = GrafanaQueryRules.alignDown(fromMs, t.stepMs());
      long endMs = GrafanaQueryRules.alignDown(toMs, t.stepMs());
      Map<String, String> form = new LinkedHashMap<>();
      form.put("query", expr);
      form.put("start", GrafanaQueryRules.seconds(startMs));
      form.put("end", GrafanaQueryRules.seconds(endMs));
      form.put("step", GrafanaQueryRules.seconds(t.stepMs()));
      JsonNode r = send(soft, "POST", "/api/v1/query_range", GrafanaQueryRules.form(form));
      if (r != null) {
        checkMatrix(soft, title + " " + target.path("refId").asText() + ": " + expr,
            r.path("data"), startMs, endMs, t.stepMs());
      }
      n++;
    }
    return n;
  }

  private static void checkMatrix(SoftAssertions soft, String what, JsonNode data, long startMs,
      long endMs, long stepMs) {
    soft.assertThat(data.path("resultType").asText()).as("%s: resultType", what)
        .isEqualTo("matrix");
    JsonNode result = data.path("result");
    soft.assertThat(result.isArray() && result.size() > 0).as("%s: non-empty result", what)
        .isTrue();
    int finite = 0;
    for (JsonNode series : result) {
      soft.assertThat(series.path("metric").isObject()).as("%s: metric object", what).isTrue();
      JsonNode values = series.path("values");
      soft.assertThat(values.isArray() && values.size() > 0).as("%s: values of %s", what,
          series.path("metric")).isTrue();
      long previous = Long.MIN_VALUE;
      for (JsonNode pair : values) {
        boolean shaped = pair.isArray() && pair.size() == 2 && pair.get(0).isNumber()
            && pair.get(1).isTextual();
        soft.assertThat(shaped).as("%s: [number, \"string\"] pair, got %s", what, pair).isTrue();
        if (!shaped) {
          continue;
        }
        long ms = Math.round(pair.get(0).asDouble() * 1000);
        soft.assertThat(ms >= startMs && ms <= endMs && (ms - startMs) % stepMs == 0
            && ms > previous).as("%s: timestamp %s on the step grid, increasing", what,
                pair.get(0)).isTrue();
        previous = ms;
        double v = parseValue(pair.get(1).asText());
        if (Double.isFinite(v)) {
          finite++;
        }
      }
    }
    soft.assertThat(finite).as("%s: finite values", what).isPositive();
  }

  /** A sample value as Prometheus writes it; a malformed one is NaN, hence not finite. */
  private static double parseValue(String s) {
    switch (s) {
      case "+Inf":
        return Double.POSITIVE_INFINITY;
      case "-Inf":
        return Double.NEGATIVE_INFINITY;
      default:
        try {
          return Double.parseDouble(s);
        } catch (NumberFormatException e) {
          return Double.NaN;
        }
    }
  }

  /**
   * Sends one request as Grafana's backend would (form POST or GET) and checks the envelope.
   *
   * @return the JSON answer when it is 200 with {@code status: success}, else null (recorded)
   */
  private JsonNode send(SoftAssertions soft, String method, String pathAndQuery, String form) {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(pathAndQuery))
        .timeout(Duration.ofSeconds(30)).header("User-Agent", "Grafana/10.4.2");
    if (method.equals("POST")) {
      b.header("Content-Type", "application/x-www-form-urlencoded")
          .POST(HttpRequest.BodyPublishers.ofString(form));
    } else {
      b.GET();
    }
    String what = method + " " + pathAndQuery + (form == null ? "" : " " + form);
    replayed.add(what);
    HttpResponse<String> r;
    try {
      r = HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(what, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    String body = r.body().length() > 300 ? r.body().substring(0, 300) + "…" : r.body();
    soft.assertThat(r.statusCode()).as("%s → %s", what, body).isEqualTo(200);
    if (r.statusCode() != 200) {
      return null;
    }
    JsonNode json;
    try {
      json = JSON.readTree(r.body());
    } catch (IOException e) {
      soft.fail("%s: not JSON: %s", what, body);
      return null;
    }
    soft.assertThat(json.path("status").asText()).as("%s → %s", what, body).isEqualTo("success");
    return json.path("status").asText().equals("success") ? json : null;
  }

  /** Panels in dashboard order, those inside collapsed rows included. */
  static List<JsonNode> panels(JsonNode dash) {
    List<JsonNode> out = new ArrayList<>();
    for (JsonNode p : dash.path("panels")) {
      out.add(p);
      for (JsonNode inner : p.path("panels")) {
        out.add(inner);
      }
    }
    return out;
  }

  private static void collectDatasourceUids(JsonNode n, List<String> out) {
    JsonNode ds = n.get("datasource");
    if (n.isObject() && ds != null && ds.isObject() && ds.has("uid")) {
      out.add(ds.get("uid").asText());
    }
    // An object iterates its field values, an array its elements.
    n.forEach(e -> collectDatasourceUids(e, out));
  }

  /** {@code now-6h} and the like, in milliseconds. */
  static long relativeMs(String from) {
    Matcher m = RELATIVE_RANGE.matcher(from);
    assertThat(m.matches()).as("dashboard range start %s (the replay knows now-N<unit>)", from)
        .isTrue();
    long n = Long.parseLong(m.group(1));
    switch (m.group(2)) {
      case "s":
        return n * 1000;
      case "m":
        return n * 60_000;
      case "h":
        return n * 3_600_000;
      case "d":
        return n * 86_400_000;
      default:
        return n * 7 * 86_400_000;
    }
  }

  private List<Path> dashboardFiles() throws IOException {
    List<Path> out = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(grafana.resolve("dashboards"),
        "*.json")) {
      ds.forEach(out::add);
    }
    out.sort(null);
    return out;
  }

  /** {@code grafana/} of the repository: the module's parent when run by Maven, or above. */
  private static Path grafanaDir() {
    Path p = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("grafana/provisioning"))) {
      p = p.getParent();
    }
    assertThat(p).as("grafana/provisioning above %s", System.getProperty("user.dir")).isNotNull();
    return p.resolve("grafana");
  }
}
