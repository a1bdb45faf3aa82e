package io.inferlens.analysis.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.inferlens.analysis.diagnose.Cause;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The rule file's text: values YAML would read as something else come back as the same strings
 * (Jackson) and as the same label values and expanded annotations in Debian's
 * {@code promtool test rules}, which loads the file as Prometheus does and fires the rule on
 * given series; comments and empty groups are written as comments.
 */
class RulesYamlTest {

  static final Path PROMTOOL = Path.of("/usr/bin/promtool");
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @TempDir Path dir;

  /** Label values that plain YAML 1.1 would turn into booleans, numbers, nulls or structure. */
  static Map<String, String> trickyLabels() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("severity", "warning");
    m.put("job", "on");
    m.put("instance", "0.5");
    m.put("model_name", "a: b #c {{ d }} - [e]");
    m.put("zone", "~");
    m.put("inferlens_cause", "CAPACITY_EXHAUSTED");
    return m;
  }

  static RuleGroup group() {
    Map<String, String> labels = new LinkedHashMap<>();
    trickyLabels().forEach((k, v) -> labels.put(k, AlertText.literal(v)));
    String target = "on 0.5 a: b #c {{ d }} - [e]";
    return new RuleGroup("inferlens-on~0.5~a%3A%20b", List.of("a comment\nover two lines"),
        List.of(new AlertRule("CAPACITY_EXHAUSTED",
            "(\n  (probe{job=\"x\"} > 0.5)\n  or\n  (probe{job=\"y\"} > 2)\n)\nand on() "
                + "(waiting{job=\"x\"} >= 1)",
            "1m", labels, AlertText.annotations(
                AlertText.summary(Cause.CAPACITY_EXHAUSTED, target),
                AlertText.description(List.of("Latency breached: {{ x }}.", "Queue: 100 %."),
                    "1m"),
                AlertText.recommendations(Cause.CAPACITY_EXHAUSTED),
                AlertText.runbookUrl("http://il:9201", Cause.CAPACITY_EXHAUSTED,
                    "on~0.5~a%3A%20b")))));
  }

  @Test
  void trickyValuesReadBackAsWritten() throws Exception {
    String text = RulesYaml.render(List.of("header"), List.of(group(),
        new RuleGroup("inferlens-empty", List.of("no baseline yet"), List.of())));
    assertThat(text).startsWith("# header\ngroups:\n# inferlens-on~0.5~a%3A%20b: a comment\n"
        + "# over two lines\n- name: ");
    assertThat(text).contains("# inferlens-empty: no rules written\n"
        + "# inferlens-empty: no baseline yet\n");
    assertThat(text).contains("expr: |-\n      (\n        (probe{job=\"x\"} > 0.5)\n");
    JsonNode file = YAML.readTree(text);
    assertThat(file.get("groups")).hasSize(1);
    JsonNode rule = file.get("groups").get(0).get("rules").get(0);
    assertThat(rule.get("expr").asText()).isEqualTo(group().rules().get(0).expr());
    assertThat(rule.get("for").asText()).isEqualTo("1m");
    for (Map.Entry<String, String> e : group().rules().get(0).labels().entrySet()) {
      assertThat(rule.get("labels").get(e.getKey()).isTextual()).as(e.getKey()).isTrue();
      assertThat(rule.get("labels").get(e.getKey()).asText()).isEqualTo(e.getValue());
    }
    assertThat(RulesYaml.render(List.of(), List.of())).isEqualTo("groups: []\n");
  }

  @Test
  void literalTextSurvivesTemplating() {
    assertThat(AlertText.literal("a {{ b }} c")).isEqualTo("a {{ \"{{\" }} b {{ \"}}\" }} c");
    assertThat(AlertText.literal("{ x } {{{")).isEqualTo("{ x } {{ \"{{\" }}{");
    assertThat(AlertText.recommendations(Cause.CONCURRENCY_LIMIT))
        .isEqualTo(String.join("\n", Cause.CONCURRENCY_LIMIT.recommendations()));
  }

  /**
   * promtool evaluates the rule on series that breach and checks the alert's labels and
   * expanded annotations: every escaped value comes out as the plain text.
   */
  @Test
  void promtoolFiresTheRuleWithTheLiteralLabelsAndAnnotations() throws Exception {
    if (!Files.isExecutable(PROMTOOL)) {
      if ("true".equals(System.getenv("CI"))) {
        throw new AssertionError(PROMTOOL + " is missing: .ci/run must install prometheus");
      }
      Assumptions.abort("skipped: " + PROMTOOL + " not found (apt-get install prometheus)");
    }
    Path rules = dir.resolve("rules.yml");
    Files.writeString(rules, RulesYaml.render(List.of("test"), List.of(group())));
    Map<String, Object> labels = new LinkedHashMap<>(trickyLabels());
    labels.put("alertname", "CAPACITY_EXHAUSTED");
    Map<String, Object> annotations = new LinkedHashMap<>();
    annotations.put("summary", "Capacity exhausted on on 0.5 a: b #c {{ d }} - [e]: P95 latency"
        + " 3s above its threshold while requests queue and the GPU or KV cache is saturated.");
    annotations.put("description", "Latency breached: {{ x }}.\nQueue: 100 %.\nAll held for 1m.");
    annotations.put("recommendations", String.join("\n",
        Cause.CAPACITY_EXHAUSTED.recommendations()));
    annotations.put("runbook_url",
        "http://il:9201/#/incidents?cause=CAPACITY_EXHAUSTED&target=on~0.5~a%253A%2520b");
    Map<String, Object> alert = new LinkedHashMap<>();
    alert.put("exp_labels", labels);
    alert.put("exp_annotations", annotations);
    // probe{job="y"} breaches (3 > 2), so the rule's value is 3: humanizeDuration → "3s".
    Map<String, Object> test = Map.of(
        "interval", "15s",
        "input_series", List.of(
            Map.of("series", "probe{job=\"x\"}", "values", "0.1x20"),
            Map.of("series", "probe{job=\"y\"}", "values", "3x20"),
            Map.of("series", "waiting{job=\"x\"}", "values", "4x20")),
        "alert_rule_test", List.of(
            Map.of("eval_time", "30s", "alertname", "CAPACITY_EXHAUSTED", "exp_alerts",
                List.of()),
            Map.of("eval_time", "3m", "alertname", "CAPACITY_EXHAUSTED", "exp_alerts",
                List.of(alert))));
    Path tests = dir.resolve("tests.yml");
    YAML.writeValue(tests.toFile(), Map.of("rule_files", List.of(rules.toString()),
        "evaluation_interval", "15s", "tests", List.of(test)));
    Process p = new ProcessBuilder(PROMTOOL.toString(), "test", "rules", tests.toString())
        .redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("promtool test rules:\n%s\nrules:\n%s", out,
        Files.readString(rules)).isZero();
  }
}
