package io.inferlens.analysis.promql.ast;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Expected texts are what Go 1.19's fmt and strconv print, as Prometheus shows them. */
class GoFormatTest {

  @Test
  void exponentFormIsGosE() {
    assertThat(GoFormat.formatExponent(2.5)).isEqualTo("2.5e+00");
    assertThat(GoFormat.formatExponent(0.001)).isEqualTo("1e-03");
    assertThat(GoFormat.formatExponent(123456789)).isEqualTo("1.23456789e+08");
    assertThat(GoFormat.formatExponent(-1e100)).isEqualTo("-1e+100");
    assertThat(GoFormat.formatExponent(0)).isEqualTo("0e+00");
    assertThat(GoFormat.formatExponent(-0.0)).isEqualTo("-0e+00");
    assertThat(GoFormat.formatExponent(Double.NaN)).isEqualTo("NaN");
    assertThat(GoFormat.formatExponent(Double.NEGATIVE_INFINITY)).isEqualTo("-Inf");
    assertThat(GoFormat.formatFloat(1e6)).isEqualTo("1e+06");
  }

  @Test
  void floatsPrintAsGoPercentV() {
    assertThat(GoFormat.formatFloat(1)).isEqualTo("1");
    assertThat(GoFormat.formatFloat(-0.0)).isEqualTo("-0");
    assertThat(GoFormat.formatFloat(100000)).isEqualTo("100000");
    assertThat(GoFormat.formatFloat(1e6)).isEqualTo("1e+06");
    assertThat(GoFormat.formatFloat(1234567)).isEqualTo("1.234567e+06");
    assertThat(GoFormat.formatFloat(0.0001)).isEqualTo("0.0001");
    assertThat(GoFormat.formatFloat(0.000012345)).isEqualTo("1.2345e-05");
    assertThat(GoFormat.formatFloat(0.1)).isEqualTo("0.1");
    assertThat(GoFormat.formatFloat(1.7976931348623157e308)).isEqualTo("1.7976931348623157e+308");
    assertThat(GoFormat.formatFloat(5e-324)).isEqualTo("5e-324");
    assertThat(GoFormat.formatFloat(9223372036854775808.0)).isEqualTo("9.223372036854776e+18");
    assertThat(GoFormat.formatFloat(Double.POSITIVE_INFINITY)).isEqualTo("+Inf");
    assertThat(GoFormat.formatFloat(Double.NEGATIVE_INFINITY)).isEqualTo("-Inf");
    assertThat(GoFormat.formatFloat(Double.NaN)).isEqualTo("NaN");
  }

  @Test
  void fixedRoundsTheExactBinaryValueHalfToEven() {
    assertThat(GoFormat.formatFixed(1.5, 3)).isEqualTo("1.500");
    assertThat(GoFormat.formatFixed(-0.0, 3)).isEqualTo("-0.000");
    assertThat(GoFormat.formatFixed(-0.0001, 3)).isEqualTo("-0.000");
    assertThat(GoFormat.formatFixed(Long.MIN_VALUE / 1000.0, 3))
        .isEqualTo("-9223372036854776.000");
    assertThat(GoFormat.formatFixed(9.223372036854775807e18, 6))
        .isEqualTo("9223372036854775808.000000");
    assertThat(GoFormat.formatFixed(Double.POSITIVE_INFINITY, 6)).isEqualTo("+Inf");
  }

  @Test
  void quotesAsStrconvQuote() {
    assertThat(GoFormat.quote("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
    assertThat(GoFormat.quote("\u0007\b\f\n\r\t\u000b\u0001\u007f"))
        .isEqualTo("\"\\a\\b\\f\\n\\r\\t\\v\\x01\\x7f\"");
    assertThat(GoFormat.quote("é€😀'")).isEqualTo("\"é€😀'\"");
    assertThat(GoFormat.quote("\u00a0\u200b\u0085")).isEqualTo("\"\\u00a0\\u200b\\u0085\"");
    assertThat(GoFormat.quote("\uDB80\uDC00")).isEqualTo("\"\\U000f0000\"");
    // A raw byte kept by decodeUtf8 prints as Go prints the byte.
    assertThat(GoFormat.quote(GoFormat.decodeUtf8(new byte[] {'a', (byte) 0xff})))
        .isEqualTo("\"a\\xff\"");
    assertThat(GoFormat.quoteRune('\'')).isEqualTo("'\\''");
    assertThat(GoFormat.quoteRune('"')).isEqualTo("'\"'");
    assertThat(GoFormat.quoteRune(-1)).isEqualTo("'\uFFFD'");
    assertThat(GoFormat.unicodeSharp('c')).isEqualTo("U+0063 'c'");
    assertThat(GoFormat.unicodeSharp('\n')).isEqualTo("U+000A");
  }

  @Test
  void decodesUtf8AsGoReadsStringsAndCountsBytes() {
    assertThat(GoFormat.decodeUtf8(new byte[] {(byte) 0xe2, (byte) 0x82, (byte) 0xac}))
        .isEqualTo("€");
    // Overlong and surrogate forms are invalid in Go: each byte stands alone.
    assertThat(GoFormat.decodeUtf8(new byte[] {(byte) 0xc0, (byte) 0x80}))
        .isEqualTo("\uDCC0\uDC80");
    assertThat(GoFormat.decodeUtf8(new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}))
        .isEqualTo("\uDCED\uDCA0\uDC80");
    assertThat(GoFormat.utf8Length("aé€😀")).isEqualTo(1 + 2 + 3 + 4);
    assertThat(GoFormat.utf8Length(GoFormat.decodeUtf8(new byte[] {(byte) 0xff}))).isEqualTo(1);
    assertThat(GoFormat.compareUtf8("\uFFFD", "😀")).isNegative();
    assertThat(GoFormat.compareUtf8("a", "ab")).isNegative();
  }

  @Test
  void durationsPrintAsModelDuration() {
    assertThat(Printer.duration(0)).isEqualTo("0s");
    assertThat(Printer.duration(5_400_000)).isEqualTo("1h30m");
    assertThat(Printer.duration(14L * 86_400_000)).isEqualTo("2w");
    assertThat(Printer.duration(15L * 86_400_000)).isEqualTo("15d");
    assertThat(Printer.duration(365L * 86_400_000)).isEqualTo("1y");
    assertThat(Printer.duration(382L * 86_400_000 + 7)).isEqualTo("382d7ms");
  }
}
