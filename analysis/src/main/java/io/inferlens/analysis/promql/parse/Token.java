package io.inferlens.analysis.promql.parse;

import io.inferlens.analysis.promql.ast.GoFormat;
import io.inferlens.analysis.promql.ast.Printer;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A PromQL token as the {@link Lexer} produces it (Prometheus {@code promql/parser/lex.go} at
 * v2.42.0, {@code Item}).
 *
 * @param kind what the token is
 * @param pos where it starts, a char index into the query (0-based)
 * @param text the text as written (for {@link Kind#ERROR} the lexer's error message, for
 *     {@link Kind#STRING} including its quotes, for keywords in the case written)
 */
public record Token(Kind kind, int pos, String text) {

  /** Token kinds, grouped as Prometheus groups them (operators, aggregators, keywords). */
  public enum Kind {
    /** end of input */ EOF,
    /** a lexer error; {@link Token#text()} is the message */ ERROR,
    /** {@code # ...} to the end of the line */ COMMENT,
    /** a name without a colon, such as {@code rate} or {@code job} */ IDENTIFIER,
    /** a name with a colon, such as {@code job:rate5m} */ METRIC_IDENTIFIER,
    /** a number, also {@code Inf} and {@code NaN} */ NUMBER,
    /** a quoted string, quotes included */ STRING,
    /** a duration such as {@code 5m} or {@code 1h30m} */ DURATION,
    /** {@code (} */ LEFT_PAREN,
    /** {@code )} */ RIGHT_PAREN,
    /** {@code &#123;} */ LEFT_BRACE,
    /** {@code &#125;} */ RIGHT_BRACE,
    /** {@code [} */ LEFT_BRACKET,
    /** {@code ]} */ RIGHT_BRACKET,
    /** {@code ,} */ COMMA,
    /** {@code =} */ EQL,
    /** {@code :} inside brackets (any letter there lexes as one, as in Prometheus) */ COLON,
    /** {@code +} */ ADD,
    /** {@code -} */ SUB,
    /** {@code *} */ MUL,
    /** {@code /} */ DIV,
    /** {@code %} */ MOD,
    /** {@code ^} */ POW,
    /** {@code ==} */ EQLC,
    /** {@code !=} */ NEQ,
    /** {@code <=} */ LTE,
    /** {@code <} */ LSS,
    /** {@code >=} */ GTE,
    /** {@code >} */ GTR,
    /** {@code =~} */ EQL_REGEX,
    /** {@code !~} */ NEQ_REGEX,
    /** {@code and} */ LAND,
    /** {@code or} */ LOR,
    /** {@code unless} */ LUNLESS,
    /** {@code atan2} */ ATAN2,
    /** {@code @} */ AT,
    /** {@code avg} */ AVG,
    /** {@code bottomk} */ BOTTOMK,
    /** {@code count} */ COUNT,
    /** {@code count_values} */ COUNT_VALUES,
    /** {@code group} */ GROUP,
    /** {@code max} */ MAX,
    /** {@code min} */ MIN,
    /** {@code quantile} */ QUANTILE,
    /** {@code stddev} */ STDDEV,
    /** {@code stdvar} */ STDVAR,
    /** {@code sum} */ SUM,
    /** {@code topk} */ TOPK,
    /** {@code bool} */ BOOL,
    /** {@code by} */ BY,
    /** {@code group_left} */ GROUP_LEFT,
    /** {@code group_right} */ GROUP_RIGHT,
    /** {@code ignoring} */ IGNORING,
    /** {@code offset} */ OFFSET,
    /** {@code on} */ ON,
    /** {@code without} */ WITHOUT,
    /** {@code start} (of {@code @ start()}) */ START,
    /** {@code end} (of {@code @ end()}) */ END;

    /** @return whether this is an arithmetic, comparison or set operator, or {@code @} */
    public boolean isOperator() {
      return ordinal() >= ADD.ordinal() && ordinal() <= AT.ordinal();
    }

    /** @return whether this is an aggregation operator such as {@code sum} */
    public boolean isAggregator() {
      return ordinal() >= AVG.ordinal() && ordinal() <= TOPK.ordinal();
    }

    /** @return whether this is {@code bool}, {@code by}, ... {@code without} */
    public boolean isKeyword() {
      return ordinal() >= BOOL.ordinal() && ordinal() <= WITHOUT.ordinal();
    }
  }

  /** Keywords by lower-case text; {@code inf} and {@code nan} lex as numbers (lex.go, key). */
  private static final Map<String, Kind> KEYWORDS = new HashMap<>();

  /** The fixed text Prometheus knows a kind by (lex.go, ItemTypeStr). */
  private static final Map<Kind, String> KIND_TEXT = new HashMap<>();

  static {
    Object[][] fixed = {
        {Kind.LEFT_PAREN, "("}, {Kind.RIGHT_PAREN, ")"}, {Kind.LEFT_BRACE, "{"},
        {Kind.RIGHT_BRACE, "}"}, {Kind.LEFT_BRACKET, "["}, {Kind.RIGHT_BRACKET, "]"},
        {Kind.COMMA, ","}, {Kind.EQL, "="}, {Kind.COLON, ":"}, {Kind.SUB, "-"}, {Kind.ADD, "+"},
        {Kind.MUL, "*"}, {Kind.MOD, "%"}, {Kind.DIV, "/"}, {Kind.EQLC, "=="}, {Kind.NEQ, "!="},
        {Kind.LTE, "<="}, {Kind.LSS, "<"}, {Kind.GTE, ">="}, {Kind.GTR, ">"},
        {Kind.EQL_REGEX, "=~"}, {Kind.NEQ_REGEX, "!~"}, {Kind.POW, "^"}};
    for (Object[] f : fixed) {
      KIND_TEXT.put((Kind) f[0], (String) f[1]);
    }
    Kind[] words = {Kind.LAND, Kind.LOR, Kind.LUNLESS, Kind.ATAN2, Kind.AVG, Kind.BOTTOMK,
        Kind.COUNT, Kind.COUNT_VALUES, Kind.GROUP, Kind.MAX, Kind.MIN, Kind.QUANTILE, Kind.STDDEV,
        Kind.STDVAR, Kind.SUM, Kind.TOPK, Kind.BOOL, Kind.BY, Kind.GROUP_LEFT, Kind.GROUP_RIGHT,
        Kind.IGNORING, Kind.OFFSET, Kind.ON, Kind.WITHOUT, Kind.START, Kind.END};
    for (Kind k : words) {
      String text = switch (k) {
        case LAND -> "and";
        case LOR -> "or";
        case LUNLESS -> "unless";
        default -> k.name().toLowerCase(Locale.ROOT);
      };
      KEYWORDS.put(text, k);
      KIND_TEXT.put(k, text);
    }
    KEYWORDS.put("inf", Kind.NUMBER);
    KEYWORDS.put("nan", Kind.NUMBER);
  }

  /**
   * @param word an identifier as written
   * @return the keyword kind it lexes as (case-insensitive), or null if it is none
   */
  static Kind keyword(String word) {
    return KEYWORDS.get(word.toLowerCase(Locale.ROOT));
  }

  /** @return the end of the token, a char index (exclusive) */
  public int end() {
    return pos + text.length();
  }

  /**
   * Describes the token for a syntax error as Prometheus does ({@code Item.desc}), such as
   * {@code end of input}, {@code identifier "foo"}, {@code <op:+>}, {@code "("}.
   *
   * @return the description
   */
  public String describe() {
    if (kind == Kind.EOF) {
      return "end of input";
    }
    if (KIND_TEXT.containsKey(kind)) {
      return shown();
    }
    String kindDesc = switch (kind) {
      case ERROR -> "error";
      case COMMENT -> "comment";
      case IDENTIFIER -> "identifier";
      case METRIC_IDENTIFIER -> "metric identifier";
      case STRING -> "string";
      case NUMBER -> "number";
      case DURATION -> "duration";
      // '@' has no fixed text in 2.42; Go prints the yacc token number.
      case AT -> "\"<Item 57385>\"";
      default -> throw new AssertionError(kind);
    };
    return kindDesc + " " + shown();
  }

  /** Prometheus's {@code Item.String}. */
  private String shown() {
    if (kind == Kind.ERROR) {
      return text;
    }
    if (kind == Kind.IDENTIFIER || kind == Kind.METRIC_IDENTIFIER) {
      return Printer.quote(text);
    }
    if (kind.isKeyword()) {
      return "<" + text + ">";
    }
    if (kind.isOperator()) {
      return "<op:" + text + ">";
    }
    if (kind.isAggregator()) {
      return "<aggr:" + text + ">";
    }
    if (GoFormat.utf8Length(text) > 10) {
      // Go's %.10q: the first ten runes, quoted, then "...".
      int cut = text.codePointCount(0, text.length()) > 10 ? text.offsetByCodePoints(0, 10)
          : text.length();
      return Printer.quote(text.substring(0, cut)) + "...";
    }
    return Printer.quote(text);
  }
}
