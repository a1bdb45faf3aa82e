package io.inferlens.analysis.promql.parse;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.inferlens.analysis.promql.ast.GoFormat;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;

/**
 * The values of PromQL literal tokens, with Prometheus 2.42's rules and error messages: numbers
 * as its parser reads them (Go's {@code strconv.ParseInt(s, 0, 64)}, then
 * {@code strconv.ParseFloat}), durations as {@code model.ParseDuration} of prometheus/common
 * v0.39 ({@code model/time.go}), strings as {@code util/strutil.Unquote}, and whether a matcher
 * regex compiles as Go 1.19's {@code regexp} would.
 *
 * <p>Each method returns the value or throws {@link LiteralException} with the message
 * Prometheus gives; the parser adds the position.
 */
final class Literals {

  /** A literal that does not parse; the message is Prometheus's. */
  static final class LiteralException extends Exception {
    private static final long serialVersionUID = 1L;

    LiteralException(String message) {
      super(message, null, false, false);
    }
  }

  private static final java.util.regex.Pattern DURATION = java.util.regex.Pattern.compile(
      "^(([0-9]+)y)?(([0-9]+)w)?(([0-9]+)d)?(([0-9]+)h)?(([0-9]+)m)?(([0-9]+)s)?(([0-9]+)ms)?$");

  /** Milliseconds per unit of the groups 2, 4, ..., 14 of {@link #DURATION}. */
  private static final long[] UNIT_MS = {
      365L * 86_400_000, 7L * 86_400_000, 86_400_000, 3_600_000, 60_000, 1_000, 1};

  private Literals() {}

  /**
   * @param text a NUMBER token: decimal, octal with a leading 0, hex, float, {@code Inf},
   *     {@code NaN} (any case)
   * @return its value
   * @throws LiteralException {@code error parsing number: strconv.ParseFloat: parsing "0x":
   *     invalid syntax} and the like
   */
  static double number(String text) throws LiteralException {
    Long n = parseGoInt(text);
    if (n != null) {
      return (double) n;
    }
    return parseGoFloat(text);
  }

  /** Go's {@code ParseInt(s, 0, 64)}: null when it fails (syntax or range). */
  private static Long parseGoInt(String s) {
    int radix = 10;
    String digits = s;
    if (s.length() > 1 && s.charAt(0) == '0') {
      char c = Character.toLowerCase(s.charAt(1));
      if (c == 'x') {
        radix = 16;
        digits = s.substring(2);
      } else {
        radix = 8;
        digits = s.substring(1);
      }
    }
    if (digits.isEmpty()) {
      return null;
    }
    long v = 0;
    for (int i = 0; i < digits.length(); i++) {
      int d = Character.digit(digits.charAt(i), radix);
      if (d < 0) {
        return null;
      }
      if (v > (Long.MAX_VALUE - d) / radix) {
        return null;
      }
      v = v * radix + d;
    }
    return v;
  }

  /** Go's {@code ParseFloat(s, 64)} over what the lexer can produce. */
  private static double parseGoFloat(String s) throws LiteralException {
    String lower = s.toLowerCase(java.util.Locale.ROOT);
    if (lower.equals("inf")) {
      return Double.POSITIVE_INFINITY;
    }
    if (lower.equals("nan")) {
      return Double.NaN;
    }
    // Hex needs a 'p' exponent in Go, which the lexer never lets through.
    if (!lower.matches("([0-9]+\\.?[0-9]*|\\.[0-9]+)(e[+-]?[0-9]+)?")) {
      throw new LiteralException(
          "error parsing number: strconv.ParseFloat: parsing " + GoFormat.quote(s)
              + ": invalid syntax");
    }
    double v = Double.parseDouble(s);
    if (Double.isInfinite(v)) {
      throw new LiteralException(
          "error parsing number: strconv.ParseFloat: parsing " + GoFormat.quote(s)
              + ": value out of range");
    }
    return v;
  }

  /**
   * The time of {@code @ <seconds>} as Prometheus takes it ({@code setTimestamp} in parse.go,
   * {@code timestamp.FromFloatSeconds}): {@code int64(math.Round(seconds * 1000))}, halves away
   * from zero; a product outside the int64 range becomes the minimum int64, as Go's conversion
   * does on amd64.
   *
   * @param seconds the number after {@code @}, its sign applied
   * @return milliseconds since the epoch
   * @throws LiteralException {@code timestamp out of bounds for @ modifier: +Inf} for an
   *     infinite, NaN or out-of-int64 value
   */
  static long atTimestampMs(double seconds) throws LiteralException {
    if (Double.isNaN(seconds) || Double.isInfinite(seconds)
        || seconds >= 9.223372036854775807E18 || seconds <= -9.223372036854775808E18) {
      throw new LiteralException(
          "timestamp out of bounds for @ modifier: " + GoFormat.formatFixed(seconds, 6));
    }
    double ms = seconds * 1000;
    double a = Math.abs(ms);
    double r = Math.floor(a);
    if (a - r >= 0.5) {
      r += 1;
    }
    r = Math.copySign(r, ms);
    if (!(r >= -9.223372036854775808E18 && r < 9.223372036854775807E18)) {
      return Long.MIN_VALUE;
    }
    return (long) r;
  }

  /**
   * A PromQL duration: {@code model.ParseDuration} (units {@code y w d h m s ms}, each at most
   * once, in that order; the total must fit Go's {@code time.Duration}, about 292 years) and
   * greater than zero.
   *
   * @param text the duration text, such as {@code 1h30m}
   * @return milliseconds, positive
   * @throws LiteralException {@code not a valid duration string: "1.5h"}, {@code duration out
   *     of range}, {@code duration must be greater than 0}
   */
  static long duration(String text) throws LiteralException {
    long ms = modelDuration(text);
    if (ms == 0) {
      throw new LiteralException("duration must be greater than 0");
    }
    return ms;
  }

  /** {@code model.ParseDuration}: milliseconds, 0 allowed. */
  static long modelDuration(String text) throws LiteralException {
    if (text.equals("0")) {
      return 0;
    }
    if (text.isEmpty()) {
      throw new LiteralException("empty duration string");
    }
    Matcher m = DURATION.matcher(text);
    if (!m.matches()) {
      throw new LiteralException("not a valid duration string: " + GoFormat.quote(text));
    }
    // Go sums nanoseconds in an int64 and reports overflow once any step goes out of range.
    long totalNs = 0;
    boolean overflow = false;
    for (int i = 0; i < UNIT_MS.length; i++) {
      String g = m.group(2 + 2 * i);
      if (g == null) {
        continue;
      }
      long n = atoi(g);
      long multNs = UNIT_MS[i] * 1_000_000;
      if (n > Long.MAX_VALUE / multNs) {
        overflow = true;
      }
      totalNs += n * multNs;
      if (totalNs < 0) {
        overflow = true;
      }
    }
    if (overflow) {
      throw new LiteralException("duration out of range");
    }
    return totalNs / 1_000_000;
  }

  /** Go's {@code strconv.Atoi} of a digit string, clamped to the int64 range as Go does. */
  private static long atoi(String digits) {
    long v = 0;
    for (int i = 0; i < digits.length(); i++) {
      int d = digits.charAt(i) - '0';
      if (v > (Long.MAX_VALUE - d) / 10) {
        return Long.MAX_VALUE;
      }
      v = v * 10 + d;
    }
    return v;
  }

  /**
   * The value of a STRING token, whose escapes the lexer has already checked. {@code \x} and
   * octal escapes give bytes, which are decoded as UTF-8 with the rest; a byte that is not part
   * of valid UTF-8 (Go keeps it raw) becomes the lone surrogate U+DC80..U+DCFF, as Python's
   * {@code surrogateescape} does, so that {@link GoFormat#quote} prints it back as {@code \xNN}.
   *
   * @param token the token text, quotes included
   * @return the string
   */
  static String unquote(String token) {
    char quote = token.charAt(0);
    String s = token.substring(1, token.length() - 1);
    if (quote == '`') {
      return s;
    }
    if (s.indexOf('\\') < 0) {
      return s;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream(s.length() + 8);
    for (int i = 0; i < s.length(); ) {
      char c = s.charAt(i);
      if (c != '\\') {
        int cp = s.codePointAt(i);
        i += Character.charCount(cp);
        out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
        continue;
      }
      char e = s.charAt(i + 1);
      i += 2;
      switch (e) {
        case 'a' -> out.write(7);
        case 'b' -> out.write('\b');
        case 'f' -> out.write('\f');
        case 'n' -> out.write('\n');
        case 'r' -> out.write('\r');
        case 't' -> out.write('\t');
        case 'v' -> out.write(11);
        case 'x' -> {
          out.write(Integer.parseInt(s.substring(i, i + 2), 16));
          i += 2;
        }
        case 'u', 'U' -> {
          int n = e == 'u' ? 4 : 8;
          int cp = Integer.parseInt(s.substring(i, i + n), 16);
          i += n;
          out.writeBytes(new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8));
        }
        case '0', '1', '2', '3', '4', '5', '6', '7' -> {
          out.write(Integer.parseInt(s.substring(i - 1, i + 2), 8));
          i += 2;
        }
        default -> out.write(e); // \\, \' or \"
      }
    }
    return GoFormat.decodeUtf8(out.toByteArray());
  }

  /**
   * Whether Go 1.19's {@code regexp.Compile("^(?:" + re + ")$")} accepts a matcher regex, and if
   * not, its error, such as {@code error parsing regexp: missing closing ): `^(?:()$`}. RE2/J is
   * a port of Go's {@code regexp/syntax}; the two places where it differs are mended here:
   * {@code (?<name>...)} groups, which Go 1.19 rejects, and an unbalanced {@code )}, which RE2/J
   * reports as an internal error.
   *
   * @param re the regex as written
   * @return null if it compiles, else the message
   */
  static String regexError(String re) {
    String wrapped = "^(?:" + re + ")$";
    try {
      Pattern.compile(wrapped);
    } catch (PatternSyntaxException e) {
      if (e.getDescription().startsWith("regexp/syntax: internal error")) {
        return "error parsing regexp: unexpected ): `" + wrapped + "`";
      }
      return e.getMessage();
    }
    if (hasAngleGroup(re)) {
      return "error parsing regexp: invalid or unsupported Perl syntax: `(?<`";
    }
    return null;
  }

  /** Whether {@code re} has {@code (?<} outside escapes and character classes. */
  private static boolean hasAngleGroup(String re) {
    boolean inClass = false;
    for (int i = 0; i < re.length(); i++) {
      char c = re.charAt(i);
      if (c == '\\') {
        i++;
      } else if (inClass) {
        if (c == ']') {
          inClass = false;
        }
      } else if (c == '[') {
        inClass = true;
        // A ']' right after '[' or '[^' is a literal member.
        if (i + 1 < re.length() && re.charAt(i + 1) == '^') {
          i++;
        }
        if (i + 1 < re.length() && re.charAt(i + 1) == ']') {
          i++;
        }
      } else if (c == '(' && re.startsWith("?<", i + 1)) {
        return true;
      }
    }
    return false;
  }
}
