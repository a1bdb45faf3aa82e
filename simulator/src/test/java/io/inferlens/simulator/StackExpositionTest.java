package io.inferlens.simulator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every {@link Stack}'s exposition against its fixture ({@code fixtures/README.md}): the same
 * families, HELP/TYPE lines, series, label order, bucket bounds and blank lines, line by line;
 * and the fixtures' consistency rules on what the model produced.
 */
class StackExpositionTest {

  private static final double CREATED = 1.7678305324471903e9;

  /** The fixture of a stack, the model name it serves, and its engine count. */
  private record Fixture(String file, String modelName, int engines) {}

  private static final Map<Stack, Fixture> FIXTURES = new LinkedHashMap<>();

  static {
    FIXTURES.put(Stack.VLLM_0_6, new Fixture("vllm-0.6-v0.prom", "Qwen/Qwen2.5-32B-Instruct", 1));
    FIXTURES.put(Stack.VLLM_0_10, new Fixture("vllm-0.10-v1.prom", "Qwen/Qwen3-32B-FP8", 1));
    FIXTURES.put(Stack.VLLM_0_13, new Fixture("vllm-0.13-v1.prom", "Qwen/Qwen3-32B-FP8", 2));
    FIXTURES.put(Stack.SGLANG, new Fixture("sglang.prom", "Qwen/Qwen3-8B", 1));
    FIXTURES.put(Stack.TGI, new Fixture("tgi.prom", "unused", 1));
  }

  private static SimulationModel model(Scenario s, int engines, long steps) {
    SimulationModel m = new SimulationModel(s, 3600, 5, engines);
    m.advance(steps);
    return m;
  }

  /**
   * The fixture's shape without its values: {@code # HELP}/{@code # TYPE} lines and blank lines
   * as they are, every sample line with its value replaced by {@code V}, the descriptive header
   * comments dropped, and the cache-size label value (a property of the GPU) normalised.
   */
  private static List<String> skeleton(String text) {
    List<String> out = new ArrayList<>();
    for (String line : text.split("\n", -1)) {
      if (line.startsWith("#") && !line.startsWith("# HELP ") && !line.startsWith("# TYPE ")) {
        continue;
      }
      if (!line.isEmpty() && !line.startsWith("#")) {
        line = line.substring(0, line.lastIndexOf(' ')) + " V";
        line = line.replaceAll("num_gpu_blocks=\"\\d+\"", "num_gpu_blocks=\"N\"");
      }
      out.add(line);
    }
    return out;
  }

  @ParameterizedTest
  @EnumSource(Stack.class)
  void exposesExactlyTheFixturesFamiliesSeriesAndLayout(Stack stack) throws Exception {
    Fixture f = FIXTURES.get(stack);
    String fixture = Fixtures.read(f.file());
    String ours = stack.render(model(Scenario.KV_PRESSURE, f.engines(), 20_000), f.modelName(),
        CREATED);
    assertThat(Fixtures.metaLines(ours, "# TYPE "))
        .containsExactlyElementsOf(Fixtures.metaLines(fixture, "# TYPE "));
    assertThat(Fixtures.metaLines(ours, "# HELP "))
        .containsExactlyElementsOf(Fixtures.metaLines(fixture, "# HELP "));
    assertThat(Fixtures.labelShapes(ours)).isEqualTo(Fixtures.labelShapes(fixture));
    assertThat(skeleton(ours)).containsExactlyElementsOf(skeleton(fixture));
  }

  @ParameterizedTest
  @EnumSource(Stack.class)
  void histogramsAreCumulativeWithInfEqualToCount(Stack stack) {
    String ours = stack.render(model(Scenario.PEAK_SATURATION, stack.defaultEngines(), 12_000),
        "m", CREATED);
    Map<String, List<Double>> buckets = new LinkedHashMap<>();
    Map<String, Double> counts = new HashMap<>();
    for (Fixtures.Sample s : Fixtures.samples(ours)) {
      Map<String, String> l = new TreeMap<>(s.labels());
      l.remove("le");
      if (s.name().endsWith("_bucket")) {
        buckets.computeIfAbsent(s.name().replace("_bucket", "") + l, k -> new ArrayList<>())
            .add(s.value());
      } else if (s.name().endsWith("_count")) {
        counts.put(s.name().replace("_count", "") + l, s.value());
      }
    }
    assertThat(buckets).isNotEmpty();
    for (Map.Entry<String, List<Double>> e : buckets.entrySet()) {
      List<Double> b = e.getValue();
      assertThat(b).as(e.getKey()).isSorted();
      assertThat(b.get(b.size() - 1)).as(e.getKey() + " +Inf == _count")
          .isEqualTo(counts.get(e.getKey()));
    }
  }

  @ParameterizedTest
  @EnumSource(Stack.class)
  void countersNeverDecreaseAcrossScrapes(Stack stack) {
    SimulationModel m = new SimulationModel(Scenario.KV_PRESSURE, 3600, 3, stack.defaultEngines());
    Map<String, Double> previous = new HashMap<>();
    for (int i = 0; i < 12; i++) {
      m.advance(3000);
      Map<String, Double> now = new HashMap<>();
      for (Fixtures.Sample s : Fixtures.samples(stack.render(m, "m", CREATED))) {
        String n = s.name();
        boolean cumulative = n.endsWith("_total") || n.endsWith("_bucket") || n.endsWith("_count")
            || n.endsWith("_sum") || stack == Stack.TGI && (n.equals("tgi_request_count")
            || n.equals("tgi_request_success") || n.startsWith("tgi_batch_inference_")
            || n.equals("tgi_request_failure") || n.equals("tgi_batch_concat"));
        if (cumulative) {
          now.put(n + s.labels(), s.value());
        }
      }
      for (Map.Entry<String, Double> en : previous.entrySet()) {
        assertThat(now.get(en.getKey())).as(en.getKey()).isGreaterThanOrEqualTo(en.getValue());
      }
      previous = now;
    }
    assertThat(previous).isNotEmpty();
  }

  /** The gauges and counters the analysis reads carry the model's state, on every stack. */
  @Test
  void queueKvAndPreemptionSeriesCarryTheModelState() {
    SimulationModel m = model(Scenario.KV_PRESSURE, 1, 30_000);
    SimulationModel.Engine e = m.engines().get(0);
    assertThat(e.preemptions()).isPositive();
    assertThat(e.waiting()).isPositive();
    Map<Stack, String[]> names = new LinkedHashMap<>();
    names.put(Stack.VLLM_0_6, new String[] {"vllm:num_requests_waiting",
        "vllm:gpu_cache_usage_perc", "vllm:num_preemptions_total"});
    names.put(Stack.VLLM_0_10, new String[] {"vllm:num_requests_waiting",
        "vllm:kv_cache_usage_perc", "vllm:num_preemptions_total"});
    names.put(Stack.VLLM_0_13, new String[] {"vllm:num_requests_waiting",
        "vllm:kv_cache_usage_perc", "vllm:num_preemptions_total"});
    names.put(Stack.SGLANG, new String[] {"sglang:num_queue_reqs", "sglang:token_usage", null});
    names.put(Stack.TGI, new String[] {"tgi_queue_size", null, null});
    for (Map.Entry<Stack, String[]> n : names.entrySet()) {
      Map<String, Double> v = new HashMap<>();
      for (Fixtures.Sample s : Fixtures.samples(n.getKey().render(m, "m", CREATED))) {
        v.put(s.name(), s.value());
      }
      String[] w = n.getValue();
      assertThat(v.get(w[0])).as(n.getKey() + " " + w[0]).isEqualTo((double) e.waiting());
      if (w[1] != null) {
        assertThat(v.get(w[1])).as(n.getKey() + " " + w[1]).isEqualTo(e.kvUsage());
      }
      if (w[2] != null) {
        assertThat(v.get(w[2])).as(n.getKey() + " " + w[2]).isEqualTo((double) e.preemptions());
      }
    }
  }

  @Test
  void vllm010DeprecatedAliasesEqualTheirReplacements() {
    String text = Stack.VLLM_0_10.render(model(Scenario.KV_PRESSURE, 1, 20_000), "m", CREATED);
    Map<String, Double> v = new HashMap<>();
    for (Fixtures.Sample s : Fixtures.samples(text)) {
      v.put(s.name() + s.labels(), s.value());
    }
    Map<String, String> aliases = Map.of(
        "vllm:gpu_cache_usage_perc", "vllm:kv_cache_usage_perc",
        "vllm:gpu_prefix_cache_queries_total", "vllm:prefix_cache_queries_total",
        "vllm:gpu_prefix_cache_hits_total", "vllm:prefix_cache_hits_total",
        "vllm:time_per_output_token_seconds_count", "vllm:inter_token_latency_seconds_count",
        "vllm:time_per_output_token_seconds_sum", "vllm:inter_token_latency_seconds_sum");
    int compared = 0;
    for (Map.Entry<String, Double> en : v.entrySet()) {
      for (Map.Entry<String, String> a : aliases.entrySet()) {
        if (en.getKey().startsWith(a.getKey() + "{")) {
          String repl = a.getValue() + en.getKey().substring(a.getKey().length());
          assertThat(en.getValue()).as(en.getKey()).isEqualTo(v.get(repl));
          compared++;
        }
      }
    }
    assertThat(compared).isEqualTo(aliases.size());
  }

  @Test
  void vllm013LabelsEveryDataParallelEngine() {
    String text = Stack.VLLM_0_13.render(model(Scenario.HEALTHY, 4, 3000), "m", CREATED);
    Map<String, List<String>> engines = new TreeMap<>();
    for (Fixtures.Sample s : Fixtures.samples(text)) {
      if (s.name().equals("vllm:num_requests_running")
          || s.name().equals("vllm:e2e_request_latency_seconds_count")) {
        engines.computeIfAbsent(s.name(), k -> new ArrayList<>()).add(s.label("engine"));
      }
    }
    assertThat(engines).hasSize(2);
    engines.values().forEach(l -> assertThat(l).containsExactly("0", "1", "2", "3"));
  }

  @Test
  void stacksWithoutAnEngineLabelRefuseSeveralEngines() {
    SimulationModel two = model(Scenario.HEALTHY, 2, 10);
    for (Stack s : new Stack[] {Stack.VLLM_0_6, Stack.SGLANG, Stack.TGI}) {
      assertThatThrownBy(() -> s.render(two, "m", CREATED))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(s.id())
          .hasMessageContaining("at most 1");
    }
  }

  @Test
  void tgiWritesNumbersAsRustDoes() {
    String text = Stack.TGI.render(model(Scenario.PEAK_SATURATION, 1, 12_000), "m", CREATED);
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String v = line.substring(line.lastIndexOf(' ') + 1);
      assertThat(v).as(line).matches("-?(0|[1-9][0-9]*)(\\.[0-9]*[1-9])?");
    }
    assertThat(text).contains("tgi_request_duration_bucket{le=\"0.00015000000000000001\"} ")
        .contains("tgi_request_input_length_bucket{le=\"8000\"} ")
        .doesNotContain("model_name");
  }

  @Test
  void stackNamesResolveAndUnknownOnesNameTheOption() {
    for (Stack s : Stack.values()) {
      assertThat(Stack.byId(s.id().toUpperCase(java.util.Locale.ROOT))).isSameAs(s);
    }
    assertThatThrownBy(() -> Stack.byId("vllm-0.1")).hasMessageContaining("--stack")
        .hasMessageContaining("vllm-0.6").hasMessageContaining("tgi");
  }

  @Test
  void leadInHoldsTheScenarioAtItsStart() {
    SimulationModel m = new SimulationModel(Scenario.PEAK_SATURATION, 600, 1200, 1, 1);
    m.advance(12_000 - 1);
    assertThat(m.fraction()).isZero();
    assertThat(m.scenarioSeconds()).isZero();
    m.advance(3001);
    assertThat(m.scenarioSeconds()).isCloseTo(300, org.assertj.core.data.Offset.offset(1e-6));
    assertThat(m.fraction()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
  }
}
