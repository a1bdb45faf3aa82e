package io.inferlens.analysis.promql.parse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferlens.analysis.promql.ast.AggregationOp;
import io.inferlens.analysis.promql.ast.BinaryOp;
import io.inferlens.analysis.promql.ast.Expr;
import io.inferlens.analysis.promql.ast.Expr.VectorMatching.Cardinality;
import io.inferlens.analysis.promql.ast.Function;
import io.inferlens.analysis.promql.ast.Printer;
import io.inferlens.analysis.promql.ast.ValueType;
import io.inferlens.storage.Matcher;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Valid queries: the one-line form Prometheus 2.42 prints them in ({@code String()}, checked
 * against its {@code format_query}, which equals it for lines of at most 100 bytes), and the
 * trees they parse to.
 */
class ParserTest {

  /** {input, Printer.print of the parsed tree}. */
  static Stream<String[]> printed() {
    return Stream.of(new String[][] {
        {"1", "1"},
        {"-1", "-1"},
        {"- -1", "1"},
        {"+1", "1"},
        {"-0", "-0"},
        {"1.5e3", "1500"},
        {"0x1F", "31"},
        {"017", "15"},
        {"Inf", "+Inf"},
        {"-inf", "-Inf"},
        {"NaN", "NaN"},
        {"1e6", "1e+06"},
        {"123456789", "1.23456789e+08"},
        {"0.00001", "1e-05"},
        {"\"abc\"", "\"abc\""},
        {"'a\"b'", "\"a\\\"b\""},
        {"`raw\\n`", "\"raw\\\\n\""},
        {"\"\\u00e9\\t\"", "\"é\\t\""},
        {"foo", "foo"},
        {"foo{}", "foo"},
        {"foo{job=\"api\"}", "foo{job=\"api\"}"},
        {"{job=\"api\"}", "{job=\"api\"}"},
        {"foo{z=\"1\",a=\"2\",m=~\"x.*\",b!=\"3\",c!~\"y\"}",
            "foo{a=\"2\",b!=\"3\",c!~\"y\",m=~\"x.*\",z=\"1\"}"},
        {"foo{job=\"api\",}", "foo{job=\"api\"}"},
        {"{__name__=\"foo\"}", "{__name__=\"foo\"}"},
        {"{__name__=~\"foo|bar\"}", "{__name__=~\"foo|bar\"}"},
        {"foo:bar:rate5m", "foo:bar:rate5m"},
        {"sum", "sum"},
        {"by", "by"},
        {"offset", "offset"},
        {"start", "start"},
        {"foo{on=\"a\",sum=\"b\",by=\"c\"}", "foo{by=\"c\",on=\"a\",sum=\"b\"}"},
        {"foo[5m]", "foo[5m]"},
        {"foo[90m]", "foo[1h30m]"},
        {"foo[1y2w3d4h5m6s7ms]", "foo[382d4h5m6s7ms]"},
        {"foo[7d]", "foo[1w]"},
        {"foo[1000ms]", "foo[1s]"},
        {"foo offset 5m", "foo offset 5m"},
        {"foo offset -5m", "foo offset -5m"},
        {"foo[5m] offset 1h", "foo[5m] offset 1h"},
        {"foo @ 1609746000", "foo @ 1609746000.000"},
        {"foo @ 1.5", "foo @ 1.500"},
        {"foo @ -5", "foo @ -5.000"},
        {"foo @ start()", "foo @ start()"},
        {"foo @ end()", "foo @ end()"},
        {"foo offset 5m @ 100", "foo @ 100.000 offset 5m"},
        {"foo[5m] @ start() offset 1m", "foo[5m] @ start() offset 1m"},
        {"foo @ start() [5m]", "foo[5m] @ start()"},
        {"foo[1h:5m]", "foo[1h:5m]"},
        {"foo[1h:]", "foo[1h:]"},
        {"rate(foo[5m])[1h:1m] offset 10m @ end()", "rate(foo[5m])[1h:1m] @ end() offset 10m"},
        {"(foo)[5m:]", "(foo)[5m:]"},
        {"-2^2", "-2 ^ 2"},
        {"-foo ^ 2", "-foo ^ 2"},
        {"-foo * 2", "-foo * 2"},
        {"2 ^ 3 ^ 2", "2 ^ 3 ^ 2"},
        {"1 + 2 * 3", "1 + 2 * 3"},
        {"(1 + 2) * 3", "(1 + 2) * 3"},
        {"1 - 2 - 3", "1 - 2 - 3"},
        {"foo + bar * baz ^ 2 == 1 and qux or quux unless corge",
            "foo + bar * baz ^ 2 == 1 and qux or quux unless corge"},
        {"foo atan2 bar", "foo atan2 bar"},
        {"foo > bool 1", "foo > bool 1"},
        {"1 > bool 2", "1 > bool 2"},
        {"foo + on(job) bar", "foo + on (job) bar"},
        {"foo + on() bar", "foo + on () bar"},
        {"foo + ignoring(job) bar", "foo + ignoring (job) bar"},
        {"foo + ignoring() bar", "foo + bar"},
        {"foo * on(job) group_left bar", "foo * on (job) group_left () bar"},
        {"foo * on(job) group_left(instance, le) bar",
            "foo * on (job) group_left (instance, le) bar"},
        {"foo * ignoring(job) group_right(x) bar", "foo * ignoring (job) group_right (x) bar"},
        {"foo and on(job) bar", "foo and on (job) bar"},
        {"foo or bar", "foo or bar"},
        {"foo unless ignoring(a) bar", "foo unless ignoring (a) bar"},
        {"SUM BY (job) (foo)", "sum by (job) (foo)"},
        {"sum(foo) by (job)", "sum by (job) (foo)"},
        {"sum by () (foo)", "sum(foo)"},
        {"sum without () (foo)", "sum without () (foo)"},
        {"sum without (job) (foo)", "sum without (job) (foo)"},
        {"sum(foo) by (on, by, sum, bool, offset, start)",
            "sum by (on, by, sum, bool, offset, start) (foo)"},
        {"topk(5, foo)", "topk(5, foo)"},
        {"count_values(\"value\", foo)", "count_values(\"value\", foo)"},
        {"quantile(0.9, foo)", "quantile(0.9, foo)"},
        {"rate(foo[5m])", "rate(foo[5m])"},
        {"label_join(foo, \"dst\", \",\", \"a\", \"b\")", "label_join(foo, \"dst\", \",\", \"a\", \"b\")"},
        {"round(foo)", "round(foo)"},
        {"round(foo, 0.5)", "round(foo, 0.5)"},
        {"time()", "time()"},
        {"histogram_quantile(0.95, sum by (le) (rate(foo_bucket[5m])))",
            "histogram_quantile(0.95, sum by (le) (rate(foo_bucket[5m])))"},
        {"foo # comment", "foo"},
        {"sum(\n  rate(foo[5m]) # per second\n)\n", "sum(rate(foo[5m]))"},
    });
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("printed")
  void printsAsPrometheus(String query, String expected) {
    Expr e = Parser.parse(query);
    assertThat(Printer.print(e)).isEqualTo(expected);
    assertThat(e.toString()).isEqualTo(expected);
    // What is printed parses back to itself.
    assertThat(Printer.print(Parser.parse(expected))).isEqualTo(expected);
  }

  @Test
  void unaryMinusBindsLikeMultiplicationAndFoldsIntoNumbers() {
    assertThat(Parser.parse("-2^2")).isEqualTo(new Expr.Unary(true,
        new Expr.Binary(BinaryOp.POW, num(2), num(2), false, null)));
    assertThat(Parser.parse("-1")).isEqualTo(num(-1));
    assertThat(Parser.parse("+ - 3")).isEqualTo(num(-3));
    Expr mul = Parser.parse("-foo * 2");
    assertThat(mul).isInstanceOf(Expr.Binary.class);
    assertThat(((Expr.Binary) mul).lhs()).isEqualTo(new Expr.Unary(true, sel("foo")));
    Expr offset = Parser.parse("-foo offset 5m");
    assertThat(offset).isEqualTo(new Expr.Unary(true,
        new Expr.VectorSelector("foo", List.of(Matcher.eq("__name__", "foo")), 300_000, null)));
  }

  @Test
  void powerIsRightAssociativeAndOthersLeft() {
    Expr.Binary pow = (Expr.Binary) Parser.parse("2 ^ 3 ^ 2");
    assertThat(pow.lhs()).isEqualTo(num(2));
    assertThat(pow.rhs()).isEqualTo(new Expr.Binary(BinaryOp.POW, num(3), num(2), false, null));
    Expr.Binary sub = (Expr.Binary) Parser.parse("1 - 2 - 3");
    assertThat(sub.rhs()).isEqualTo(num(3));
    assertThat(sub.lhs()).isEqualTo(new Expr.Binary(BinaryOp.SUB, num(1), num(2), false, null));
    Expr.Binary or = (Expr.Binary) Parser.parse("a and b or c unless d");
    assertThat(or.op()).isEqualTo(BinaryOp.OR);
    assertThat(((Expr.Binary) or.rhs()).op()).isEqualTo(BinaryOp.UNLESS);
  }

  @Test
  void vectorMatchingIsSetForEveryVectorPairAndNullWithAScalar() {
    Expr.Binary plain = (Expr.Binary) Parser.parse("a + b");
    assertThat(plain.matching()).isEqualTo(
        new Expr.VectorMatching(Cardinality.ONE_TO_ONE, false, List.of(), List.of()));
    Expr.Binary set = (Expr.Binary) Parser.parse("a and b");
    assertThat(set.matching().card()).isEqualTo(Cardinality.MANY_TO_MANY);
    Expr.Binary grouped = (Expr.Binary) Parser.parse("a * on(job) group_left(le, x) b");
    assertThat(grouped.matching()).isEqualTo(
        new Expr.VectorMatching(Cardinality.MANY_TO_ONE, true, List.of("job"), List.of("le", "x")));
    Expr.Binary right = (Expr.Binary) Parser.parse("a / ignoring(i) group_right b");
    assertThat(right.matching()).isEqualTo(
        new Expr.VectorMatching(Cardinality.ONE_TO_MANY, false, List.of("i"), List.of()));
    Expr.Binary scalar = (Expr.Binary) Parser.parse("a > bool 1");
    assertThat(scalar.matching()).isNull();
    assertThat(scalar.returnBool()).isTrue();
    assertThat(scalar.type()).isEqualTo(ValueType.VECTOR);
    Expr.Binary ignoredEmpty = (Expr.Binary) Parser.parse("a + ignoring() group_left(b) 1");
    assertThat(ignoredEmpty.matching()).isNull();
    assertThat(Parser.parse("1 > bool 2").type()).isEqualTo(ValueType.SCALAR);
  }

  @Test
  void selectorsKeepTheNameMatcherFirstAndRegexTextAsWritten() {
    Expr.VectorSelector v = (Expr.VectorSelector) Parser.parse("foo{b=~\"x.*\", a!=\"1\"}");
    assertThat(v.name()).isEqualTo("foo");
    assertThat(v.matchers()).containsExactly(Matcher.eq("__name__", "foo"),
        Matcher.re("b", "x.*"), Matcher.neq("a", "1"));
    assertThat(v.matchers().get(1).matches("xyz")).isTrue();
    assertThat(v.matchers().get(1).matches("axyz")).isFalse();
    Expr.VectorSelector unnamed = (Expr.VectorSelector) Parser.parse("{__name__=~\"foo|bar\"}");
    assertThat(unnamed.name()).isNull();
    assertThat(unnamed.matchers()).containsExactly(Matcher.re("__name__", "foo|bar"));
    Expr.VectorSelector keywords = (Expr.VectorSelector) Parser.parse("sum{by=\"x\"}");
    assertThat(keywords.name()).isEqualTo("sum");
    assertThat(keywords.matchers()).containsExactly(Matcher.eq("__name__", "sum"),
        Matcher.eq("by", "x"));
  }

  @Test
  void rangesOffsetsAndAtAreMilliseconds() {
    Expr.MatrixSelector m = (Expr.MatrixSelector) Parser.parse("foo[1h30m] offset -5m @ 1.5");
    assertThat(m.rangeMs()).isEqualTo(5_400_000);
    assertThat(m.selector().offsetMs()).isEqualTo(-300_000);
    assertThat(m.selector().at()).isEqualTo(new Expr.At(Expr.At.Kind.TIMESTAMP, 1_500));
    Expr.Subquery q = (Expr.Subquery) Parser.parse("rate(foo[5m])[1d:] @ end() offset 1w");
    assertThat(q.rangeMs()).isEqualTo(86_400_000);
    assertThat(q.stepMs()).isZero();
    assertThat(q.offsetMs()).isEqualTo(7 * 86_400_000L);
    assertThat(q.at()).isEqualTo(new Expr.At(Expr.At.Kind.END, 0));
    assertThat(q.expr()).isInstanceOf(Expr.Call.class);
    Expr.Subquery stepped = (Expr.Subquery) Parser.parse("foo[1h:90s]");
    assertThat(stepped.stepMs()).isEqualTo(90_000);
    // Go rounds half away from zero; past the int64 range amd64 gives the minimum int64.
    assertThat(at("foo @ -0.0005")).isEqualTo(-1);
    assertThat(at("foo @ 0.0005")).isEqualTo(1);
    assertThat(at("foo @ 1e16")).isEqualTo(Long.MIN_VALUE);
  }

  @Test
  void aggregationsAndCallsCarryTheirArguments() {
    Expr.Aggregate a = (Expr.Aggregate) Parser.parse("topk(3, rate(x[5m])) by (job, on)");
    assertThat(a.op()).isEqualTo(AggregationOp.TOPK);
    assertThat(a.param()).isEqualTo(num(3));
    assertThat(a.grouping()).containsExactly("job", "on");
    assertThat(a.without()).isFalse();
    Expr.Call rate = (Expr.Call) a.expr();
    assertThat(rate.function()).isEqualTo(Function.RATE);
    assertThat(rate.args()).hasSize(1).first().isInstanceOf(Expr.MatrixSelector.class);
    Expr.Aggregate w = (Expr.Aggregate) Parser.parse("count_values without (a) (\"v\", x)");
    assertThat(w.without()).isTrue();
    assertThat(w.param()).isEqualTo(new Expr.StringLiteral("v"));
    Expr.Call join = (Expr.Call) Parser.parse("label_join(x, \"d\", \",\", \"a\", \"b\", \"c\")");
    assertThat(join.args()).hasSize(6);
    assertThat(((Expr.Call) Parser.parse("time()")).args()).isEmpty();
  }

  @Test
  void stringsUnescapeGoStyle() {
    assertThat(str("\"a\\tb\\u00e9\\x41\\101\\\\\"")).isEqualTo("a\tbéAA\\");
    assertThat(str("'it\\'s'")).isEqualTo("it's");
    assertThat(str("`raw\\n`")).isEqualTo("raw\\n");
    assertThat(str("\"\\U0001F600\"")).isEqualTo("😀");
    // \xe2\x82\xac are the UTF-8 bytes of the euro sign.
    assertThat(str("\"\\xe2\\x82\\xac\"")).isEqualTo("€");
  }

  @Test
  void deepNestingParsesAsInPrometheus() {
    String deep = "(".repeat(20_000) + "foo" + ")".repeat(20_000);
    Expr e = Parser.parse(deep);
    assertThat(Printer.print(e)).isEqualTo(deep);
    String chain = String.join(" + ", java.util.Collections.nCopies(20_000, "foo"));
    assertThat(Printer.print(Parser.parse(chain))).isEqualTo(chain);
  }

  @Test
  void selectorsParseAsMatchParameters() {
    assertThat(Parser.parseSelector("up{job=~\"api.*\"}"))
        .containsExactly(Matcher.eq("__name__", "up"), Matcher.re("job", "api.*"));
    assertThat(Parser.parseSelector("{job=\"a\"} # comment")).containsExactly(Matcher.eq("job", "a"));
    assertThat(Parser.parseSelector("sum")).containsExactly(Matcher.eq("__name__", "sum"));
    // No type check, as Prometheus's ParseMetricSelector: the API checks for a non-empty matcher.
    assertThat(Parser.parseSelector("{}")).isEmpty();
    assertThat(Parser.parseSelector("foo{__name__=\"bar\"}")).hasSize(2);
    assertThatThrownBy(() -> Parser.parseSelector("up[5m]"))
        .isInstanceOf(ParseException.class).hasMessage("1:3: parse error: unexpected \"[\"");
    assertThatThrownBy(() -> Parser.parseSelector("rate(up[5m])"))
        .hasMessage("1:5: parse error: unexpected \"(\"");
    assertThatThrownBy(() -> Parser.parseSelector("up offset 5m"))
        .hasMessage("1:4: parse error: unexpected <offset>");
    assertThatThrownBy(() -> Parser.parseSelector(""))
        .hasMessage("1:1: parse error: unexpected end of input");
    assertThatThrownBy(() -> Parser.parseSelector("1"))
        .hasMessage("1:1: parse error: unexpected number \"1\"");
    assertThatThrownBy(() -> Parser.parseSelector("up{a=~\"(\"}"))
        .hasMessage("1:4: parse error: error parsing regexp: missing closing ): `^(?:()$`");
  }

  @Test
  void durationsParseAsPromqlDurations() {
    assertThat(Parser.parseDuration("5m")).isEqualTo(300_000);
    assertThat(Parser.parseDuration("1h30m")).isEqualTo(5_400_000);
    assertThat(Parser.parseDuration("1y2w3d4h5m6s7ms"))
        .isEqualTo(382L * 86_400_000 + 4 * 3_600_000 + 5 * 60_000 + 6_000 + 7);
    assertThat(Parser.parseDuration("292y")).isEqualTo(292L * 365 * 86_400_000);
    assertThatThrownBy(() -> Parser.parseDuration("293y")).hasMessage("duration out of range");
    assertThatThrownBy(() -> Parser.parseDuration("0s"))
        .hasMessage("duration must be greater than 0");
    assertThatThrownBy(() -> Parser.parseDuration("1.5h"))
        .hasMessage("not a valid duration string: \"1.5h\"");
    assertThatThrownBy(() -> Parser.parseDuration("5m1h"))
        .hasMessage("not a valid duration string: \"5m1h\"");
  }

  @Test
  void errorsGiveLineAndByteColumn() {
    ParseException e = (ParseException) org.assertj.core.api.Assertions.catchThrowable(
        () -> Parser.parse("foo\n+ \"é\" + é"));
    assertThat(e.line()).isEqualTo(2);
    // "é" is two bytes in UTF-8, so the second one starts at byte column 10 (char column 9).
    assertThat(e.column()).isEqualTo(10);
    assertThat(e.position()).isEqualTo(12);
    assertThat(e.detail()).isEqualTo("unexpected character: 'é'");
    assertThat(e).hasMessage("2:10: parse error: unexpected character: 'é'");
  }

  private static long at(String q) {
    return ((Expr.VectorSelector) Parser.parse(q)).at().timestampMs();
  }

  private static String str(String q) {
    return ((Expr.StringLiteral) Parser.parse(q)).value();
  }

  private static Expr.NumberLiteral num(double v) {
    return new Expr.NumberLiteral(v);
  }

  private static Expr.VectorSelector sel(String name) {
    return new Expr.VectorSelector(name, List.of(Matcher.eq("__name__", name)), 0, null);
  }
}
