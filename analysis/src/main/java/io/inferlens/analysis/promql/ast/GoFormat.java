package io.inferlens.analysis.promql.ast;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * The text forms of Go's {@code fmt} and {@code strconv} that Prometheus's PromQL printer and
 * parser error messages are made of: {@code %q} of strings and runes, {@code %#U}, {@code %v} and
 * {@code %.Nf} of floats, and byte (UTF-8) lengths. Rules are Go 1.19's (the Go of Debian's
 * Prometheus 2.42 build), Unicode classes those of Java 17 (Unicode 13, as Go 1.19).
 *
 * <p>Thread safety: stateless.
 */
public final class GoFormat {

  private GoFormat() {}

  /**
   * Go's {@code strconv.Quote}: double quotes; {@code \a \b \f \n \r \t \v \\ \"} escapes;
   * {@code \xNN} for other control characters; {@code \\uNNNN} or {@code \UNNNNNNNN} for other
   * characters that are not printable ({@link #isPrint}).
   *
   * @param s the string; U+DC80..U+DCFF alone stand for raw bytes ({@link #decodeUtf8}) and are
   *     quoted as {@code \xNN}, any other lone surrogate as U+FFFD
   * @return the quoted text
   */
  public static String quote(String s) {
    StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      escape(cp, '"', sb);
    }
    return sb.append('"').toString();
  }

  /**
   * Go's {@code strconv.QuoteRune} ({@code %q} of a rune): {@code 'x'}, {@code '\''},
   * {@code '\n'}; -1 (Go's end of input) and surrogates print as {@code '�'}.
   *
   * @param cp a code point, or -1
   * @return the quoted rune
   */
  public static String quoteRune(int cp) {
    StringBuilder sb = new StringBuilder("'");
    escape(cp, '\'', sb);
    return sb.append('\'').toString();
  }

  /**
   * Go's {@code %#U}: {@code U+0063 'c'}, or only {@code U+000A} when not printable.
   *
   * @param cp a code point
   * @return the text
   */
  public static String unicodeSharp(int cp) {
    String hex = String.format("U+%04X", cp);
    return isPrint(cp) ? hex + " '" + new String(Character.toChars(cp)) + "'" : hex;
  }

  private static void escape(int cp, char quote, StringBuilder sb) {
    if (isRawByte(cp)) {
      sb.append(String.format("\\x%02x", cp - 0xDC00));
      return;
    }
    if (cp < 0 || cp > Character.MAX_CODE_POINT
        || (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE)) {
      cp = 0xFFFD;
    }
    if (cp == quote || cp == '\\') {
      sb.append('\\').appendCodePoint(cp);
      return;
    }
    if (isPrint(cp)) {
      sb.appendCodePoint(cp);
      return;
    }
    switch (cp) {
      case 7 -> sb.append("\\a");
      case '\b' -> sb.append("\\b");
      case '\f' -> sb.append("\\f");
      case '\n' -> sb.append("\\n");
      case '\r' -> sb.append("\\r");
      case '\t' -> sb.append("\\t");
      case 11 -> sb.append("\\v");
      default -> {
        if (cp < ' ' || cp == 0x7f) {
          sb.append(String.format("\\x%02x", cp));
        } else if (cp < 0x10000) {
          sb.append(String.format("\\u%04x", cp));
        } else {
          sb.append(String.format("\\U%08x", cp));
        }
      }
    }
  }

  /**
   * Go's {@code unicode.IsPrint}: letters, marks, numbers, punctuation, symbols, and the ASCII
   * space.
   *
   * @param cp a code point
   * @return whether Go prints it as itself inside quotes
   */
  public static boolean isPrint(int cp) {
    if (cp < 0x80) {
      return cp >= 0x20 && cp < 0x7f;
    }
    switch (Character.getType(cp)) {
      case Character.UPPERCASE_LETTER, Character.LOWERCASE_LETTER, Character.TITLECASE_LETTER,
          Character.MODIFIER_LETTER, Character.OTHER_LETTER, Character.NON_SPACING_MARK,
          Character.ENCLOSING_MARK, Character.COMBINING_SPACING_MARK,
          Character.DECIMAL_DIGIT_NUMBER, Character.LETTER_NUMBER, Character.OTHER_NUMBER,
          Character.CONNECTOR_PUNCTUATION, Character.DASH_PUNCTUATION,
          Character.START_PUNCTUATION, Character.END_PUNCTUATION,
          Character.INITIAL_QUOTE_PUNCTUATION, Character.FINAL_QUOTE_PUNCTUATION,
          Character.OTHER_PUNCTUATION, Character.MATH_SYMBOL, Character.CURRENCY_SYMBOL,
          Character.MODIFIER_SYMBOL, Character.OTHER_SYMBOL:
        return true;
      default:
        return false;
    }
  }

  /**
   * Go's {@code %v} of a float64 ({@code strconv.FormatFloat(v, 'g', -1, 64)}): the shortest
   * digits that read back as {@code v}, in exponent form ({@code 1e+06}, {@code 1.5e-05}) when
   * the decimal exponent is below -4 or at least 6 (Go's "shortest" precision rule, 6 digits
   * of exponent threshold), else plain ({@code 100000}, {@code 0.0001}); {@code +Inf},
   * {@code -Inf}, {@code NaN}; {@code -0} for negative zero.
   *
   * @param v the value
   * @return its text
   */
  public static String formatFloat(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    String sign = (v < 0 || (v == 0 && 1 / v < 0)) ? "-" : "";
    if (v == 0) {
      return sign + "0";
    }
    BigDecimal d = shortest(Math.abs(v));
    String digits = d.unscaledValue().toString();
    // Value = 0.digits × 10^pointPos, so the exponent of the first digit is pointPos - 1.
    int pointPos = digits.length() - d.scale();
    int exp = pointPos - 1;
    StringBuilder sb = new StringBuilder(sign);
    if (exp < -4 || exp >= 6) {
      appendExponent(sb, digits, exp);
    } else if (pointPos <= 0) {
      sb.append("0.").append("0".repeat(-pointPos)).append(digits);
    } else if (pointPos >= digits.length()) {
      sb.append(digits).append("0".repeat(pointPos - digits.length()));
    } else {
      sb.append(digits, 0, pointPos).append('.').append(digits, pointPos, digits.length());
    }
    return sb.toString();
  }

  /**
   * Go's {@code strconv.FormatFloat(v, 'e', -1, 64)}, as Prometheus's alerts API writes an
   * alert's value (web/api/v1/api.go): the shortest digits that read back as {@code v}, always
   * in exponent form with at least two exponent digits ({@code 2.5e+00}, {@code 1e-03},
   * {@code 0e+00}); {@code +Inf}, {@code -Inf}, {@code NaN}.
   *
   * @param v the value
   * @return its text
   */
  public static String formatExponent(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    StringBuilder sb = new StringBuilder((v < 0 || (v == 0 && 1 / v < 0)) ? "-" : "");
    if (v == 0) {
      return sb.append("0e+00").toString();
    }
    BigDecimal d = shortest(Math.abs(v));
    String digits = d.unscaledValue().toString();
    appendExponent(sb, digits, digits.length() - d.scale() - 1);
    return sb.toString();
  }

  /** Appends {@code d.ddd e±XX}: the digits with the point after the first, Go's exponent. */
  private static void appendExponent(StringBuilder sb, String digits, int exp) {
    sb.append(digits.charAt(0));
    if (digits.length() > 1) {
      sb.append('.').append(digits, 1, digits.length());
    }
    sb.append('e').append(exp < 0 ? '-' : '+');
    int a = Math.abs(exp);
    if (a < 10) {
      sb.append('0');
    }
    sb.append(a);
  }

  /** The shortest decimal that reads back as {@code v} (> 0), nearest to it among equals. */
  private static BigDecimal shortest(double v) {
    BigDecimal exact = new BigDecimal(v);
    for (int p = 1; p <= 17; p++) {
      BigDecimal best = null;
      for (RoundingMode mode : new RoundingMode[] {RoundingMode.HALF_EVEN, RoundingMode.FLOOR,
          RoundingMode.CEILING}) {
        BigDecimal c = exact.round(new MathContext(p, mode));
        if (c.doubleValue() == v && (best == null
            || c.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0)) {
          best = c;
        }
      }
      if (best != null) {
        return best.stripTrailingZeros();
      }
    }
    return exact.stripTrailingZeros();
  }

  /**
   * Go's {@code %.Nf}: the exact binary value rounded half to even to {@code places} decimals;
   * {@code +Inf}, {@code -Inf}, {@code NaN}.
   *
   * @param v the value
   * @param places decimals, at least 0
   * @return its text
   */
  public static String formatFixed(double v, int places) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    String s = new BigDecimal(v).setScale(places, RoundingMode.HALF_EVEN).toPlainString();
    boolean negZero = v == 0 && 1 / v < 0;
    return negZero || (v < 0 && !s.startsWith("-")) ? "-" + s : s;
  }

  /**
   * @param s a string
   * @return its length in UTF-8 bytes, as Go's {@code len} (a lone surrogate counts 3, as the
   *     U+FFFD Go would hold)
   */
  public static int utf8Length(CharSequence s) {
    return utf8Length(s, 0, s.length());
  }

  /**
   * @param s a string
   * @param from first char index
   * @param to end char index, exclusive
   * @return the UTF-8 length of {@code s[from, to)}
   */
  public static int utf8Length(CharSequence s, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n += 1;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < to
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else if (isRawByte(c)) {
        n += 1;
      } else {
        n += 3;
      }
    }
    return n;
  }

  /**
   * Compares two strings by their UTF-8 bytes, as Go's {@code sort.Strings} orders them.
   *
   * @param a one string
   * @param b the other
   * @return negative, zero or positive as {@code a} sorts before, with or after {@code b}
   */
  public static int compareUtf8(String a, String b) {
    return java.util.Arrays.compareUnsigned(encodeUtf8(a), encodeUtf8(b));
  }

  /** Whether {@code cp} is a lone surrogate standing for a raw byte 0x80..0xFF. */
  private static boolean isRawByte(int cp) {
    return cp >= 0xDC80 && cp <= 0xDCFF;
  }

  /**
   * The bytes Go would hold for {@code s}: UTF-8, with U+DC80..U+DCFF alone as the raw byte
   * they stand for.
   *
   * @param s a string
   * @return its bytes
   */
  public static byte[] encodeUtf8(String s) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(s.length() + 8);
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      if (isRawByte(cp)) {
        out.write(cp - 0xDC00);
      } else {
        if (cp >= Character.MIN_SURROGATE && cp <= Character.MAX_SURROGATE) {
          cp = 0xFFFD;
        }
        out.writeBytes(new String(Character.toChars(cp))
            .getBytes(java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    return out.toByteArray();
  }

  /**
   * Decodes bytes as Go reads a string: valid UTF-8 (Go's {@code utf8.DecodeRune} rules: no
   * overlong forms, no surrogates, at most U+10FFFF) as its characters, and each other byte
   * 0x80..0xFF alone as U+DC80..U+DCFF.
   *
   * @param b the bytes
   * @return the string
   */
  public static String decodeUtf8(byte[] b) {
    StringBuilder sb = new StringBuilder(b.length);
    int i = 0;
    while (i < b.length) {
      int c = b[i] & 0xff;
      int need;
      int cp;
      int lo = 0x80;
      int hi = 0xBF;
      if (c < 0x80) {
        sb.append((char) c);
        i++;
        continue;
      } else if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
        cp = c & 0x1F;
      } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        cp = c & 0x0F;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
      } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        cp = c & 0x07;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
      } else {
        sb.append((char) (0xDC00 + c));
        i++;
        continue;
      }
      boolean ok = i + need < b.length;
      for (int k = 1; ok && k <= need; k++) {
        int cc = b[i + k] & 0xff;
        if (cc < (k == 1 ? lo : 0x80) || cc > (k == 1 ? hi : 0xBF)) {
          ok = false;
        } else {
          cp = (cp << 6) | (cc & 0x3F);
        }
      }
      if (ok) {
        sb.appendCodePoint(cp);
        i += need + 1;
      } else {
        sb.append((char) (0xDC00 + c));
        i++;
      }
    }
    return sb.toString();
  }
}
