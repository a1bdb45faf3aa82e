package io.inferlens.simulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class ExpositionTest {

  private static final double CREATED = 1.7678305324471903e9;

  private static SimulationModel steppedModel(Scenario s, long steps) {
    SimulationModel m = new SimulationModel(s, 3600, 7, 2);
    m.advance(steps);
    return m;
  }

  @Test
  void vllmFamiliesHelpTypeAndLabelOrderEqualTheFixture() throws Exception {
    String fixture = Fixtures.read("vllm-0.13-v1.prom");
    String ours = Stack.VLLM_0_13.render(steppedModel(Scenario.PEAK_SATURATION, 6000),
        "Qwen/Qwen3-32B-FP8", CREATED);
    assertThat(Fixtures.metaLines(ours, "# TYPE "))
        .containsExactlyElementsOf(Fixtures.metaLines(fixture, "# TYPE "));
    assertThat(Fixtures.metaLines(ours, "# HELP "))
        .containsExactlyElementsOf(Fixtures.metaLines(fixture, "# HELP "));
    assertThat(Fixtures.labelShapes(ours)).isEqualTo(Fixtures.labelShapes(fixture));
    // same series (names and label values), in the same order
    assertThat(seriesKeys(ours)).containsExactlyElementsOf(seriesKeys(fixture));
  }

  @Test
  void histogramsHaveTheFixtureBucketBoundsAndAreConsistent() throws Exception {
    String fixture = Fixtures.read("vllm-0.13-v1.prom");
    String ours = Stack.VLLM_0_13.render(steppedModel(Scenario.HEALTHY, 3000), "m", CREATED);
    Map<String, List<String>> fixtureLes = bucketBounds(fixture);
    assertThat(fixtureLes).hasSize(5);
    assertThat(bucketBounds(ours)).isEqualTo(fixtureLes);
    assertThat(fixtureLes.get("vllm:time_to_first_token_seconds")).endsWith("2560.0", "+Inf");
    assertThat(fixtureLes.get("vllm:inter_token_latency_seconds")).endsWith("80.0", "+Inf");
    assertThat(fixtureLes.get("vllm:e2e_request_latency_seconds")).endsWith("7680.0", "+Inf");

    List<Fixtures.Sample> samples = Fixtures.samples(ours);
    for (String h : fixtureLes.keySet()) {
      for (String engine : new String[] {"0", "1"}) {
        List<Double> buckets = new ArrayList<>();
        double count = -1;
        double sum = -1;
        for (Fixtures.Sample s : samples) {
          if (!engine.equals(s.label("engine"))) {
            continue;
          }
          if (s.name().equals(h + "_bucket")) {
            buckets.add(s.value());
          } else if (s.name().equals(h + "_count")) {
            count = s.value();
          } else if (s.name().equals(h + "_sum")) {
            sum = s.value();
          }
        }
        assertThat(buckets).as(h).isSorted();
        assertThat(buckets.get(buckets.size() - 1)).as(h + " +Inf == _count").isEqualTo(count);
        assertThat(count).as(h + " has observations").isPositive();
        assertThat(sum).as(h + " sum").isPositive();
      }
    }
  }

  @Test
  void vllmCountersAreConsistentAndMonotoneAcrossSteps() {
    SimulationModel m = new SimulationModel(Scenario.KV_PRESSURE, 3600, 3, 2);
    Map<String, Double> previous = new HashMap<>();
    for (int i = 0; i < 12; i++) {
      m.advance(3000);
      List<Fixtures.Sample> samples = Fixtures.samples(Stack.VLLM_0_13.render(m, "m", CREATED));
      Map<String, Double> now = new HashMap<>();
      Map<String, Double> successByEngine = new TreeMap<>();
      Map<String, Double> e2eCount = new TreeMap<>();
      Map<String, Double> genTokens = new TreeMap<>();
      Map<String, Double> ttftCount = new TreeMap<>();
      Map<String, Double> itlCount = new TreeMap<>();
      for (Fixtures.Sample s : samples) {
        String n = s.name();
        if (n.endsWith("_total") || n.endsWith("_bucket") || n.endsWith("_count")
            || n.endsWith("_sum")) {
          now.put(n + s.labels(), s.value());
        }
        String e = s.label("engine");
        switch (n) {
          case "vllm:request_success_total" -> successByEngine.merge(e, s.value(), Double::sum);
          case "vllm:e2e_request_latency_seconds_count" -> e2eCount.put(e, s.value());
          case "vllm:generation_tokens_total" -> genTokens.put(e, s.value());
          case "vllm:time_to_first_token_seconds_count" -> ttftCount.put(e, s.value());
          case "vllm:inter_token_latency_seconds_count" -> itlCount.put(e, s.value());
          default -> { }
        }
      }
      // the fixture's invariants (README "Consistency guaranteed")
      assertThat(successByEngine).isEqualTo(e2eCount);
      for (String e : genTokens.keySet()) {
        assertThat(itlCount.get(e)).isEqualTo(genTokens.get(e) - ttftCount.get(e));
        assertThat(ttftCount.get(e)).isGreaterThanOrEqualTo(e2eCount.get(e));
      }
      for (Map.Entry<String, Double> en : previous.entrySet()) {
        assertThat(now.get(en.getKey())).as(en.getKey()).isGreaterThanOrEqualTo(en.getValue());
      }
      previous = now;
    }
    assertThat(previous.get("vllm:num_preemptions_total{engine=0, model_name=m}")).isPositive();
  }

  @Test
  void dcgmMatchesFixtureShapeWithOurHostname() throws Exception {
    String fixture = Fixtures.read("dcgm-exporter.prom");
    SimulationModel m = steppedModel(Scenario.PEAK_SATURATION, 20000);
    String ours = Exposition.dcgm(m, "sim-host-1");
    assertThat(Fixtures.metaLines(fixture, "# HELP "))
        .containsAll(Fixtures.metaLines(ours, "# HELP "));
    assertThat(Fixtures.metaLines(fixture, "# TYPE "))
        .containsAll(Fixtures.metaLines(ours, "# TYPE "));
    assertThat(Fixtures.labelShapes(fixture)).containsAll(Fixtures.labelShapes(ours));
    Map<String, Double> used = new HashMap<>();
    Map<String, Double> free = new HashMap<>();
    Map<String, Double> reserved = new HashMap<>();
    for (Fixtures.Sample s : Fixtures.samples(ours)) {
      assertThat(s.label("Hostname")).isEqualTo("sim-host-1");
      switch (s.name()) {
        case "DCGM_FI_DEV_GPU_UTIL" -> assertThat(s.value()).isBetween(95.0, 100.0);
        case "DCGM_FI_DEV_FB_USED" -> used.put(s.label("gpu"), s.value());
        case "DCGM_FI_DEV_FB_FREE" -> free.put(s.label("gpu"), s.value());
        case "DCGM_FI_DEV_FB_RESERVED" -> reserved.put(s.label("gpu"), s.value());
        default -> { }
      }
    }
    assertThat(used).containsOnlyKeys("0", "1");
    for (String g : used.keySet()) {
      assertThat(used.get(g) + free.get(g) + reserved.get(g)).isEqualTo(81559.0);
    }
    assertThat(ours).contains("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"")
        .containsPattern(" \\d+\\.\\d{6}\n");
  }

  @Test
  void kafkaMatchesFixtureShapeAndSums() throws Exception {
    String fixture = Fixtures.read("kafka-exporter.prom");
    SimulationModel m = steppedModel(Scenario.KAFKA_BACKLOG, 30000);
    String ours = Exposition.kafka(m);
    assertThat(Fixtures.metaLines(ours, "# TYPE "))
        .containsExactlyElementsOf(Fixtures.metaLines(fixture, "# TYPE "));
    assertThat(Fixtures.metaLines(ours, "# HELP "))
        .containsExactlyElementsOf(Fixtures.metaLines(fixture, "# HELP "));
    assertThat(Fixtures.labelShapes(ours)).isEqualTo(Fixtures.labelShapes(fixture));
    double lagSum = 0;
    double reported = -1;
    List<String> partitions = new ArrayList<>();
    for (Fixtures.Sample s : Fixtures.samples(ours)) {
      if (s.name().equals("kafka_consumergroup_lag")) {
        lagSum += s.value();
        partitions.add(s.label("partition"));
      } else if (s.name().equals("kafka_consumergroup_lag_sum")) {
        reported = s.value();
      }
    }
    assertThat(reported).isEqualTo(lagSum).isEqualTo((double) m.kafka().lagSum())
        .isGreaterThan(1000);
    // Go sorts label values as strings
    assertThat(partitions).startsWith("0", "1", "10", "11", "2");
    assertThat(ours).containsPattern("kafka_topic_partition_current_offset\\{partition=\"0\","
        + "topic=\"llm-requests\"} \\d\\.\\d+e\\+06\n");
  }

  @Test
  void sameSeedSameOutput() {
    String a = Stack.VLLM_0_13.render(steppedModel(Scenario.LONG_PROMPTS, 5000), "m", CREATED);
    String b = Stack.VLLM_0_13.render(steppedModel(Scenario.LONG_PROMPTS, 5000), "m", CREATED);
    assertThat(a).isEqualTo(b);
  }

  private static List<String> seriesKeys(String text) {
    List<String> out = new ArrayList<>();
    for (Fixtures.Sample s : Fixtures.samples(text)) {
      Map<String, String> l = new TreeMap<>(s.labels());
      l.remove("model_name");
      out.add(s.name() + l);
    }
    return out;
  }

  /** Histogram family → the {@code le} values of engine "0", in order. */
  private static Map<String, List<String>> bucketBounds(String text) {
    Map<String, List<String>> out = new TreeMap<>();
    for (String line : text.split("\n")) {
      if (line.startsWith("#") || !line.contains("_bucket{") || !line.contains("engine=\"0\"")) {
        continue;
      }
      String name = line.substring(0, line.indexOf("_bucket{"));
      int i = line.indexOf("le=\"") + 4;
      out.computeIfAbsent(name, k -> new ArrayList<>())
          .add(line.substring(i, line.indexOf('"', i)));
    }
    return out;
  }

}
