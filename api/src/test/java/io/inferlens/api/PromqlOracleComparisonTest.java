package io.inferlens.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferlens.api.PromqlOracleCorpus.Case;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The oracle's own rules, without servers: answer parsing, the compliance tester's value and
 * label rules, result order, error matching ({@link PromqlOracleAnswer}, {@link
 * PromqlOracleComparison}) and the corpus format ({@link PromqlOracleCorpus}). A run of
 * {@link PromqlOracleTest} against a second Prometheus only ever takes the "equal" paths; these
 * cases make sure that a different answer is caught.
 */
class PromqlOracleComparisonTest {

  static final long BASE = 1_700_000_000_000L;

  static PromqlOracleAnswer ok(String body) {
    return PromqlOracleAnswer.parse(200, body);
  }

  static String matrix(String... series) {
    return "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":["
        + String.join(",", series) + "]}}";
  }

  static String vector(String... series) {
    return "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":["
        + String.join(",", series) + "]}}";
  }

  static List<String> diff(PromqlOracleAnswer reference, PromqlOracleAnswer tested) {
    return PromqlOracleComparison.differences(reference, tested, false, BASE);
  }

  @Test
  void valuesAreEqualWithinTheTestersFractionAndNanEqualsNan() {
    assertThat(PromqlOracleComparison.sameValue(1, 1 + 0.9e-5)).isTrue();
    assertThat(PromqlOracleComparison.sameValue(1, 1 + 1.1e-5)).isFalse();
    assertThat(PromqlOracleComparison.sameValue(-1e9, -1e9 - 9_000)).isTrue();
    // margin 0: a zero is only equal to zero
    assertThat(PromqlOracleComparison.sameValue(0, 1e-300)).isFalse();
    assertThat(PromqlOracleComparison.sameValue(0.0, -0.0)).isTrue();
    assertThat(PromqlOracleComparison.sameValue(Double.NaN, Double.NaN)).isTrue();
    assertThat(PromqlOracleComparison.sameValue(Double.NaN, 1)).isFalse();
    assertThat(PromqlOracleComparison.sameValue(Double.POSITIVE_INFINITY,
        Double.POSITIVE_INFINITY)).isTrue();
    assertThat(PromqlOracleComparison.sameValue(Double.POSITIVE_INFINITY, Double.MAX_VALUE))
        .isFalse();
    assertThat(PromqlOracleComparison.sameValue(Double.NEGATIVE_INFINITY,
        Double.POSITIVE_INFINITY)).isFalse();
  }

  @Test
  void matrixSeriesOrderIsIgnoredButLabelsTimestampsAndValuesCount() {
    String a = "{\"metric\":{\"job\":\"a\"},\"values\":[[1700000000,\"1\"],[1700000060,\"NaN\"]]}";
    String b = "{\"metric\":{\"job\":\"b\"},\"values\":[[1700000000,\"+Inf\"]]}";
    assertThat(diff(ok(matrix(a, b)), ok(matrix(b, a)))).isEmpty();

    String otherLabel = b.replace("\"b\"", "\"c\"");
    assertThat(diff(ok(matrix(a, b)), ok(matrix(a, otherLabel))))
        .containsExactly("missing series {job=\"b\"}", "extra series {job=\"c\"}");

    String extraLabel = b.replace("{\"job\":\"b\"}", "{\"job\":\"b\",\"__name__\":\"x\"}");
    assertThat(diff(ok(matrix(a, b)), ok(matrix(a, extraLabel)))).hasSize(2);

    String missingPoint = "{\"metric\":{\"job\":\"a\"},\"values\":[[1700000000,\"1\"]]}";
    assertThat(diff(ok(matrix(a)), ok(matrix(missingPoint))))
        .containsExactly("{job=\"a\"} has no sample at +1m, Prometheus's is NaN");

    String shifted = a.replace("1700000060", "1700000060.5");
    assertThat(diff(ok(matrix(a)), ok(matrix(shifted)))).hasSize(2);

    String otherValue = a.replace("\"1\"]", "\"1.0001\"]");
    assertThat(diff(ok(matrix(a)), ok(matrix(otherValue))))
        .containsExactly("{job=\"a\"} at +0s: 1.0001, Prometheus's is 1");

    String duplicate = matrix(a, a);
    assertThat(diff(ok(matrix(a)), ok(duplicate))).contains("the label set {job=\"a\"} comes twice");
  }

  @Test
  void typesMustMatchAndScalarsAndStringsCompareTheirValue() {
    PromqlOracleAnswer scalar = ok("{\"status\":\"success\",\"data\":{\"resultType\":\"scalar\","
        + "\"result\":[1700000000,\"2\"]}}");
    PromqlOracleAnswer vector = ok(vector("{\"metric\":{},\"value\":[1700000000,\"2\"]}"));
    assertThat(diff(scalar, scalar)).isEmpty();
    assertThat(diff(scalar, vector)).containsExactly("resultType vector, Prometheus's is scalar");

    PromqlOracleAnswer text = ok("{\"status\":\"success\",\"data\":{\"resultType\":\"string\","
        + "\"result\":[1700000000,\"a b\"]}}");
    PromqlOracleAnswer otherText = ok("{\"status\":\"success\",\"data\":{\"resultType\":"
        + "\"string\",\"result\":[1700000000,\"a  b\"]}}");
    assertThat(diff(text, text)).isEmpty();
    assertThat(diff(text, otherText)).hasSize(1);
  }

  @Test
  void rejectionsMustCarryPrometheussErrorType() {
    PromqlOracleAnswer badData = PromqlOracleAnswer.parse(400,
        "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"parse error\"}");
    PromqlOracleAnswer execution = PromqlOracleAnswer.parse(422,
        "{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"many-to-many\"}");
    PromqlOracleAnswer success = ok(vector());
    assertThat(diff(badData, PromqlOracleAnswer.parse(400,
        "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"other words\"}"))).isEmpty();
    assertThat(diff(badData, execution))
        .containsExactly("errorType execution, Prometheus's is bad_data");
    assertThat(diff(badData, success)).hasSize(1);
    assertThat(diff(success, execution)).hasSize(1);
  }

  @Test
  void bodiesThatAreNoPrometheusAnswerMatchNothing() {
    PromqlOracleAnswer page = PromqlOracleAnswer.parse(404, "<html>not found</html>");
    assertThat(page.malformed()).startsWith("not JSON");
    assertThat(diff(ok(vector()), page)).hasSize(1);
    assertThat(PromqlOracleAnswer.parse(200,
        "{\"status\":\"error\",\"errorType\":\"bad_data\",\"error\":\"x\"}").malformed())
        .contains("HTTP status 200");
    assertThat(PromqlOracleAnswer.parse(200, "{\"status\":\"success\",\"data\":{\"resultType\":"
        + "\"vector\",\"result\":[{\"metric\":{},\"value\":[1700000000,2]}]}}").malformed())
        .contains("must be a JSON string");
    assertThat(PromqlOracleAnswer.parse(200, "{\"status\":\"success\",\"data\":{\"resultType\":"
        + "\"matrix\",\"result\":{}}}").malformed()).contains("expected an array");
  }

  @Test
  void orderCountsOnlyForOrderedQueriesAndTiesMayComeEitherWay() {
    String x = "{\"metric\":{\"i\":\"x\"},\"value\":[1700000000,\"3\"]}";
    String y = "{\"metric\":{\"i\":\"y\"},\"value\":[1700000000,\"2\"]}";
    String z = "{\"metric\":{\"i\":\"z\"},\"value\":[1700000000,\"2\"]}";
    PromqlOracleAnswer desc = ok(vector(x, y, z));
    assertThat(PromqlOracleComparison.differences(desc, ok(vector(x, z, y)), true, BASE))
        .isEmpty();
    assertThat(PromqlOracleComparison.differences(desc, ok(vector(y, x, z)), true, BASE))
        .containsExactly("order differs at position 0: {i=\"y\"}, Prometheus's is {i=\"x\"}");
    assertThat(PromqlOracleComparison.differences(desc, ok(vector(y, x, z)), false, BASE))
        .isEmpty();
  }

  @Test
  void orderedQueriesAreTheWholeSortOrUngroupedTopk() {
    assertThat(PromqlOracleCorpus.isOrdered("sort(x)")).isTrue();
    assertThat(PromqlOracleCorpus.isOrdered(" ( sort_desc(rate(x[5m])) ) ")).isTrue();
    assertThat(PromqlOracleCorpus.isOrdered("sort(label_replace(x, \"a\", \")\", \"b\", \"\"))"))
        .isTrue();
    assertThat(PromqlOracleCorpus.isOrdered("topk(3, x)")).isTrue();
    assertThat(PromqlOracleCorpus.isOrdered("bottomk (3, x)")).isTrue();
    assertThat(PromqlOracleCorpus.isOrdered("sort(x) + 1")).isFalse();
    assertThat(PromqlOracleCorpus.isOrdered("topk by (a) (1, x)")).isFalse();
    assertThat(PromqlOracleCorpus.isOrdered("sum(sort(x))")).isFalse();
    assertThat(PromqlOracleCorpus.isOrdered("sort_by(x)")).isFalse();
  }

  @Test
  void corpusLinesGiveKindTimesPlaceholdersAndExpectations() {
    Case range = PromqlOracleCorpus.parse(7, "range\trate(x[5m] @ ${t0+90m})\tstart=+10m "
        + "end=+1h30m step=37s", BASE);
    assertThat(range.kind()).isEqualTo(PromqlOracleCorpus.Kind.RANGE);
    assertThat(range.query()).isEqualTo("rate(x[5m] @ 1700005400)");
    assertThat(range.startMs()).isEqualTo(BASE + 600_000);
    assertThat(range.endMs()).isEqualTo(BASE + 5_400_000);
    assertThat(range.stepMs()).isEqualTo(37_000);
    assertThat(range.expectedError()).isNull();
    assertThat(range.ordered()).isFalse();

    Case instant = PromqlOracleCorpus.parse(8, "instant\tsort(x) @ ${t0-500ms}\ttime=-5m fail="
        + "execution empty", BASE);
    assertThat(instant.query()).isEqualTo("sort(x) @ 1699999999.5");
    assertThat(instant.timeMs()).isEqualTo(BASE - 300_000);
    assertThat(instant.expectedError()).isEqualTo("execution");
    assertThat(instant.expectEmpty()).isTrue();

    Case defaults = PromqlOracleCorpus.parse(9, "instant\ttopk(1, x)", BASE);
    assertThat(defaults.timeMs()).isEqualTo(BASE + PromqlOracleCorpus.DEFAULT_TIME_MS);
    assertThat(defaults.ordered()).isTrue();

    assertThatThrownBy(() -> PromqlOracleCorpus.parse(3, "range x", BASE))
        .hasMessageContaining("line 3");
    assertThatThrownBy(() -> PromqlOracleCorpus.parse(4, "query\tx", BASE))
        .hasMessageContaining("range or instant");
    assertThatThrownBy(() -> PromqlOracleCorpus.parse(5, "range\tx\tstep=5", BASE))
        .hasMessageContaining("not a duration");
    assertThatThrownBy(() -> PromqlOracleCorpus.parse(6, "range\tx\tfail=timeout", BASE))
        .hasMessageContaining("fail=");
    assertThat(PromqlOracleCorpus.duration("1h30m15s500ms")).isEqualTo(5_415_500);
  }

  @Test
  void theCorpusParsesAndCoversAtLeastTheRequiredCases() throws Exception {
    List<Case> cases = PromqlOracleCorpus.load(BASE);
    assertThat(cases).hasSizeGreaterThanOrEqualTo(PromqlOracleTest.MIN_CASES);
    assertThat(cases).anyMatch(c -> c.expectedError() != null)
        .anyMatch(Case::ordered)
        .anyMatch(c -> c.kind() == PromqlOracleCorpus.Kind.INSTANT);
    assertThat(cases).noneMatch(c -> c.query().contains("${"));
  }
}
