package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferlens.api.GrafanaQueryRules.Selection;
import io.inferlens.api.GrafanaQueryRules.Timing;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Grafana rules {@link GrafanaReplayTest} replays with, each expected value worked out by
 * hand from the Grafana sources cited on {@link GrafanaQueryRules}.
 */
class GrafanaQueryRulesTest {

  @Test
  void stepAndRateIntervalOfA1000PxPanelWithA15sScrape() {
    // 1 h: 3.6 s per point rounds to 5 s, below the 15 s scrape: step 15 s, rate max(30, 60) s.
    assertThat(GrafanaQueryRules.timing(3_600_000, 1000, 15_000))
        .isEqualTo(new Timing(15_000, 15_000, 60_000));
    // 6 h: 21.6 s rounds to 20 s: step 20 s, rate max(35, 60) s.
    assertThat(GrafanaQueryRules.timing(6 * 3_600_000, 1000, 15_000))
        .isEqualTo(new Timing(20_000, 20_000, 60_000));
    // 24 h: 86.4 s rounds to 1 m: step 60 s, rate 60 + 15 s.
    assertThat(GrafanaQueryRules.timing(24 * 3_600_000, 1000, 15_000))
        .isEqualTo(new Timing(60_000, 60_000, 75_000));
    // 30 d at 1000 px: 2592 s rounds to 30 m; the safe interval (235.6 s → 5 m) is smaller.
    assertThat(GrafanaQueryRules.timing(30L * 86_400_000, 1000, 15_000).stepMs())
        .isEqualTo(1_800_000);
    // 30 d at 100000 points: 25.9 s → 30 s; the 11000-point limit gives 235.6 s → 5 m.
    assertThat(GrafanaQueryRules.timing(30L * 86_400_000, 100_000, 15_000).stepMs())
        .isEqualTo(300_000);
  }

  @Test
  void durationsAsGoAndGrafanaWriteThem() {
    assertThat(GrafanaQueryRules.goDuration(60_000)).isEqualTo("1m0s");
    assertThat(GrafanaQueryRules.goDuration(75_000)).isEqualTo("1m15s");
    assertThat(GrafanaQueryRules.goDuration(45_000)).isEqualTo("45s");
    assertThat(GrafanaQueryRules.goDuration(3_600_000)).isEqualTo("1h0m0s");
    assertThat(GrafanaQueryRules.goDuration(90_500)).isEqualTo("1m30.5s");
    assertThat(GrafanaQueryRules.goDuration(500)).isEqualTo("500ms");
    assertThat(GrafanaQueryRules.formatInterval(15_000)).isEqualTo("15s");
    assertThat(GrafanaQueryRules.formatInterval(90_000)).isEqualTo("1m");
    assertThat(GrafanaQueryRules.formatInterval(86_400_000)).isEqualTo("1d");
    assertThat(GrafanaQueryRules.seconds(1_700_000_000_000L)).isEqualTo("1700000000");
    assertThat(GrafanaQueryRules.seconds(1_700_000_000_120L)).isEqualTo("1700000000.12");
    assertThat(GrafanaQueryRules.seconds(15_000)).isEqualTo("15");
  }

  @Test
  void variablesAreRegexEscapedAndJoinedWhenMultiOrAll() {
    Map<String, Selection> vars = new LinkedHashMap<>();
    vars.put("instance", new Selection(List.of("10.0.0.2:8000", "10.0.0.3:8000"), true, true));
    vars.put("model_name", new Selection(List.of("meta-llama/Llama-3.1-8B"), true, true));
    vars.put("job", new Selection(List.of("a\\b'c.d"), false, false));
    assertThat(GrafanaQueryRules.interpolate(
        "x{instance=~\"$instance\", model_name=~\"${model_name}\", job=\"[[job]]\"}[$__rate_interval]",
        vars)).isEqualTo("x{instance=~\"(10\\\\.0\\\\.0\\\\.2:8000|10\\\\.0\\\\.0\\\\.3:8000)\","
            + " model_name=~\"meta-llama/Llama-3\\\\.1-8B\", job=\"a\\\\b\\\\'c.d\"}"
            + "[$__rate_interval]");
    assertThat(GrafanaQueryRules.regexEscape("a\\(b)")).isEqualTo("a\\\\\\\\\\\\(b\\\\)");
  }

  @Test
  void builtInsReplacedLongestNameFirst() {
    Timing t = new Timing(15_000, 15_000, 60_000);
    assertThat(GrafanaQueryRules.interpolateBuiltIns(
        "rate(x[$__rate_interval]) $__interval $__interval_ms ${__range} $__range_s", t,
        3_600_000)).isEqualTo("rate(x[1m0s]) 15s 15000 3600s 3600");
  }

  @Test
  void labelValuesQueriesBecomeLabelValuesRequests() {
    assertThat(GrafanaQueryRules.labelValues(
        "label_values(up{job=~\"a\", instance=~\"b\"}, instance)").request(1_000_500, 2_000_000))
        .isEqualTo("/api/v1/label/instance/values?match%5B%5D=up%7Bjob%3D~%22a%22%2C%20instance"
            + "%3D~%22b%22%7D&start=1001&end=2000");
    assertThat(GrafanaQueryRules.labelValues("label_values(model_name)").request(0, 999))
        .isEqualTo("/api/v1/label/model_name/values?start=0&end=1");
    assertThatThrownBy(() -> GrafanaQueryRules.labelValues("query_result(up)"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(GrafanaQueryRules.applyRegex("/^(.*?)(:[0-9]+)?$/", "10.0.0.2:8000"))
        .isEqualTo("10.0.0.2");
    assertThat(GrafanaQueryRules.applyRegex("/^gpu/", "cpu0")).isNull();
    assertThat(GrafanaQueryRules.applyRegex("", "x")).isEqualTo("x");
  }

  @Test
  void formBodiesAsGoEncodesThem() {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("query", "sum(rate(vllm:x{a=~\"b|c\"}[1m0s]))");
    form.put("start", "1");
    form.put("end", "2");
    form.put("step", "15");
    assertThat(GrafanaQueryRules.form(form)).isEqualTo("end=2&query=sum%28rate%28vllm%3Ax%7Ba%3D"
        + "~%22b%7Cc%22%7D%5B1m0s%5D%29%29&start=1&step=15");
    assertThat(GrafanaQueryRules.queryEscape("1+1 é")).isEqualTo("1%2B1+%C3%A9");
    assertThat(GrafanaQueryRules.alignDown(1_700_000_007_000L, 15_000))
        .isEqualTo(1_699_999_995_000L);
  }
}
