package io.inferlens.analysis.target;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TargetTest {

  @Test
  void idIsUrlSafeStableAndUnambiguous() {
    Target t = Target.of("job", "vllm", "instance", "vllm-a:8000", "model_name", "Qwen/Qwen3-32B-FP8");
    assertThat(t.id()).isEqualTo("vllm~vllm-a%3A8000~Qwen%2FQwen3-32B-FP8");
    assertThat(Target.of("job", "a~b", "instance", "", "model_name", "ü").id())
        .isEqualTo("a%7Eb~~%C3%BC")
        .matches("[A-Za-z0-9._~%-]*");
    assertThat(Target.of("job", "a", "instance", "b~c").id())
        .isNotEqualTo(Target.of("job", "a~b", "instance", "c").id());
  }

  @Test
  void labelsKeepGroupingOrderAndWithoutDropsOne() {
    Target t = Target.of("job", "j", "instance", "i:1", "model_name", "m");
    assertThat(t.labels().keySet()).containsExactly("job", "instance", "model_name");
    assertThat(t.without("model_name").labels().keySet()).containsExactly("job", "instance");
    assertThat(t.get("absent")).isEmpty();
    assertThat(t.host("instance")).isEqualTo("i");
  }

  @ParameterizedTest
  @CsvSource({
      "vllm-a:8000, vllm-a",
      "10.0.0.7:9400, 10.0.0.7",
      "10.0.0.7, 10.0.0.7",
      "'[fd00::1]:8000', fd00::1",
      "fd00::1, fd00::1",
      "host:http, host:http",
      "'', ''",
  })
  void hostOfStripsThePort(String instance, String host) {
    assertThat(TargetConfig.hostOf(instance)).isEqualTo(host);
  }

  @Test
  void hostRegexMatchesPortsAndBracketsButNotOtherHosts() {
    String re = SignalResolver.hostRegex("vllm-a.svc");
    assertThat("vllm-a.svc:9400").matches(re);
    assertThat("vllm-a.svc").matches(re);
    assertThat("[vllm-a.svc]:1").matches(re);
    assertThat("vllm-aXsvc:9400").doesNotMatch(re);
    assertThat("vllm-a.svc2:9400").doesNotMatch(re);
  }

  @Test
  void configRejectsEmptyOrDuplicateGroupingLabels() {
    assertThatThrownBy(() -> TargetConfig.defaults().withGroupingLabels(List.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TargetConfig.defaults().withGroupingLabels(List.of("job", "job")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("duplicate");
  }
}
