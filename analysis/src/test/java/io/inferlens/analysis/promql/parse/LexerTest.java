package io.inferlens.analysis.promql.parse;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.analysis.promql.parse.Token.Kind;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LexerTest {

  private static List<Token> lex(String q) {
    Lexer l = new Lexer(q);
    List<Token> out = new ArrayList<>();
    while (true) {
      Token t = l.next();
      out.add(t);
      if (t.kind() == Kind.EOF || t.kind() == Kind.ERROR) {
        return out;
      }
    }
  }

  @Test
  void tokensCarryKindPositionAndText() {
    assertThat(lex("sum by (job) (rate(a:b{x=~\"y\"}[5m])) # c")).containsExactly(
        new Token(Kind.SUM, 0, "sum"),
        new Token(Kind.BY, 4, "by"),
        new Token(Kind.LEFT_PAREN, 7, "("),
        new Token(Kind.IDENTIFIER, 8, "job"),
        new Token(Kind.RIGHT_PAREN, 11, ")"),
        new Token(Kind.LEFT_PAREN, 13, "("),
        new Token(Kind.IDENTIFIER, 14, "rate"),
        new Token(Kind.LEFT_PAREN, 18, "("),
        new Token(Kind.METRIC_IDENTIFIER, 19, "a:b"),
        new Token(Kind.LEFT_BRACE, 22, "{"),
        new Token(Kind.IDENTIFIER, 23, "x"),
        new Token(Kind.EQL_REGEX, 24, "=~"),
        new Token(Kind.STRING, 26, "\"y\""),
        new Token(Kind.RIGHT_BRACE, 29, "}"),
        new Token(Kind.LEFT_BRACKET, 30, "["),
        new Token(Kind.DURATION, 31, "5m"),
        new Token(Kind.RIGHT_BRACKET, 33, "]"),
        new Token(Kind.RIGHT_PAREN, 34, ")"),
        new Token(Kind.RIGHT_PAREN, 35, ")"),
        new Token(Kind.COMMENT, 37, "# c"),
        new Token(Kind.EOF, 40, ""));
  }

  @Test
  void keywordsAreCaseInsensitiveOutsideBracesAndIdentifiersInside() {
    assertThat(lex("Offset{on=\"1\"} AND inf")).extracting(Token::kind).containsExactly(
        Kind.OFFSET, Kind.LEFT_BRACE, Kind.IDENTIFIER, Kind.EQL, Kind.STRING, Kind.RIGHT_BRACE,
        Kind.LAND, Kind.NUMBER, Kind.EOF);
  }

  @Test
  void numbersAndDurations() {
    assertThat(lex("0x1F 1.5e-3 .5 5m 1h30m offset -1d")).extracting(Token::kind)
        .containsExactly(Kind.NUMBER, Kind.NUMBER, Kind.NUMBER, Kind.DURATION, Kind.DURATION,
            Kind.OFFSET, Kind.SUB, Kind.DURATION, Kind.EOF);
    assertThat(lex("0deadbeef")).last()
        .isEqualTo(new Token(Kind.ERROR, 0, "bad number or duration syntax: \"0de\""));
  }

  @Test
  void insideBracketsALetterIsAColon() {
    // As in Prometheus, "x" lexes as the subquery colon.
    assertThat(lex("a[5m x]")).extracting(Token::kind).containsExactly(Kind.IDENTIFIER,
        Kind.LEFT_BRACKET, Kind.DURATION, Kind.COLON, Kind.RIGHT_BRACKET, Kind.EOF);
    assertThat(lex("a[5m:1m:]")).last()
        .isEqualTo(new Token(Kind.ERROR, 7, "unexpected colon ':'"));
    assertThat(lex("a[ 5m]").get(2)).isEqualTo(new Token(Kind.DURATION, 3, "5m"));
    assertThat(lex("a[5]")).last()
        .isEqualTo(new Token(Kind.ERROR, 2, "missing unit character in duration"));
  }

  @Test
  void stringsAndTheirErrors() {
    assertThat(lex("'a\\'b' `x\ny`")).extracting(Token::kind)
        .containsExactly(Kind.STRING, Kind.STRING, Kind.EOF);
    assertThat(lex("\"a\nb\"")).last()
        .isEqualTo(new Token(Kind.ERROR, 0, "unterminated quoted string"));
    assertThat(lex("x \"\\q\"")).last()
        .isEqualTo(new Token(Kind.ERROR, 2, "unknown escape sequence U+0071 'q'"));
    assertThat(lex("\"\\x4g\"")).last()
        .isEqualTo(new Token(Kind.ERROR, 0, "illegal character U+0067 'g' in escape sequence"));
    assertThat(lex("\"\\ud800\"")).last()
        .isEqualTo(new Token(Kind.ERROR, 0, "escape sequence is an invalid Unicode code point"));
    assertThat(lex("\"\uFFFD\"")).last()
        .isEqualTo(new Token(Kind.ERROR, 0, "invalid UTF-8 rune"));
    assertThat(lex("`abc")).last().isEqualTo(new Token(Kind.ERROR, 0, "unterminated raw string"));
  }

  @Test
  void unbalancedBracketsAndStrayCharacters() {
    assertThat(lex("(a")).last().isEqualTo(new Token(Kind.ERROR, 2, "unclosed left parenthesis"));
    assertThat(lex("a)")).last()
        .isEqualTo(new Token(Kind.ERROR, 2, "unexpected right parenthesis ')'"));
    assertThat(lex("a[5m")).last().isEqualTo(new Token(Kind.ERROR, 4, "unclosed left bracket"));
    assertThat(lex("a]")).last()
        .isEqualTo(new Token(Kind.ERROR, 1, "unexpected right bracket ']'"));
    assertThat(lex("a{b")).last()
        .isEqualTo(new Token(Kind.ERROR, 3, "unexpected end of input inside braces"));
    assertThat(lex("a !")).last()
        .isEqualTo(new Token(Kind.ERROR, 2, "unexpected character after '!': '\uFFFD'"));
    assertThat(lex("a =~ b")).last()
        .isEqualTo(new Token(Kind.ERROR, 2, "unexpected character after '=': '~'"));
    assertThat(lex("\f")).last()
        .isEqualTo(new Token(Kind.ERROR, 0, "unexpected character: '\\f'"));
    assertThat(lex("a{b~}")).last()
        .isEqualTo(new Token(Kind.ERROR, 3, "unexpected character inside braces: '~'"));
  }

  @Test
  void describesTokensAsPrometheusErrorsDo() {
    assertThat(new Token(Kind.EOF, 3, "").describe()).isEqualTo("end of input");
    assertThat(new Token(Kind.IDENTIFIER, 0, "foo").describe()).isEqualTo("identifier \"foo\"");
    assertThat(new Token(Kind.METRIC_IDENTIFIER, 0, "a:b").describe())
        .isEqualTo("metric identifier \"a:b\"");
    assertThat(new Token(Kind.ADD, 0, "+").describe()).isEqualTo("<op:+>");
    assertThat(new Token(Kind.LAND, 0, "AND").describe()).isEqualTo("<op:AND>");
    assertThat(new Token(Kind.SUM, 0, "sum").describe()).isEqualTo("<aggr:sum>");
    assertThat(new Token(Kind.BY, 0, "by").describe()).isEqualTo("<by>");
    assertThat(new Token(Kind.START, 0, "start").describe()).isEqualTo("\"start\"");
    assertThat(new Token(Kind.COMMA, 0, ",").describe()).isEqualTo("\",\"");
    assertThat(new Token(Kind.DURATION, 0, "5m").describe()).isEqualTo("duration \"5m\"");
    assertThat(new Token(Kind.STRING, 0, "\"abcdefghijkl\"").describe())
        .isEqualTo("string \"\\\"abcdefghi\"...");
    assertThat(new Token(Kind.AT, 0, "@").describe()).isEqualTo("\"<Item 57385>\" <op:@>");
  }
}
