package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.simulator.Scenario;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The web UI in a real browser: Debian's chromium driven by chromedriver through Selenium (nothing
 * is downloaded; the test is skipped when either binary is missing, and fails then under
 * {@code CI=true}). A server with the default analysis settings (15 s step, 5 m windows) is loaded
 * with the healthy and peak-saturation simulator scenarios, replayed in simulated time and
 * remote-written with timestamps ending now; a second server holds 30 days of one target at 15 s
 * for the trend view's timing; a third, with {@code --multitenancy}, holds two tenants for the
 * tenant picker. Screenshots go to {@code target/screenshots/}; the trend timing to
 * {@code target/screenshots/trend-timing.txt}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class WebUiBrowserTest {

  static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  static final Path SHOTS = Path.of("target", "screenshots");
  static final ObjectMapper JSON = new ObjectMapper();
  static final String MODEL = "Qwen/Qwen3-32B-FP8";
  /** Scenario length: the 20 % healthy phase must exceed the 1 h a baseline needs. */
  static final double SCENARIO_S = 6 * 3600;

  @TempDir static Path dir;
  static InferLensServer server;
  static InferLensServer history;
  static URI base;
  static URI historyBase;
  static ChromeDriverService service;
  static ChromeDriver driver;
  static String peakId;
  static String healthyId;
  static String historyId;
  static ScheduledExecutorService feeder;

  @BeforeAll
  static void start() throws Exception {
    for (Path p : List.of(CHROMIUM, CHROMEDRIVER)) {
      ExternalProcesses.requireBinary(p, "chromium chromium-driver");
    }
    Files.createDirectories(SHOTS);
    long t0 = System.nanoTime();
    server = InferLensServer.start(ServerConfig.forTests(dir.resolve("main")), Clock.systemUTC());
    base = URI.create("http://127.0.0.1:" + server.port());
    long now = System.currentTimeMillis();
    SimulatedWrites w = new SimulatedWrites(base);
    w.playScenario(Scenario.byId("healthy"), SCENARIO_S, "10.0.0.2", MODEL, now, 7);
    w.playScenario(Scenario.byId("peak-saturation"), SCENARIO_S, "10.0.0.3", MODEL, now, 7);
    w.catchUp(System.currentTimeMillis());
    System.out.printf(Locale.ROOT, "loaded %,d samples of 2 scenarios in %.1f s%n",
        w.samplesWritten, (System.nanoTime() - t0) / 1e9);
    // Keep scraping in real time so that the data does not end in a monitoring gap.
    feeder = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "webui-test-feeder");
      t.setDaemon(true);
      return t;
    });
    feeder.scheduleWithFixedDelay(() -> w.catchUp(System.currentTimeMillis()), 5, 5,
        TimeUnit.SECONDS);
    for (JsonNode t : get(base, "/api/v1/targets").get("targets")) {
      String instance = t.get("labels").get("instance").asText();
      if (instance.startsWith("10.0.0.3:")) {
        peakId = t.get("id").asText();
      } else if (instance.startsWith("10.0.0.2:")) {
        healthyId = t.get("id").asText();
      }
    }
    assertThat(peakId).isNotNull();
    assertThat(healthyId).isNotNull();
    // Written at full speed: the always-on evaluator journals it in its next evaluation.
    server.evaluateNow();
    List<String> causes = new ArrayList<>();
    for (JsonNode d : get(base, "/api/v1/diagnoses").get("diagnoses")) {
      causes.add(d.get("target").get("instance").asText() + " " + d.get("cause").asText()
          + " end=" + d.get("end"));
    }
    assertThat(causes).as("diagnoses before driving the browser")
        .contains("10.0.0.3:8000 CAPACITY_EXHAUSTED end=null")
        .noneMatch(c -> c.startsWith("10.0.0.2:"));

    long t1 = System.nanoTime();
    history = InferLensServer.start(new ServerConfig(new InetSocketAddress("127.0.0.1", 0),
        dir.resolve("history"), 32L * 86_400_000L, ServerConfig.DEFAULT_MAX_REQUEST_BYTES,
        ServerConfig.DEFAULT_MAX_FUTURE_MS, false), Clock.systemUTC());
    historyBase = URI.create("http://127.0.0.1:" + history.port());
    SimulatedWrites hw = new SimulatedWrites(historyBase);
    long end = System.currentTimeMillis();
    long start = end - 30L * 86_400_000L;
    // 30 days of v1 (the trend timed below) and a 3-day canary of a 20 % slower v2 beside it.
    hw.syntheticHistory("10.0.9.1:8000", "acme/chat-v1", start, end, 1.0);
    hw.syntheticHistory("10.0.9.1:8000", "acme/chat-v2", end - 3L * 86_400_000L, end, 1.2);
    System.out.printf(Locale.ROOT, "loaded %,d samples of 30 days in %.1f s%n", hw.samplesWritten,
        (System.nanoTime() - t1) / 1e9);
    for (JsonNode t : get(historyBase, "/api/v1/targets?start=" + (end / 1000 - 3600))
        .get("targets")) {
      if (t.get("labels").get("model_name").asText().equals("acme/chat-v1")) {
        historyId = t.get("id").asText();
      }
    }
    assertThat(historyId).isNotNull();

    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
    service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
        .usingAnyFreePort().build();
    ChromeOptions o = new ChromeOptions();
    o.setBinary(CHROMIUM.toFile());
    o.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--no-first-run", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--window-size=1360,900", "--force-device-scale-factor=1",
        "--user-data-dir=" + Files.createDirectories(dir.resolve("chromium")));
    LoggingPreferences logs = new LoggingPreferences();
    logs.enable(LogType.BROWSER, Level.ALL);
    o.setCapability("goog:loggingPrefs", logs);
    driver = new ChromeDriver(service, o);
    driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
  }

  @AfterAll
  static void stop() {
    if (feeder != null) {
      feeder.shutdownNow();
    }
    if (driver != null) {
      driver.quit();
    }
    if (service != null) {
      service.stop();
    }
    if (server != null) {
      server.close();
    }
    if (history != null) {
      history.close();
    }
  }

  /** The browser console must stay free of errors in every test. */
  @AfterEach
  void noConsoleErrors() {
    if (driver == null) {
      return;
    }
    List<String> severe = new ArrayList<>();
    for (LogEntry e : driver.manage().logs().get(LogType.BROWSER)) {
      if (e.getLevel().intValue() >= Level.SEVERE.intValue()) {
        severe.add(e.getMessage());
      }
    }
    assertThat(severe).as("SEVERE browser console entries").isEmpty();
  }

  static JsonNode get(URI b, String path) throws IOException {
    HttpResponse<String> r = Requests.get(b.resolve(path));
    assertThat(r.statusCode()).as("%s: %s", path, r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("data");
  }

  static WebElement awaitReady() {
    new WebDriverWait(driver, Duration.ofSeconds(60)).until(d ->
        d.findElement(By.id("app")).getAttribute("data-ready") != null);
    WebElement app = driver.findElement(By.id("app"));
    assertThat(app.getAttribute("data-ready")).as("view state; page says: %s", app.getText())
        .isEqualTo("true");
    return app;
  }

  static void open(URI b, String hash) {
    driver.get(b + "/" + hash);
    awaitReady();
  }

  /** Number of painted pixels of a canvas. */
  static long painted(WebElement canvas) {
    Object n = ((JavascriptExecutor) driver).executeScript(
        "const c = arguments[0]; const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;"
            + "let n = 0; for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) n++; return n;", canvas);
    return ((Number) n).longValue();
  }

  static void screenshot(String name) throws IOException {
    Files.write(SHOTS.resolve(name + ".png"),
        ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
  }

  static void assertChartsDrawn(int expected) {
    List<WebElement> charts = driver.findElements(By.cssSelector("section.chart"));
    assertThat(charts).hasSize(expected);
    for (WebElement c : charts) {
      List<WebElement> canvases = c.findElements(By.tagName("canvas"));
      assertThat(canvases).as("chart %s has a canvas", c.getAttribute("data-chart")).isNotEmpty();
      assertThat(painted(canvases.get(0))).as("painted pixels of chart %s",
          c.getAttribute("data-chart")).isGreaterThan(1000);
    }
  }

  @Test
  @Order(1)
  void overviewListsTargetsWithTheirStates() throws Exception {
    open(base, "#/");
    List<WebElement> rows = driver.findElements(By.cssSelector("tr[data-target]"));
    assertThat(rows).hasSize(2);
    WebElement peak = driver.findElement(By.cssSelector("tr[data-target='" + peakId + "']"));
    WebElement healthy = driver.findElement(By.cssSelector("tr[data-target='" + healthyId + "']"));
    assertThat(peak.getAttribute("data-state")).isEqualTo("critical");
    assertThat(peak.findElement(By.cssSelector(".badge")).getText()).contains("critical");
    assertThat(peak.findElement(By.cssSelector(".diag-link[data-cause='CAPACITY_EXHAUSTED']")).getText())
        .contains("CAPACITY_EXHAUSTED");
    assertThat(healthy.getAttribute("data-state")).isEqualTo("healthy");
    assertThat(healthy.findElement(By.cssSelector(".badge")).getText()).contains("healthy");
    // Sparklines are drawn asynchronously after the table: wait for all ten.
    new WebDriverWait(driver, Duration.ofSeconds(30)).until(d ->
        d.findElements(By.cssSelector(".spark-box canvas")).size() == 10);
    for (WebElement cell : driver.findElements(By.cssSelector("td.spark-cell"))) {
      WebElement c = cell.findElement(By.cssSelector(".spark-box canvas"));
      assertThat(painted(c)).as("painted pixels of %s in %s", cell.getAttribute("data-signal"),
          cell.findElement(By.xpath("..")).getAttribute("data-target")).isGreaterThan(50);
    }
    assertThat(peak.findElement(By.cssSelector("td[data-signal='waiting'] .spark-value")).getText())
        .matches("\\d+(\\.\\d)?");
    screenshot("overview");
  }

  @Test
  @Order(2)
  void targetPageDrawsBothTabsWithSmoothingToggles() throws Exception {
    open(base, "#/");
    driver.findElement(By.cssSelector("tr[data-target='" + peakId + "'] a.tname")).click();
    awaitReady();
    assertThat(driver.getCurrentUrl()).contains("#/target/").contains("tab=live");
    assertChartsDrawn(5);
    assertThat(driver.findElements(By.cssSelector(".periods .diag-link"))).isNotEmpty();
    // The threshold band and its legend entry on the E2E chart.
    WebElement e2e = driver.findElement(By.cssSelector("section[data-chart='e2e']"));
    assertThat(e2e.getText()).contains("threshold");
    e2e.findElement(By.cssSelector("button[data-smoothing='sma']")).click();
    assertThat(driver.getCurrentUrl()).contains("sm_e2e=sma");
    assertThat(e2e.findElement(By.cssSelector("button[data-smoothing='sma']"))
        .getAttribute("aria-pressed")).isEqualTo("true");
    assertChartsDrawn(5);
    // One cursor for all charts: hovering the E2E chart fills the legend of the GPU chart.
    WebElement gpuLegend = driver.findElement(By.cssSelector(
        "section[data-chart='gpu'] .u-legend .u-series:nth-child(2) .u-value"));
    assertThat(gpuLegend.getText()).isEqualTo("–");
    new Actions(driver).moveToElement(e2e.findElement(By.cssSelector(".u-over")), 40, 20)
        .perform();
    new WebDriverWait(driver, Duration.ofSeconds(5)).until(d -> gpuLegend.getText().endsWith("%"));
    screenshot("target-live");
    driver.findElement(By.cssSelector("a[data-tab='ttft']")).click();
    awaitReady();
    assertThat(driver.getCurrentUrl()).contains("tab=ttft");
    assertChartsDrawn(4);
    screenshot("target-ttft");
  }

  @Test
  @Order(3)
  void rangeSwitchesTo30Days() throws Exception {
    open(base, "#/target/" + peakId + "?tab=live&range=6h");
    driver.findElement(By.cssSelector("button[data-range='30d']")).click();
    new WebDriverWait(driver, Duration.ofSeconds(10)).until(d ->
        d.getCurrentUrl().contains("range=30d"));
    awaitReady();
    assertThat(driver.findElement(By.cssSelector("button[data-range='30d']"))
        .getAttribute("aria-pressed")).isEqualTo("true");
    assertChartsDrawn(5);
    // A shared URL restores the same view.
    String url = driver.getCurrentUrl();
    driver.get("about:blank");
    driver.get(url);
    awaitReady();
    assertThat(driver.findElement(By.cssSelector("button[data-range='30d']"))
        .getAttribute("aria-pressed")).isEqualTo("true");
    // Custom range: the last two hours, entered in the form.
    driver.findElement(By.cssSelector("button[data-range='custom']")).click();
    ((JavascriptExecutor) driver).executeScript(
        "const f = document.getElementById('custom');"
            + "const local = ms => new Date(ms - new Date().getTimezoneOffset() * 60e3).toISOString().slice(0, 16);"
            + "f.from.value = local(Date.now() - 2 * 3600e3); f.to.value = local(Date.now());"
            + "f.requestSubmit();");
    new WebDriverWait(driver, Duration.ofSeconds(10)).until(d ->
        d.getCurrentUrl().contains("range=custom") && d.getCurrentUrl().contains("to="));
    awaitReady();
    assertChartsDrawn(5);
    // Auto-refresh is part of the URL too.
    new Select(driver.findElement(By.id("refresh"))).selectByValue("30s");
    new WebDriverWait(driver, Duration.ofSeconds(10)).until(d ->
        d.getCurrentUrl().contains("refresh=30s"));
    awaitReady();
    new Select(driver.findElement(By.id("refresh"))).selectByValue("off");
    new WebDriverWait(driver, Duration.ofSeconds(10)).until(d ->
        !d.getCurrentUrl().contains("refresh="));
  }

  @Test
  @Order(4)
  void diagnosisShowsTheChainAndItsEvidence() throws Exception {
    open(base, "#/");
    driver.findElement(By.cssSelector("tr[data-target='" + peakId + "'] .diag-link[data-cause='CAPACITY_EXHAUSTED']")).click();
    awaitReady();
    assertThat(driver.findElement(By.tagName("h1")).getText()).isEqualTo("CAPACITY_EXHAUSTED");
    List<WebElement> layers = driver.findElements(By.cssSelector("li.layer"));
    assertThat(layers).extracting(l -> l.getAttribute("data-layer"))
        .containsExactly("latency", "queue", "resource");
    assertThat(layers.get(0).findElement(By.cssSelector(".verdict")).getText()).contains("breached");
    assertThat(layers.get(1).findElement(By.cssSelector(".verdict")).getText()).contains("saturated");
    assertThat(layers.get(2).findElement(By.cssSelector(".verdict")).getText()).contains("saturated");
    WebElement e2e = layers.get(0).findElement(By.cssSelector("tr[data-signal='e2e_p95']"));
    List<WebElement> cells = e2e.findElements(By.tagName("td"));
    assertThat(cells.get(0).getText()).as("value").matches("[\\d.]+ (s|ms)");
    assertThat(cells.get(1).getText()).as("threshold").matches("[\\d.]+ (s|ms)");
    assertThat(cells.get(2).getText()).as("baseline").matches("[\\d.]+ (s|ms)");
    assertThat(cells.get(3).getText()).as("unit").isEqualTo("s");
    // The evidence carries the PromQL it came from, with a copy button for Grafana.
    assertThat(e2e.findElement(By.cssSelector("code.promql")).getText())
        .startsWith("histogram_quantile(0.95, sum by (le) (rate(")
        .contains("e2e_request_latency_seconds_bucket");
    assertThat(e2e.findElement(By.cssSelector("button.copy")).getText()).isEqualTo("Copy");
    assertThat(layers.get(1).findElements(By.cssSelector("tr[data-signal='waiting']"))).hasSize(1);
    assertThat(layers.get(2).findElements(By.cssSelector("tr[data-signal='gpu_util']"))).hasSize(1);
    assertThat(layers.get(2).findElements(By.cssSelector("tr[data-signal='kv_cache_usage']")))
        .hasSize(1);
    assertThat(driver.findElement(By.cssSelector("ul.recs")).getText()).contains("max-num-seqs");
    screenshot("diagnosis");
    driver.findElement(By.cssSelector("a[data-link='live']")).click();
    awaitReady();
    assertThat(driver.getCurrentUrl()).contains("range=custom").contains("from=");
    assertChartsDrawn(5);
  }

  @Test
  @Order(5)
  void darkThemeIsReadable() throws Exception {
    open(base, "#/target/" + peakId + "?tab=live&range=6h");
    WebElement theme = driver.findElement(By.id("theme"));
    for (int i = 0; i < 3 && !theme.getText().contains("dark"); i++) {
      theme.click();
      theme = driver.findElement(By.id("theme"));
    }
    awaitReady();
    assertThat(driver.findElement(By.tagName("html")).getAttribute("data-theme")).isEqualTo("dark");
    assertChartsDrawn(5);
    screenshot("target-live-dark");
    open(base, "#/");
    new WebDriverWait(driver, Duration.ofSeconds(30)).until(d ->
        d.findElements(By.cssSelector(".spark-box canvas")).size() == 10);
    screenshot("overview-dark");
    // Back to the system theme for the tests after this one.
    for (int i = 0; i < 3 && !driver.findElement(By.id("theme")).getText().contains("auto"); i++) {
      driver.findElement(By.id("theme")).click();
    }
  }

  @Test
  @Order(6)
  void thirtyDayTrendLoadsAndDraws() throws Exception {
    StringBuilder report = new StringBuilder();
    for (int run = 1; run <= 2; run++) { // cold, then warm (RocksDB block cache)
      driver.get("about:blank");
      driver.get(historyBase + "/#/trends/" + historyId + "?range=30d");
      WebElement app = awaitReady();
      double ready = Double.parseDouble(app.getAttribute("data-ready-ms"));
      double chart = Double.parseDouble(app.getAttribute("data-chart-ms"));
      String analyze = driver.findElement(By.cssSelector("main p.muted.small")).getText();
      report.append(String.format(Locale.ROOT,
          "run %d: trend chart drawn %.0f ms after navigation start, whole view (with versions) %.0f ms; %s%n",
          run, chart, ready, analyze));
    }
    System.out.print(report);
    Files.writeString(SHOTS.resolve("trend-timing.txt"), report.toString());
    assertChartsDrawn(3);
    assertThat(driver.findElement(By.cssSelector("main p.muted.small")).getText())
        .containsPattern("over 3[01] day");
    List<WebElement> days = driver.findElements(By.cssSelector("table.wow tbody tr"));
    assertThat(days).hasSize(3);
    assertThat(days.get(0).getText()).contains("slower");
    List<WebElement> versions = driver.findElements(By.cssSelector("table.versions tbody tr"));
    assertThat(versions).extracting(v -> v.getAttribute("data-model"))
        .containsExactly("acme/chat-v1", "acme/chat-v2");
    screenshot("trends-30d");
  }

  @Test
  @Order(7)
  void customRangesTakeUnixSecondsMillisecondsAndRfc3339() throws Exception {
    long to = System.currentTimeMillis() / 1000;
    long from = to - 1800;
    for (String[] ft : new String[][] {
        {Long.toString(from), Long.toString(to)},
        {Long.toString(from * 1000), Long.toString(to * 1000)},
        {java.time.Instant.ofEpochSecond(from).toString(),
            java.time.Instant.ofEpochSecond(to).toString()}}) {
      driver.get("about:blank");
      open(base, "#/target/" + peakId + "?range=custom&from=" + ft[0] + "&to=" + ft[1]);
      assertThat(driver.findElement(By.id("app")).getText()).doesNotContain("Loading…");
      assertChartsDrawn(driver.findElements(By.cssSelector("section.chart")).size());
      assertThat(driver.findElements(By.cssSelector("section.chart"))).isNotEmpty();
    }
  }

  @Test
  @Order(8)
  void aSparseTrendAxisSpansItsData() throws Exception {
    driver.get("about:blank");
    open(base, "#/trends/" + healthyId + "?range=30d");
    new WebDriverWait(driver, Duration.ofSeconds(20)).until(d ->
        !d.findElements(By.cssSelector("[data-x-range]")).isEmpty());
    List<WebElement> charts = driver.findElements(By.cssSelector("[data-x-range]"));
    long today = System.currentTimeMillis() / 1000 / 86_400 * 86_400;
    for (WebElement c : charts) {
      String[] r = c.getAttribute("data-x-range").split(",");
      double min = Double.parseDouble(r[0]);
      double max = Double.parseDouble(r[1]);
      // One or two days of data: the axis spans them plus half a day, not years.
      assertThat(max - min).isLessThanOrEqualTo(3 * 86_400);
      assertThat(min).isLessThanOrEqualTo(today);
      assertThat(max).isGreaterThanOrEqualTo(today);
    }
    screenshot("trends-sparse");
  }

  @Test
  @Order(9)
  void incidentsListFiltersByHashParamsAndAnIncidentTakesNotes() throws Exception {
    long now = System.currentTimeMillis();
    io.inferlens.analysis.diagnose.Diagnosis d = null;
    for (io.inferlens.analysis.diagnose.Diagnosis x : server.engine().diagnoses(
        now - 6 * 3_600_000L, now, List.of())) {
      if (x.cause().name().equals("CAPACITY_EXHAUSTED")) {
        d = x;
      }
    }
    assertThat(d).as("the peak target's capacity diagnosis").isNotNull();
    server.journal().record(d, now); // null when the evaluator journaled it already
    String id = d.id();
    // the alert runbook_url's form: cause and target filters in the hash
    open(base, "#/incidents?cause=CAPACITY_EXHAUSTED&target=10.0.0.3");
    assertThat(driver.findElement(By.tagName("h1")).getText()).isEqualTo("Incidents");
    assertThat(new Select(driver.findElement(By.name("cause"))).getFirstSelectedOption()
        .getText()).isEqualTo("CAPACITY_EXHAUSTED");
    List<WebElement> rows = driver.findElements(By.cssSelector("table.incidents tbody tr"));
    assertThat(rows).extracting(r -> r.getAttribute("data-id")).contains(id)
        .allMatch(r -> r.contains("/capacity_exhausted/"));
    // a target id (as /api/v1/targets gives it) filters too
    driver.get("about:blank");
    open(base, "#/incidents?target="
        + java.net.URLEncoder.encode(peakId, java.nio.charset.StandardCharsets.UTF_8));
    assertThat(driver.findElements(By.cssSelector("table.incidents tbody tr")))
        .extracting(r -> r.getAttribute("data-id")).contains(id)
        .allMatch(r -> r.startsWith(peakId + "/"));
    driver.get("about:blank");
    open(base, "#/incidents?cause=KV_CACHE_PRESSURE&target=10.0.0.2");
    assertThat(driver.findElements(By.cssSelector("table.incidents tbody tr"))).isEmpty();
    // an alert's runbook_url, as Alerts builds it: that incident only, under its cause and
    // target filters, which match it (the ids come back from URLSearchParams as they are)
    String runbook = Alerts.runbookUrl(base.toString(), d, null);
    driver.get("about:blank");
    open(base, runbook.substring(runbook.indexOf('#')));
    assertThat(driver.findElements(By.cssSelector("table.incidents tbody tr")))
        .extracting(r -> r.getAttribute("data-id")).containsExactly(id);
    assertThat(driver.findElement(By.name("target")).getAttribute("value")).isEqualTo(peakId);
    assertThat(new Select(driver.findElement(By.name("cause"))).getFirstSelectedOption()
        .getText()).isEqualTo("CAPACITY_EXHAUSTED");
    // "show all that match" drops the id and keeps the filters, which still find it
    driver.findElement(By.id("all-incidents")).click();
    new WebDriverWait(driver, Duration.ofSeconds(20)).until(x ->
        x.findElements(By.id("all-incidents")).isEmpty());
    awaitReady();
    assertThat(driver.getCurrentUrl()).doesNotContain("id=");
    assertThat(driver.findElements(By.cssSelector("table.incidents tbody tr")))
        .extracting(r -> r.getAttribute("data-id")).contains(id)
        .allMatch(r -> r.startsWith(peakId + "/capacity_exhausted/"));
    // the exported rules' runbook_url (cause and target, no incident)
    String ruleLink = io.inferlens.analysis.rules.AlertText.runbookUrl(base.toString(),
        d.cause(), peakId);
    driver.get("about:blank");
    open(base, ruleLink.substring(ruleLink.indexOf('#')));
    assertThat(driver.findElements(By.cssSelector("table.incidents tbody tr")))
        .extracting(r -> r.getAttribute("data-id")).contains(id);
    // the Alertmanager generatorURL's form: the id encoded as one segment
    driver.get("about:blank");
    String generator = Alerts.incidentUrl(base.toString(), id);
    open(base, generator.substring(generator.indexOf('#')));
    assertThat(driver.findElement(By.tagName("h1")).getText()).isEqualTo("CAPACITY_EXHAUSTED");
    assertThat(driver.findElements(By.cssSelector("div.layer"))).extracting(
        l -> l.getAttribute("data-layer")).containsExactly("latency", "queue", "resource");
    assertThat(driver.findElement(By.cssSelector("ul.recs")).getText()).contains("max-num-seqs");
    assertThat(driver.findElement(By.id("markdown")).getAttribute("href"))
        .endsWith("/markdown").contains("/api/v1/incidents/");
    driver.findElement(By.cssSelector("#note-form textarea")).sendKeys("scaled out to 2 replicas");
    driver.findElement(By.cssSelector("#note-form input[name='author']")).sendKeys("ops");
    driver.findElement(By.cssSelector("#note-form button")).click();
    new WebDriverWait(driver, Duration.ofSeconds(20)).until(x ->
        !x.findElements(By.cssSelector("#notes li")).isEmpty());
    assertThat(driver.findElement(By.cssSelector("#notes li")).getText())
        .contains("ops").contains("scaled out to 2 replicas");
    assertThat(server.journal().get(id).notes()).extracting(n -> n.text())
        .contains("scaled out to 2 replicas");
    screenshot("incident");
  }

  @Test
  @Order(10)
  void cardinalityPageListsTopOffendersAndHighlightsAnOpenExplosion() throws Exception {
    // A label bomb through remote write: 2,000 user_id series of one metric on one target. The
    // server's own evaluator (every 15 s, a cardinality sample a minute) must find it.
    long now = System.currentTimeMillis();
    io.inferlens.proto.prometheus.Remote.WriteRequest.Builder b =
        io.inferlens.proto.prometheus.Remote.WriteRequest.newBuilder();
    for (int u = 0; u < 2_000; u++) {
      b.addTimeseries(Requests.series(new String[] {"__name__", "chat_requests_total", "job",
          "chat-api", "instance", "api-1:8080", "user_id", "u" + u}, now - 1_000, 1));
    }
    assertThat(Requests.write(base, b.build()).statusCode()).isEqualTo(204);
    String openFindings = "/api/v1/incidents?state=open&cause=CARDINALITY_EXPLOSION&start="
        + (now / 1000 - 3600);
    long deadline = System.nanoTime() + 120_000_000_000L; // a sample interval and evaluations
    while (get(base, openFindings).get("incidents").isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(1_000);
    }
    JsonNode found = get(base, openFindings).get("incidents");
    assertThat(found).as("the evaluator's CARDINALITY_EXPLOSION within 2 minutes").hasSize(1);
    assertThat(found.get(0).at("/target/metric").asText()).isEqualTo("chat_requests_total");

    open(base, "#/cardinality");
    assertThat(driver.findElement(By.tagName("h1")).getText()).isEqualTo("Cardinality");
    List<WebElement> cards = driver.findElements(By.cssSelector("#explosions [data-finding]"));
    assertThat(cards).isNotEmpty().allSatisfy(c -> assertThat(c.getText())
        .contains("chat_requests_total", "user_id"));
    assertThat(driver.findElement(By.cssSelector("#top-metrics tbody tr")).getAttribute(
        "data-name")).isEqualTo("chat_requests_total");
    assertThat(driver.findElement(By.cssSelector("#top-metrics tr[data-name='chat_requests_total']"))
        .getAttribute("class")).isEqualTo("exploding");
    assertThat(driver.findElement(By.cssSelector("#top-labels tbody tr")).getAttribute(
        "data-name")).isEqualTo("user_id");
    assertThat(driver.findElement(By.cssSelector("#top-labels tr[data-name='user_id']"))
        .getAttribute("class")).isEqualTo("exploding");
    assertThat(driver.findElement(By.cssSelector("#top-labels tr[data-name='le']"))
        .getAttribute("class")).isNullOrEmpty();
    assertThat(driver.findElement(By.cssSelector("#top-metrics td.num")).getText())
        .isEqualTo("2,000");
    ((JavascriptExecutor) driver).executeScript("window.scrollTo(0, 0)");
    screenshot("cardinality");
    // The finding's incident page shows its one layer and the relabel snippet.
    String href = driver.findElement(By.cssSelector("#explosions [data-finding] a"))
        .getAttribute("href");
    driver.get("about:blank");
    driver.get(href);
    awaitReady();
    assertThat(driver.findElement(By.tagName("h1")).getText()).isEqualTo("CARDINALITY_EXPLOSION");
    assertThat(driver.findElements(By.cssSelector("div.layer"))).extracting(
        l -> l.getAttribute("data-layer")).containsExactly("cardinality");
    assertThat(driver.findElement(By.cssSelector("ul.recs")).getText()).contains("labeldrop");
    assertThat(driver.findElements(By.tagName("h2"))).extracting(WebElement::getText)
        .contains("Evidence: cardinality");
    screenshot("cardinality-incident");
    // The overview has no row for a store-level finding: its banner links the page. Its range
    // ends on a 15 s grid (state.js), so it shows a finding once the grid has passed its start.
    long startMs = java.time.Instant.parse(found.get(0).get("start").asText()).toEpochMilli();
    Thread.sleep(Math.max(0, startMs + 16_000 - System.currentTimeMillis()));
    driver.get("about:blank");
    open(base, "#/");
    assertThat(driver.findElement(By.id("cardinality-banner")).getText())
        .contains("CARDINALITY_EXPLOSION", "chat_requests_total");
    assertThat(driver.findElement(By.cssSelector("#cardinality-banner a")).getAttribute("href"))
        .endsWith("#/cardinality");
  }

  /**
   * Installed before every page of {@link #aMultitenantServerShowsOneTenantAtATime}: records in
   * {@code window.__api} every API request but the tenant list (which needs no tenant), and in
   * {@code window.__bare} those sent without {@code X-Scope-OrgID}.
   */
  static final String RECORD_BARE_REQUESTS = """
      window.__api = [];
      window.__bare = [];
      const fetch0 = window.fetch;
      window.fetch = function (input, init) {
        const url = new URL(String((input && input.url) || input), location.href);
        const headers = new Headers((init && init.headers) || (input && input.headers) || {});
        if (url.pathname.startsWith('/api/') && url.pathname !== '/api/v1/tenants') {
          window.__api.push(url.pathname);
          if (!headers.has('X-Scope-OrgID')) window.__bare.push(url.pathname);
        }
        return fetch0.apply(this, arguments);
      };
      """;

  /**
   * The page's API requests so far without a tenant header: must be none.
   *
   * @param requests whether the page made API requests (but the tenant list) at all
   */
  static void assertEveryRequestNamedItsTenant(boolean requests) {
    JavascriptExecutor js = (JavascriptExecutor) driver;
    assertThat((List<?>) js.executeScript("return window.__api")).as("API requests seen")
        .hasSizeGreaterThanOrEqualTo(requests ? 1 : 0);
    assertThat((List<?>) js.executeScript("return window.__bare"))
        .as("API requests without X-Scope-OrgID").isEmpty();
    assertThat(driver.findElement(By.id("app")).getText()).doesNotContain("no org id");
  }

  /** The instances of the overview's rows. */
  static List<String> overviewInstances() {
    return driver.findElements(By.cssSelector("tr[data-target] a.tname")).stream()
        .map(a -> a.getText().replaceAll(".* @ ", "")).toList();
  }

  @Test
  @Order(11)
  void aMultitenantServerShowsOneTenantAtATime() throws Exception {
    Object script = driver.executeCdpCommand("Page.addScriptToEvaluateOnNewDocument",
        Map.of("source", RECORD_BARE_REQUESTS)).get("identifier");
    Path downloads = Files.createDirectories(dir.resolve("downloads"));
    try (InferLensServer mt = InferLensServer.start(ServerConfig.forTests(dir.resolve("tenants"))
        .withTenancy(new Multitenancy(true, 10)), Clock.systemUTC())) {
      URI mtBase = URI.create("http://127.0.0.1:" + mt.port());
      // Before any write: no tenant to show, so how senders name theirs instead of a 401.
      open(mtBase, "#/");
      assertThat(driver.findElement(By.id("no-tenant")).getText())
          .contains("No tenant has written yet", "X-Scope-OrgID: team-a", "remote_write");
      assertThat(driver.findElement(By.id("tenant")).isDisplayed()).isTrue();
      assertThat(driver.findElement(By.cssSelector("#tenant-other input")).isDisplayed()).isTrue();
      assertEveryRequestNamedItsTenant(false);
      screenshot("tenants-none");

      long now = System.currentTimeMillis();
      new SimulatedWrites(mtBase, Tenants.HEADER, "team-a").playScenario(
          Scenario.byId("peak-saturation"), SCENARIO_S, "10.0.0.3", MODEL, now, 7);
      new SimulatedWrites(mtBase, Tenants.HEADER, "team-b").playScenario(
          Scenario.byId("healthy"), SCENARIO_S, "10.0.0.2", MODEL, now, 7);
      mt.evaluateNow();

      // No tenant in the URL: the first listed one, named in the URL.
      driver.get("about:blank");
      open(mtBase, "#/");
      assertThat(driver.getCurrentUrl()).endsWith("#/?tenant=team-a");
      Select picker = new Select(driver.findElement(By.id("tenant")));
      assertThat(picker.getOptions()).extracting(o -> o.getAttribute("value"))
          .containsExactly("team-a", "team-b", "");
      assertThat(picker.getFirstSelectedOption().getText()).isEqualTo("team-a");
      assertThat(driver.findElement(By.id("tenant-other")).isDisplayed()).isFalse();
      assertThat(overviewInstances()).containsExactly("10.0.0.3:8000");
      assertThat(driver.findElement(By.id("nav-incidents")).getAttribute("href"))
          .endsWith("#/incidents?tenant=team-a");
      assertEveryRequestNamedItsTenant(true);
      screenshot("tenants-overview");

      // A tenant not listed (yet) can be typed: it reads empty.
      picker.selectByValue("");
      WebElement other = driver.findElement(By.cssSelector("#tenant-other input"));
      assertThat(other.isDisplayed()).isTrue();
      other.sendKeys("team-c");
      driver.findElement(By.cssSelector("#tenant-other button")).click();
      new WebDriverWait(driver, Duration.ofSeconds(20)).until(d ->
          d.getCurrentUrl().endsWith("#/?tenant=team-c")
              && d.findElement(By.id("app")).getText().contains("No targets"));
      awaitReady();
      assertThat(new Select(driver.findElement(By.id("tenant"))).getFirstSelectedOption()
          .getText()).isEqualTo("team-c");
      assertEveryRequestNamedItsTenant(true);
      picker = new Select(driver.findElement(By.id("tenant")));
      picker.selectByValue("team-b");
      new WebDriverWait(driver, Duration.ofSeconds(20)).until(d ->
          d.getCurrentUrl().contains("tenant=team-b")
              && overviewInstances().equals(List.of("10.0.0.2:8000")));
      awaitReady();
      assertThat(overviewInstances()).containsExactly("10.0.0.2:8000");
      assertEveryRequestNamedItsTenant(true);
      // The last tenant chosen opens next time.
      driver.get("about:blank");
      open(mtBase, "#/incidents");
      assertThat(driver.getCurrentUrl()).endsWith("#/incidents?tenant=team-b");
      assertThat(driver.findElements(By.cssSelector("table.incidents tbody tr"))).isEmpty();
      assertEveryRequestNamedItsTenant(true);

      // An alert's link opens the incident on its tenant.
      JsonNode incidents = JSON.readTree(Requests.get(mtBase.resolve("/api/v1/incidents"),
          Tenants.HEADER, "team-a").body()).get("data").get("incidents");
      String id = null;
      for (JsonNode i : incidents) {
        if (i.get("cause").asText().equals("CAPACITY_EXHAUSTED")) {
          id = i.get("id").asText();
        }
      }
      assertThat(id).as("team-a's capacity incident in %s", incidents).isNotNull();
      driver.get("about:blank");
      open(mtBase, "#/incidents/" + java.net.URLEncoder.encode(id,
          java.nio.charset.StandardCharsets.UTF_8) + "?tenant=team-a");
      assertThat(driver.findElement(By.tagName("h1")).getText()).isEqualTo("CAPACITY_EXHAUSTED");
      assertThat(new Select(driver.findElement(By.id("tenant"))).getFirstSelectedOption()
          .getText()).isEqualTo("team-a");
      assertThat(driver.findElement(By.cssSelector("ul.recs")).getText()).contains("max-num-seqs");
      // The Markdown download cannot be a plain link: it is fetched with the tenant.
      driver.executeCdpCommand("Browser.setDownloadBehavior",
          Map.of("behavior", "allow", "downloadPath", downloads.toString()));
      driver.findElement(By.id("markdown")).click();
      Path md = downloads.resolve("capacity_exhausted.md");
      new WebDriverWait(driver, Duration.ofSeconds(20)).until(d -> Files.isRegularFile(md));
      assertThat(Files.readString(md)).contains("CAPACITY_EXHAUSTED", "10.0.0.3");
      assertThat(driver.findElement(By.id("markdown-status")).getText()).isEmpty();
      assertEveryRequestNamedItsTenant(true);
      screenshot("tenants-incident");
    } finally {
      driver.executeCdpCommand("Browser.setDownloadBehavior", Map.of("behavior", "default"));
      driver.executeCdpCommand("Page.removeScriptToEvaluateOnNewDocument",
          Map.of("identifier", script));
      driver.get("about:blank");
    }
  }

  /**
   * A target with 40 minutes of data has no baseline yet: its latency thresholds are the static
   * defaults (600 s E2E, 30 s TTFT, 1 s TPOT), which the dashboard API marks {@code basis}
   * "static". Far above the data they are not drawn, so each latency chart's y axis fits its
   * data (at most 8 % above the highest raw value) instead of running to the default.
   */
  @Test
  @Order(12)
  void chartAxesFitTheDataBeforeABaseline() throws Exception {
    try (InferLensServer fresh = InferLensServer.start(ServerConfig.forTests(dir.resolve("fresh")),
        Clock.systemUTC())) {
      URI freshBase = URI.create("http://127.0.0.1:" + fresh.port());
      new SimulatedWrites(freshBase).playScenario(Scenario.byId("healthy"), 2400, "10.0.0.7",
          MODEL, System.currentTimeMillis(), 7);
      String id = get(freshBase, "/api/v1/targets").get("targets").get(0).get("id").asText();
      Map<String, Double> rawMax = new java.util.HashMap<>();
      Map<String, Double> staticThreshold = new java.util.HashMap<>();
      JsonNode dash = get(freshBase, "/api/v1/dashboard?target=" + java.net.URLEncoder.encode(id,
          java.nio.charset.StandardCharsets.UTF_8) + "&signal=e2e_p50,e2e_p95,e2e_p99,ttft_p50,"
          + "ttft_p95,ttft_p99,tpot_p50,tpot_p95,tpot_p99&smoothing=none");
      for (JsonNode sig : dash.get("signals")) {
        String chart = sig.get("signal").asText().replaceAll("_p\\d+$", "");
        for (JsonNode v : sig.get("raw")) {
          if (!v.isNull()) {
            rawMax.merge(chart, v.asDouble(), Math::max);
          }
        }
        if (sig.get("signal").asText().endsWith("_p95")) {
          for (int i = 0; i < sig.get("threshold").size(); i++) {
            if (!sig.get("threshold").get(i).isNull()) {
              assertThat(sig.get("basis").get(i).asText()).as("no baseline in 40 minutes")
                  .isEqualTo("static");
              staticThreshold.put(chart, sig.get("threshold").get(i).asDouble());
            }
          }
        }
      }
      assertThat(staticThreshold).containsEntry("e2e", 600.0).containsEntry("ttft", 30.0)
          .containsEntry("tpot", 1.0);
      for (String tab : List.of("live", "ttft")) {
        driver.get("about:blank");
        open(freshBase, "#/target/" + id + "?tab=" + tab);
        for (WebElement c : driver.findElements(By.cssSelector("section.chart"))) {
          String chart = c.getAttribute("data-chart");
          if (!staticThreshold.containsKey(chart)) {
            continue;
          }
          String[] r = c.findElement(By.cssSelector("[data-y-range]")).getAttribute("data-y-range")
              .split(",");
          double yMax = Double.parseDouble(r[1]);
          assertThat(rawMax.get(chart)).as("%s data far below its static threshold", chart)
              .isLessThan(0.5 * staticThreshold.get(chart));
          assertThat(yMax).as("%s y axis", chart).isGreaterThan(0)
              .isLessThanOrEqualTo(1.08 * rawMax.get(chart) * 1.001);
          assertThat(c.findElements(By.cssSelector(".u-legend .u-label")))
              .extracting(WebElement::getText).as("%s legend", chart)
              .isNotEmpty().doesNotContain("threshold");
        }
      }
      screenshot("target-before-baseline");
      driver.get("about:blank");
    }
  }
}
