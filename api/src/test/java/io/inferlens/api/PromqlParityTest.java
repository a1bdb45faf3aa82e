package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferlens.analysis.promql.HistogramQuantile;
import io.inferlens.analysis.promql.InstantSelection;
import io.inferlens.analysis.promql.RangeFunctions;
import io.inferlens.analysis.promql.StepRange;
import io.inferlens.analysis.promql.StepSeries;
import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.storage.AppendResult;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Series;
import io.inferlens.storage.StoreOptions;
import io.inferlens.storage.TimeSeriesStore;
import java.math.BigDecimal;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The analysis module's PromQL functions against a real Prometheus (Debian's 2.42): the same
 * deterministic samples ({@link PromqlParityData}) are remote-written to Prometheus and appended to
 * a {@link TimeSeriesStore}; each expression is evaluated by Prometheus's {@code query_range} and by
 * {@code io.inferlens.analysis.promql} over {@code store.select(...)}, and the two must agree at
 * every step: within a relative 1e-9, and absent (or NaN) at the same steps.
 *
 * <p>Two step grids: 15 s on the counter's exact scrape grid, so windows start exactly on samples
 * (Prometheus 2.x includes them), and 30 s offset by 7 s.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PromqlParityTest {

  static final Path PROMETHEUS = Path.of("/usr/bin/prometheus");
  static final ObjectMapper JSON = new ObjectMapper();
  static final long RANGE_MS = 5 * 60_000L;
  static final double RELATIVE_TOLERANCE = 1e-9;

  private Process prom;
  private URI promBase;
  private TimeSeriesStore store;
  private PromqlParityData data;
  private List<StepRange> grids;

  @BeforeAll
  void writeTheSameDataToPrometheusAndTheStore(@TempDir Path dir) throws Exception {
    ExternalProcesses.requireBinary(PROMETHEUS, "prometheus");
    long now = System.currentTimeMillis();
    data = new PromqlParityData(now - now % PromqlParityData.SCRAPE_MS);
    grids = data.stepGrids();

    store = TimeSeriesStore.open(StoreOptions.defaults(dir.resolve("store")));
    AppendResult appended = store.append(data.seriesWrites());
    assertThat(appended.rejectedCount()).as("store rejections %s", appended.rejections())
        .isZero();

    ExternalProcesses.Prom p = ExternalProcesses.startPrometheus(dir, "prometheus",
        "global:\n  scrape_interval: 15s\n", "--web.enable-remote-write-receiver");
    prom = p.process();
    promBase = p.base();
    Path log = p.log();
    p.awaitReady();
    for (WriteRequest req : data.writeRequests(5 * 60_000L)) {
      HttpResponse<String> r = Requests.write(promBase, req);
      assertThat(r.statusCode()).as("Prometheus remote write: %s; log:\n%s", r.body(),
          ExternalProcesses.tail(log)).isEqualTo(204);
    }
  }

  @AfterAll
  void stop() throws Exception {
    ExternalProcesses.stop(prom);
    if (store != null) {
      store.close();
    }
  }

  @Test
  void rateOfACounterWithAReset() throws Exception {
    compare("rate(" + PromqlParityData.COUNTER + "[5m])", PromqlParityData.COUNTER, 1,
        (s, g) -> RangeFunctions.rate(s.get(0), RANGE_MS, g));
  }

  @Test
  void increaseOfACounterWithAReset() throws Exception {
    compare("increase(" + PromqlParityData.COUNTER + "[5m])", PromqlParityData.COUNTER, 1,
        (s, g) -> RangeFunctions.increase(s.get(0), RANGE_MS, g));
  }

  @Test
  void deltaOfAGauge() throws Exception {
    compare("delta(" + PromqlParityData.GAUGE + "[5m])", PromqlParityData.GAUGE, 1,
        (s, g) -> RangeFunctions.delta(s.get(0), RANGE_MS, g));
  }

  @Test
  void overTimeFunctionsOfAGaugeWithAStaleMarker() throws Exception {
    String g = PromqlParityData.GAUGE;
    compare("avg_over_time(" + g + "[5m])", g, 1,
        (s, st) -> RangeFunctions.avgOverTime(s.get(0), RANGE_MS, st));
    compare("max_over_time(" + g + "[5m])", g, 1,
        (s, st) -> RangeFunctions.maxOverTime(s.get(0), RANGE_MS, st));
    compare("last_over_time(" + g + "[5m])", g, 1,
        (s, st) -> RangeFunctions.lastOverTime(s.get(0), RANGE_MS, st));
    compare("sum_over_time(" + g + "[5m])", g, 1,
        (s, st) -> RangeFunctions.sumOverTime(s.get(0), RANGE_MS, st));
    compare("count_over_time(" + g + "[5m])", g, 1,
        (s, st) -> RangeFunctions.countOverTime(s.get(0), RANGE_MS, st));
  }

  @Test
  void instantSelectionWithLookbackAndStaleMarker() throws Exception {
    compare(PromqlParityData.GAUGE, PromqlParityData.GAUGE, 1,
        (s, g) -> InstantSelection.select(s.get(0), g));
  }

  @Test
  void histogramQuantilesOfBucketRatesSummedAcrossEngines() throws Exception {
    String bucket = PromqlParityData.HISTOGRAM + "_bucket";
    for (double q : new double[] {0.5, 0.95, 0.99}) {
      Map<Long, Double> prom = compare("histogram_quantile(" + q + ", sum by (le) (rate(" + bucket
          + "[5m])))", bucket, 10, (s, g) -> HistogramQuantile.ofSummedRates(q, s, RANGE_MS, g));
      // the quiet period makes every bucket rate 0: Prometheus answers NaN there, and so do we
      assertThat(prom.values()).as("NaN quantiles during the quiet period")
          .anyMatch(v -> Double.isNaN(v));
    }
  }

  /** Evaluates one selection over the store's series for one step grid. */
  @FunctionalInterface
  interface Evaluation {
    StepSeries apply(List<Series> series, StepRange steps);
  }

  /**
   * Runs {@code promql} on both step grids in Prometheus and {@code ours} over the store's
   * {@code metric} series, and compares step by step.
   *
   * @return Prometheus's values on the first grid, timestamp ms → value
   */
  private Map<Long, Double> compare(String promql, String metric, int expectedSeries,
      Evaluation ours) throws Exception {
    Map<Long, Double> first = null;
    for (StepRange g : grids) {
      List<Series> selected = store.select(
          List.of(Matcher.eq("__name__", metric), Matcher.eq("job", PromqlParityData.JOB)),
          g.startMs() - Math.max(RANGE_MS, InstantSelection.DEFAULT_LOOKBACK_MS), g.endMs());
      assertThat(selected).as("series of %s in the store", metric).hasSize(expectedSeries);
      StepSeries mine = ours.apply(selected, g);
      Map<Long, Double> theirs = queryRange(promql, g);
      assertSameValues(promql, g, new HashMap<>(theirs), mine);
      if (first == null) {
        first = theirs;
      }
    }
    return first;
  }

  private static void assertSameValues(String promql, StepRange g, Map<Long, Double> theirs,
      StepSeries mine) {
    List<String> differences = new ArrayList<>();
    int present = 0;
    for (int i = 0; i < mine.size(); i++) {
      long t = mine.timestampsMs()[i];
      Double p = theirs.remove(t);
      double expected = p == null ? Double.NaN : p;
      double actual = mine.value(i);
      if (!Double.isNaN(expected)) {
        present++;
      }
      if (!same(expected, actual)) {
        differences.add("step " + i + " at " + t + " ms: prometheus "
            + (p == null ? "absent" : p) + ", inferlens " + actual);
      }
    }
    assertThat(theirs).as("%s: Prometheus steps not on the grid %s", promql, g).isEmpty();
    assertThat(differences.subList(0, Math.min(10, differences.size())))
        .as("%s on %s: %d differences, the first ones", promql, g, differences.size()).isEmpty();
    // not vacuous: most steps have a value
    assertThat(present).as("%s: steps with a value", promql).isGreaterThan(mine.size() / 2);
  }

  static boolean same(double expected, double actual) {
    if (Double.isNaN(expected) || Double.isNaN(actual)) {
      return Double.isNaN(expected) && Double.isNaN(actual);
    }
    if (expected == actual) {
      return true; // also equal infinities
    }
    return Math.abs(expected - actual)
        <= RELATIVE_TOLERANCE * Math.max(Math.abs(expected), Math.abs(actual));
  }

  /** Prometheus {@code query_range}: at most one result series, timestamp ms → value. */
  private Map<Long, Double> queryRange(String promql, StepRange g) throws Exception {
    Function<Long, String> sec = ms -> new BigDecimal(ms).movePointLeft(3).toPlainString();
    HttpResponse<String> r = Requests.get(promBase.resolve("/api/v1/query_range?query="
        + Requests.enc(promql) + "&start=" + sec.apply(g.startMs()) + "&end="
        + sec.apply(g.endMs()) + "&step=" + sec.apply(g.stepMs())));
    assertThat(r.statusCode()).as("%s: %s", promql, r.body()).isEqualTo(200);
    JsonNode result = JSON.readTree(r.body()).get("data").get("result");
    assertThat(result.size()).as("%s: result series %s", promql, result).isEqualTo(1);
    Map<Long, Double> out = new HashMap<>();
    for (JsonNode pair : result.get(0).get("values")) {
      long ts = pair.get(0).decimalValue().movePointRight(3).longValueExact();
      out.put(ts, parseGoFloat(pair.get(1).asText()));
    }
    return out;
  }

  private static double parseGoFloat(String s) {
    switch (s) {
      case "+Inf": return Double.POSITIVE_INFINITY;
      case "-Inf": return Double.NEGATIVE_INFINITY;
      case "NaN": return Double.NaN;
      default: return Double.parseDouble(s);
    }
  }
}
