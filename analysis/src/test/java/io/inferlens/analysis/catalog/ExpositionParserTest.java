package io.inferlens.analysis.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferlens.analysis.catalog.ExpositionParser.Sample;
import io.inferlens.analysis.catalog.ExpositionParser.Type;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExpositionParserTest {

  @Test
  void parsesLabelsEscapesAndNumberFormats() {
    String text = String.join("\n",
        "# HELP process_virtual_memory_bytes Virtual memory size in bytes.",
        "# TYPE process_virtual_memory_bytes gauge",
        "process_virtual_memory_bytes 4.1237590784e+010",
        "",
        "# TYPE h histogram",
        "h_bucket{le=\"+Inf\",path=\"a\\\\b \\\"q\\\" \\nx\"} 7",
        "h_sum{path=\"a\"} NaN",
        "h_count 1.912345e+06",
        "g{a=\"1\" , b=\"x,y=z\"} -Inf",
        "c_total{x=\"\"} +Inf 1700000000000",
        "untyped_thing 0.00015000000000000001");
    List<Sample> s = ExpositionParser.parse(text);
    assertThat(s).hasSize(7);
    assertThat(s.get(0).value()).isEqualTo(4.1237590784e10);
    assertThat(s.get(0).type()).isEqualTo(Type.GAUGE);
    assertThat(s.get(1).labels()).containsExactly(
        Map.entry("le", "+Inf"), Map.entry("path", "a\\b \"q\" \nx"));
    assertThat(s.get(1).type()).isEqualTo(Type.HISTOGRAM);
    assertThat(s.get(2).value()).isNaN();
    assertThat(s.get(3).value()).isEqualTo(1_912_345.0);
    assertThat(s.get(4).labels()).containsEntry("b", "x,y=z");
    assertThat(s.get(4).value()).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(s.get(5).value()).isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(s.get(5).labels()).containsEntry("x", "");
    assertThat(s.get(6).type()).isEqualTo(Type.UNTYPED);
  }

  @Test
  void unreadableLineNamesItsNumber() {
    assertThatThrownBy(() -> ExpositionParser.parse("ok 1\nbad{a=1} 2\n"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("line 2:");
  }
}
