package io.inferlens.simulator;

import java.math.BigDecimal;
import java.util.Locale;

/**
 * Number and label formatting of the Prometheus text exposition format (0.0.4), as the exporters
 * that the simulator imitates write it. The formats follow
 * {@code fixtures/tools/fixturelib.py} in the repository:
 * {@link #pyFloat} is prometheus_client's {@code floatToGoString} (vLLM, SGLang), {@link #goFloat}
 * is client_golang's {@code strconv.FormatFloat(f, 'g', -1, 64)} (kafka_exporter), {@link
 * #rustFloat} is Rust's {@code f64} {@code Display} (TGI's metrics-exporter-prometheus).
 */
public final class PromFormat {

  private PromFormat() {}

  /**
   * Formats like prometheus_client: Python {@code repr(float)} ({@code 14.0}, {@code 0.27},
   * {@code 1e-05}), except that values with seven or more integer digits switch to an exponent
   * ({@code 2.27223996e+08}; {@code e+010} from 1e10 on, the client's quirk).
   *
   * @param d any double, including infinities and NaN
   * @return the text prometheus_client would write
   */
  public static String pyFloat(double d) {
    if (d == Double.POSITIVE_INFINITY) {
      return "+Inf";
    }
    if (d == Double.NEGATIVE_INFINITY) {
      return "-Inf";
    }
    if (Double.isNaN(d)) {
      return "NaN";
    }
    String s = pyRepr(d);
    int dot = s.indexOf('.');
    if (d > 0 && dot > 6) {
      String mantissa =
          stripTrailing(s.charAt(0) + "." + s.substring(1, dot) + s.substring(dot + 1));
      return mantissa + "e+0" + (dot - 1);
    }
    return s;
  }

  /** Python's {@code str.rstrip('0.')}. */
  private static String stripTrailing(String s) {
    int end = s.length();
    while (end > 0 && (s.charAt(end - 1) == '0' || s.charAt(end - 1) == '.')) {
      end--;
    }
    return s.substring(0, end);
  }

  /**
   * Python {@code repr(float)}: shortest round-trip digits; fixed notation when the decimal
   * exponent is in [-4, 16), else {@code d.ddde+XX}.
   *
   * @param d a finite double
   * @return the repr text
   */
  static String pyRepr(double d) {
    if (d == 0) {
      return (1 / d < 0) ? "-0.0" : "0.0";
    }
    String sign = d < 0 ? "-" : "";
    Digits dg = digits(Math.abs(d));
    String ds = dg.digits;
    int decpt = dg.pointPos;
    if (decpt > -4 && decpt <= 16) {
      String fixed;
      if (decpt <= 0) {
        fixed = "0." + "0".repeat(-decpt) + ds;
      } else if (decpt >= ds.length()) {
        fixed = ds + "0".repeat(decpt - ds.length()) + ".0";
      } else {
        fixed = ds.substring(0, decpt) + "." + ds.substring(decpt);
      }
      return sign + fixed;
    }
    int exp = decpt - 1;
    String mant = ds.length() > 1 ? ds.charAt(0) + "." + ds.substring(1) : ds;
    return sign + mant + "e" + (exp < 0 ? "-" : "+")
        + String.format(Locale.ROOT, "%02d", Math.abs(exp));
  }

  /**
   * Formats like client_golang ({@code 'g'}, shortest): {@code 16070}, {@code 1.910858e+06},
   * {@code -1}; exponent when the decimal exponent is below -4 or at least 6.
   *
   * @param f any double
   * @return the text a Go exporter would write
   */
  public static String goFloat(double f) {
    if (Double.isNaN(f)) {
      return "NaN";
    }
    if (f == Double.POSITIVE_INFINITY) {
      return "+Inf";
    }
    if (f == Double.NEGATIVE_INFINITY) {
      return "-Inf";
    }
    if (f == 0) {
      return "0";
    }
    String sign = f < 0 ? "-" : "";
    Digits dg = digits(Math.abs(f));
    String ds = dg.digits;
    int dp = dg.pointPos;
    int x = dp - 1;
    if (x < -4 || x >= 6) {
      String mant = ds.length() > 1 ? ds.charAt(0) + "." + ds.substring(1) : ds;
      return sign + mant + "e" + (x >= 0 ? "+" : "-")
          + String.format(Locale.ROOT, "%02d", Math.abs(x));
    }
    String fixed;
    if (dp <= 0) {
      fixed = "0." + "0".repeat(-dp) + ds;
    } else if (dp >= ds.length()) {
      fixed = ds + "0".repeat(dp - ds.length());
    } else {
      fixed = ds.substring(0, dp) + "." + ds.substring(dp);
    }
    return sign + fixed;
  }

  /**
   * Formats like Rust's {@code Display} for {@code f64}, as metrics-exporter-prometheus writes
   * gauges, sums and bounds (TGI): shortest round-trip digits, always fixed notation, no
   * {@code .0} on whole numbers ({@code 23}, {@code 0.00015000000000000001}, {@code 0}). As
   * {@code rust_f64} in {@code fixtures/tools/fixturelib.py}.
   *
   * @param f a finite double
   * @return the text Rust would write
   * @throws IllegalArgumentException for NaN or an infinity (the exporter never writes them here)
   */
  public static String rustFloat(double f) {
    if (Double.isNaN(f) || Double.isInfinite(f)) {
      throw new IllegalArgumentException("not finite: " + f);
    }
    if (f == 0) {
      return "0";
    }
    String sign = f < 0 ? "-" : "";
    Digits dg = digits(Math.abs(f));
    String ds = dg.digits;
    int dp = dg.pointPos;
    if (dp <= 0) {
      return sign + "0." + "0".repeat(-dp) + ds;
    }
    if (dp >= ds.length()) {
      return sign + ds + "0".repeat(dp - ds.length());
    }
    return sign + ds.substring(0, dp) + "." + ds.substring(dp);
  }

  /** Shortest round-trip decimal digits of a positive finite double and the point position. */
  private record Digits(String digits, int pointPos) {}

  private static Digits digits(double positive) {
    if (positive < 1e15 && positive == Math.rint(positive)) {
      String ds = Long.toString((long) positive);
      int len = ds.length();
      int end = len;
      while (end > 1 && ds.charAt(end - 1) == '0') {
        end--;
      }
      return new Digits(ds.substring(0, end), len);
    }
    // Shortest precision whose correctly rounded %e text parses back to the same double. Java 17's
    // Double.toString is not always shortest (JDK-4511638), so search explicitly.
    String e = null;
    for (int p = 1; p <= 17; p++) {
      String candidate = String.format(Locale.ROOT, "%." + (p - 1) + "e", positive);
      if (Double.parseDouble(candidate) == positive) {
        e = candidate;
        break;
      }
    }
    if (e == null) {
      e = String.format(Locale.ROOT, "%.16e", positive);
    }
    int ePos = e.indexOf('e');
    BigDecimal mant = new BigDecimal(e.substring(0, ePos));
    int exp = Integer.parseInt(e.substring(ePos + 1));
    String ds = mant.unscaledValue().toString();
    // strip trailing zeros of the digit string
    int end = ds.length();
    while (end > 1 && ds.charAt(end - 1) == '0') {
      end--;
    }
    ds = ds.substring(0, end);
    return new Digits(ds, exp + 1);
  }

  /**
   * Escapes a label value: backslash, double quote and newline, as the text format requires.
   *
   * @param v the raw value
   * @return the escaped value (without the surrounding quotes)
   */
  public static String escape(String v) {
    return v.replace("\\", "\\\\").replace("\n", "\\n").replace("\"", "\\\"");
  }
}
