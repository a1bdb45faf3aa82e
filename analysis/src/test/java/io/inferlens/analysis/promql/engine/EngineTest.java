package io.inferlens.analysis.promql.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.inferlens.analysis.promql.StaleMarker;
import io.inferlens.analysis.promql.ast.ValueType;
import io.inferlens.analysis.promql.parse.Parser;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.StoreOptions;
import io.inferlens.storage.TimeSeriesStore;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine over a real store (RocksDB in a temp dir), with results worked out by hand from
 * Prometheus 2.42's rules; {@code PromqlOracleTest} in the api module compares against a real
 * Prometheus.
 *
 * <p>Data, every 15 s from {@link #T0} for 40 samples (i = 0..39): {@code g{job="a",instance="1"}}
 * = i and {@code g{job="b",instance="2"}} = 2i; counter {@code c{job="a",instance="1"}} = 10i,
 * reset to 0 at i = 20 (10(i - 20) after); {@code s{job="a"}} = i for i &lt; 10, then a stale
 * marker at i = 10; histogram {@code h_bucket{le=0.1|1|+Inf}} growing by 1, 3 and 4 per second.
 */
class EngineTest {

  static final long T0 = 1_767_830_400_000L;
  static final long STEP = 15_000;

  @TempDir static Path dir;
  static TimeSeriesStore store;
  static Engine engine;

  @BeforeAll
  static void load() throws Exception {
    store = TimeSeriesStore.open(StoreOptions.defaults(dir),
        Clock.fixed(Instant.ofEpochMilli(T0 + 3_600_000L), ZoneOffset.UTC));
    List<SeriesWrite> w = new ArrayList<>();
    w.add(series(LabelSet.of("__name__", "g", "job", "a", "instance", "1"), 40, i -> i));
    w.add(series(LabelSet.of("__name__", "g", "job", "b", "instance", "2"), 40, i -> 2.0 * i));
    w.add(series(LabelSet.of("__name__", "c", "job", "a", "instance", "1"), 40,
        i -> i < 20 ? 10.0 * i : 10.0 * (i - 20)));
    long[] ts = new long[11];
    long[] bits = new long[11];
    for (int i = 0; i < 11; i++) {
      ts[i] = T0 + i * STEP;
      bits[i] = i < 10 ? Double.doubleToRawLongBits(i) : StaleMarker.BITS;
    }
    w.add(new SeriesWrite(LabelSet.of("__name__", "s", "job", "a"), ts, bits, 11));
    String[] les = {"0.1", "1", "+Inf"};
    double[] perSecond = {1, 3, 4};
    for (int b = 0; b < 3; b++) {
      double r = perSecond[b];
      w.add(series(LabelSet.of("__name__", "h_bucket", "job", "a", "le", les[b]), 40,
          i -> r * 15 * i));
    }
    store.append(w);
    engine = new Engine(store.querier(), EngineOptions.DEFAULTS);
  }

  @AfterAll
  static void close() throws Exception {
    store.close();
  }

  interface Value {
    double at(int i);
  }

  static SeriesWrite series(LabelSet labels, int n, Value v) {
    long[] ts = new long[n];
    long[] bits = new long[n];
    for (int i = 0; i < n; i++) {
      ts[i] = T0 + i * STEP;
      bits[i] = Double.doubleToRawLongBits(v.at(i));
    }
    return new SeriesWrite(labels, ts, bits, n);
  }

  static long at(int i) {
    return T0 + i * STEP;
  }

  static QueryResult instant(String q, long t) {
    return engine.instant(Parser.parse(q), t);
  }

  /** @return label set text to value, for order-free comparison */
  static Map<String, Double> vector(String q, long t) {
    QueryResult r = instant(q, t);
    assertThat(r.type()).isEqualTo(ValueType.VECTOR);
    Map<String, Double> out = new TreeMap<>();
    for (Sample s : r.vector()) {
      assertThat(out.put(s.labels().toString(), s.value())).as("duplicate %s", s.labels())
          .isNull();
    }
    return out;
  }

  @Test
  void instantSelectorTakesNewestSampleInLookback() {
    assertThat(vector("g", at(5))).containsExactly(
        Map.entry("{__name__=\"g\", instance=\"1\", job=\"a\"}", 5.0),
        Map.entry("{__name__=\"g\", instance=\"2\", job=\"b\"}", 10.0));
    assertThat(vector("g{job=\"a\"}", at(39) + 300_000)).containsValue(39.0);
    assertThat(vector("g{job=\"a\"}", at(39) + 300_001)).isEmpty();
    assertThat(vector("g{job=\"a\"}", at(5) + 14_999)).containsValue(5.0);
  }

  @Test
  void staleMarkerEndsTheSeries() {
    assertThat(vector("s", at(9))).containsValue(9.0);
    assertThat(vector("s", at(10))).isEmpty();
    assertThat(vector("s", at(10) + 60_000)).isEmpty();
    assertThat(vector("count_over_time(s[5m])", at(12))).containsValue(10.0);
  }

  @Test
  void rateAndIncreaseExtrapolateAndHandleResets() {
    assertThat(vector("rate(c[1m])", at(8)).values().iterator().next())
        .isCloseTo(40.0 / 60, within(1e-12));
    assertThat(vector("increase(c[1m])", at(22))).containsValue(30.0);
    assertThat(vector("resets(c[5m])", at(25))).containsValue(1.0);
    assertThat(vector("irate(c[1m])", at(20))).containsValue(0.0);
    assertThat(vector("idelta(c[1m])", at(20))).containsValue(-190.0);
    assertThat(vector("delta(g{job=\"a\"}[1m])", at(8))).containsValue(4.0);
    // the name is dropped by range functions, except last_over_time
    assertThat(vector("rate(c[1m])", at(8))).containsOnlyKeys("{instance=\"1\", job=\"a\"}");
    assertThat(vector("last_over_time(c[1m])", at(8)))
        .containsOnlyKeys("{__name__=\"c\", instance=\"1\", job=\"a\"}");
  }

  @Test
  void offsetAndAtShiftTheReferenceTime() {
    assertThat(vector("g offset 1m", at(10)).values()).containsExactlyInAnyOrder(6.0, 12.0);
    assertThat(vector("g offset -1m", at(10)).values()).containsExactlyInAnyOrder(14.0, 28.0);
    QueryResult r = engine.range(Parser.parse("g{job=\"a\"} @ " + at(3) / 1000), at(0), at(8),
        STEP);
    assertThat(r.matrix()).hasSize(1);
    PointSeries s = r.matrix().get(0);
    assertThat(s.size()).isEqualTo(9);
    for (int i = 0; i < s.size(); i++) {
      assertThat(s.value(i)).isEqualTo(3.0);
    }
    QueryResult end = engine.range(Parser.parse("g{job=\"a\"} @ end()"), at(0), at(8), STEP);
    assertThat(end.matrix().get(0).value(0)).isEqualTo(8.0);
  }

  @Test
  void rangeQueryStepsAndScalarResults() {
    QueryResult r = engine.range(Parser.parse("g{job=\"a\"}"), at(0), at(4), STEP);
    assertThat(r.type()).isEqualTo(ValueType.MATRIX);
    PointSeries s = r.matrix().get(0);
    assertThat(s.size()).isEqualTo(5);
    assertThat(s.timestampMs(4)).isEqualTo(at(4));
    assertThat(s.value(4)).isEqualTo(4.0);
    QueryResult time = engine.range(Parser.parse("time()"), at(0), at(2), STEP);
    assertThat(time.matrix().get(0).labels().size()).isZero();
    assertThat(time.matrix().get(0).value(2)).isEqualTo(at(2) / 1000.0);
    QueryResult scalar = instant("scalar(sum(g)) * 2", at(5));
    assertThat(scalar.type()).isEqualTo(ValueType.SCALAR);
    assertThat(scalar.scalar()).isEqualTo(30.0);
    assertThatThrownBy(() -> engine.range(Parser.parse("g[1m]"), at(0), at(1), STEP))
        .isInstanceOf(QueryException.class)
        .extracting(e -> ((QueryException) e).kind()).isEqualTo(QueryException.Kind.BAD_DATA);
  }

  @Test
  void binaryOperatorsMatchAndDropNames() {
    assertThat(vector("g{job=\"a\"} + on(instance) g{job=\"b\"}", at(5))).isEmpty();
    assertThat(vector("g{job=\"a\"} + ignoring(job, instance) g{job=\"b\"}", at(5)))
        .containsExactly(Map.entry("{}", 15.0));
    assertThat(vector("g > 5", at(4))).containsOnlyKeys("{__name__=\"g\", instance=\"2\", job=\"b\"}");
    assertThat(vector("g > bool 5", at(4))).containsExactly(
        Map.entry("{instance=\"1\", job=\"a\"}", 0.0), Map.entry("{instance=\"2\", job=\"b\"}", 1.0));
    assertThat(vector("-g", at(2)).keySet()).allMatch(k -> !k.contains("__name__"));
    assertThat(vector("2 ^ g{job=\"a\"}", at(3))).containsValue(8.0);
    assertThat(vector("g{job=\"b\"} % 4", at(3))).containsValue(2.0);
    assertThat(vector("g and g{job=\"a\"}", at(3))).hasSize(1);
    assertThat(vector("g unless g{job=\"a\"}", at(3))).hasSize(1);
    assertThat(vector("vector(1) or g", at(3))).hasSize(3);
    assertThat(vector("g * on(job) group_left(instance) sum by (job) (g)", at(3)))
        .containsEntry("{job=\"a\"}", 9.0); // include labels missing on the "one" side go
  }

  @Test
  void matchingErrorsAreExecutionErrors() {
    assertThatThrownBy(() -> instant("g / ignoring(job, instance) g", at(3)))
        .isInstanceOf(QueryException.class).hasMessageContaining("many-to-many");
    assertThatThrownBy(() -> instant("rate({__name__=~\"g|c\"}[1m])", at(8)))
        .isInstanceOf(QueryException.class).hasMessageContaining("same labelset");
  }

  @Test
  void aggregations() {
    assertThat(vector("sum(g)", at(5))).containsExactly(Map.entry("{}", 15.0));
    assertThat(vector("sum by (job) (g)", at(5))).containsExactly(
        Map.entry("{job=\"a\"}", 5.0), Map.entry("{job=\"b\"}", 10.0));
    assertThat(vector("avg without (instance) (g)", at(5))).containsOnlyKeys(
        "{job=\"a\"}", "{job=\"b\"}");
    assertThat(vector("topk(1, g)", at(5))).containsOnlyKeys(
        "{__name__=\"g\", instance=\"2\", job=\"b\"}");
    assertThat(vector("bottomk(1, g)", at(5))).containsValue(5.0);
    assertThat(vector("quantile(0.5, g)", at(5))).containsValue(7.5);
    assertThat(vector("quantile(2, g)", at(5))).containsValue(Double.POSITIVE_INFINITY);
    assertThat(vector("count_values(\"v\", g)", at(5))).containsOnlyKeys("{v=\"10\"}", "{v=\"5\"}");
    assertThat(vector("stddev(g)", at(5))).containsValue(2.5);
    assertThat(vector("group by (job) (g)", at(5)).values()).containsOnly(1.0);
    assertThat(vector("count(g)", at(5))).containsValue(2.0);
  }

  @Test
  void functionsOfInstantVectors() {
    Map<String, Double> q = vector("histogram_quantile(0.5, rate(h_bucket[1m]))", at(8));
    assertThat(q).containsOnlyKeys("{job=\"a\"}");
    assertThat(q.get("{job=\"a\"}")).isCloseTo(0.55, within(1e-12));
    assertThat(vector("label_replace(g{job=\"a\"}, \"x\", \"$1-z\", \"job\", \"(.*)\")", at(1)))
        .containsOnlyKeys("{__name__=\"g\", instance=\"1\", job=\"a\", x=\"a-z\"}");
    assertThat(vector("label_join(g{job=\"a\"}, \"x\", \"/\", \"job\", \"instance\")", at(1)))
        .containsOnlyKeys("{__name__=\"g\", instance=\"1\", job=\"a\", x=\"a/1\"}");
    assertThat(vector("absent(nothing{job=\"q\"})", at(1)))
        .containsExactly(Map.entry("{job=\"q\"}", 1.0));
    assertThat(vector("absent(g)", at(1))).isEmpty();
    assertThat(vector("timestamp(g{job=\"a\"})", at(5) + 7_000)).containsValue(at(5) / 1000.0);
    assertThat(vector("clamp(g, 3, 6)", at(5)).values()).containsExactlyInAnyOrder(5.0, 6.0);
    assertThat(vector("round(g{job=\"a\"} / 3, 0.5)", at(5))).containsValue(1.5);
    assertThat(vector("hour(vector(7200))", at(1))).containsValue(2.0);
    QueryResult sorted = instant("sort_desc(g)", at(5));
    assertThat(sorted.vector().get(0).value()).isEqualTo(10.0);
  }

  @Test
  void subqueriesEvaluateOnTheirOwnGrid() {
    assertThat(vector("max_over_time(g[1m:15s])", at(10)).values())
        .containsExactlyInAnyOrder(10.0, 20.0);
    assertThat(vector("count_over_time(g{job=\"a\"}[1m:15s])", at(10))).containsValue(5.0);
    QueryResult top = instant("g{job=\"a\"}[1m:30s]", at(10));
    assertThat(top.type()).isEqualTo(ValueType.MATRIX);
    assertThat(top.matrix().get(0).size()).isEqualTo(3); // at(6), at(8), at(10)
  }

  @Test
  void absentOverTimeAndRangeSelectorsAtTheTop() {
    assertThat(vector("absent_over_time(nothing[5m])", at(5))).containsValue(1.0);
    assertThat(vector("absent_over_time(g[5m])", at(5))).isEmpty();
    QueryResult m = instant("g{job=\"a\"}[1m]", at(10));
    assertThat(m.matrix().get(0).size()).isEqualTo(5);
    assertThat(m.matrix().get(0).labels().metricName()).isEqualTo("g");
  }

  @Test
  void limitsNameThemselves() {
    Engine small = new Engine(store.querier(), new EngineOptions(20_000, 10, 60_000, 1, 60_000));
    assertThatThrownBy(() -> small.instant(Parser.parse("g[10m]"), at(39)))
        .isInstanceOf(QueryException.class).hasMessageContaining("--query.max-samples=10")
        .extracting(e -> ((QueryException) e).kind()).isEqualTo(QueryException.Kind.EXECUTION);
    assertThat(small.instant(Parser.parse("g{job=\"a\"}"), at(39)).vector()).hasSize(1);
    // A subquery's steps are points held: billions of them fail before anything is allocated.
    for (String q : new String[] {"max_over_time(vector(1)[30d:1ms])", "vector(1)[1y:1ms]",
        "max_over_time(vector(1)[1000d:1ms])"}) {
      assertThatThrownBy(() -> engine.instant(Parser.parse(q), at(39)))
          .as(q).isInstanceOf(QueryException.class).hasMessageContaining("--query.max-samples")
          .extracting(e -> ((QueryException) e).kind()).isEqualTo(QueryException.Kind.EXECUTION);
    }
    assertThat(vector("count_over_time(vector(1)[1h:1s])", at(39))).containsValue(3601.0);
  }
}
