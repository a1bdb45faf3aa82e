package io.inferlens.analysis.promql.ast;

import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import java.util.ArrayList;
import java.util.List;

/**
 * Prints an expression back as PromQL on one line, the way Prometheus 2.42's {@code String()}
 * methods in {@code promql/parser/printer.go} do: selector matchers sorted (by bytes) and joined
 * by {@code ,}, {@code @} before {@code offset}, durations in Prometheus's {@code model.Duration}
 * form ({@code 1h30m}), number literals as Go's {@code %v} ({@code 1e+06}, {@code +Inf},
 * {@code NaN}), strings as Go's {@code %q}. {@link #pretty(Expr)} gives the multi-line form of
 * {@code /api/v1/format_query}.
 */
public final class Printer {

  private Printer() {}

  /**
   * @param e an expression
   * @return its one-line PromQL text (Prometheus's {@code String()})
   */
  public static String print(Expr e) {
    return LargeStack.call(() -> {
      StringBuilder sb = new StringBuilder();
      print(e, sb);
      return sb.toString();
    });
  }

  /**
   * @param e an expression
   * @return its text as {@code /api/v1/format_query} gives it (Prometheus's
   *     {@code Pretty(0)}): lines longer than 100 bytes split, two-space indents
   * @see PrettyPrinter
   */
  public static String pretty(Expr e) {
    return PrettyPrinter.pretty(e);
  }

  private static void print(Expr e, StringBuilder sb) {
    if (e instanceof Expr.NumberLiteral n) {
      sb.append(GoFormat.formatFloat(n.value()));
    } else if (e instanceof Expr.StringLiteral s) {
      sb.append(quote(s.value()));
    } else if (e instanceof Expr.VectorSelector v) {
      selectorBody(v, sb);
      atAndOffset(v.at(), v.offsetMs(), sb);
    } else if (e instanceof Expr.MatrixSelector m) {
      selectorBody(m.selector(), sb);
      sb.append('[').append(duration(m.rangeMs())).append(']');
      atAndOffset(m.selector().at(), m.selector().offsetMs(), sb);
    } else if (e instanceof Expr.Subquery q) {
      print(q.expr(), sb);
      sb.append('[').append(duration(q.rangeMs())).append(':');
      if (q.stepMs() > 0) {
        sb.append(duration(q.stepMs()));
      }
      sb.append(']');
      atAndOffset(q.at(), q.offsetMs(), sb);
    } else if (e instanceof Expr.Unary u) {
      sb.append(u.negate() ? '-' : '+');
      print(u.expr(), sb);
    } else if (e instanceof Expr.Binary b) {
      binary(b, sb);
    } else if (e instanceof Expr.Aggregate a) {
      sb.append(aggregateHead(a)).append('(');
      if (a.param() != null) {
        print(a.param(), sb);
        sb.append(", ");
      }
      print(a.expr(), sb);
      sb.append(')');
    } else if (e instanceof Expr.Call c) {
      sb.append(c.function().promName()).append('(');
      for (int i = 0; i < c.args().size(); i++) {
        if (i > 0) {
          sb.append(", ");
        }
        print(c.args().get(i), sb);
      }
      sb.append(')');
    } else if (e instanceof Expr.Paren p) {
      sb.append('(');
      print(p.expr(), sb);
      sb.append(')');
    } else {
      throw new IllegalArgumentException("unknown expression node " + e.getClass());
    }
  }

  /**
   * @param a an aggregation
   * @return its operator and grouping, such as {@code sum by (job) } with the trailing space
   *     (Prometheus's {@code getAggOpStr})
   */
  static String aggregateHead(Expr.Aggregate a) {
    if (a.without()) {
      return a.op().text() + " without (" + String.join(", ", a.grouping()) + ") ";
    }
    if (!a.grouping().isEmpty()) {
      return a.op().text() + " by (" + String.join(", ", a.grouping()) + ") ";
    }
    return a.op().text();
  }

  /**
   * @param b a binary operation
   * @return its operator with {@code bool} and the matching clause, such as
   *     {@code + on (job) group_left ()}
   */
  static String operator(Expr.Binary b) {
    StringBuilder sb = new StringBuilder(b.op().text());
    if (b.returnBool()) {
      sb.append(" bool");
    }
    Expr.VectorMatching vm = b.matching();
    if (vm != null && (vm.on() || !vm.labels().isEmpty())) {
      sb.append(vm.on() ? " on (" : " ignoring (").append(String.join(", ", vm.labels()))
          .append(')');
      if (vm.card() == Expr.VectorMatching.Cardinality.MANY_TO_ONE
          || vm.card() == Expr.VectorMatching.Cardinality.ONE_TO_MANY) {
        sb.append(vm.card() == Expr.VectorMatching.Cardinality.MANY_TO_ONE
            ? " group_left (" : " group_right (")
            .append(String.join(", ", vm.include())).append(')');
      }
    }
    return sb.toString();
  }

  private static void binary(Expr.Binary b, StringBuilder sb) {
    print(b.lhs(), sb);
    sb.append(' ').append(operator(b)).append(' ');
    print(b.rhs(), sb);
  }

  private static void selectorBody(Expr.VectorSelector v, StringBuilder sb) {
    List<String> parts = new ArrayList<>();
    for (Matcher m : v.matchers()) {
      if (m.name().equals(LabelSet.METRIC_NAME) && m.type() == Matcher.Type.EQ
          && v.name() != null && m.value().equals(v.name())) {
        continue;
      }
      parts.add(m.name() + m.type().op() + quote(m.value()));
    }
    if (v.name() != null) {
      sb.append(v.name());
    }
    if (!parts.isEmpty()) {
      parts.sort(GoFormat::compareUtf8);
      sb.append('{').append(String.join(",", parts)).append('}');
    }
  }

  private static void atAndOffset(Expr.At at, long offsetMs, StringBuilder sb) {
    if (at != null) {
      switch (at.kind()) {
        case TIMESTAMP -> sb.append(" @ ")
            .append(GoFormat.formatFixed(at.timestampMs() / 1000.0, 3));
        case START -> sb.append(" @ start()");
        case END -> sb.append(" @ end()");
      }
    }
    if (offsetMs > 0) {
      sb.append(" offset ").append(duration(offsetMs));
    } else if (offsetMs < 0) {
      sb.append(" offset -").append(duration(-offsetMs));
    }
  }

  /**
   * Formats a number as Go's {@code strconv.FormatFloat(v, 'f', -1, 64)} for finite values, and
   * {@code +Inf}, {@code -Inf}, {@code NaN} otherwise.
   *
   * @param v the value
   * @return its text
   */
  public static String number(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    if (Double.isInfinite(v)) {
      return v > 0 ? "+Inf" : "-Inf";
    }
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return new java.math.BigDecimal(Double.toString(v)).stripTrailingZeros().toPlainString();
  }

  /**
   * Formats a duration as Prometheus's {@code model.Duration.String()} (prometheus/common
   * v0.39 {@code model/time.go}): the largest units first, {@code y} (365 d) and {@code w} only
   * when they divide the whole duration ({@code 1y}, {@code 2w}, but {@code 15d},
   * {@code 382d4h}), then {@code d}, {@code h}, {@code m}, {@code s}, {@code ms}; zero units
   * left out, {@code 0s} for zero.
   *
   * @param ms the duration, milliseconds, not negative
   * @return its text, such as {@code 1h30m}
   */
  public static String duration(long ms) {
    if (ms == 0) {
      return "0s";
    }
    long[] units = {365L * 86_400_000, 7L * 86_400_000, 86_400_000, 3_600_000, 60_000, 1_000, 1};
    String[] names = {"y", "w", "d", "h", "m", "s", "ms"};
    StringBuilder sb = new StringBuilder();
    long rest = ms;
    for (int i = 0; i < units.length; i++) {
      if (i < 2 && rest % units[i] != 0) {
        continue;
      }
      long n = rest / units[i];
      if (n > 0) {
        sb.append(n).append(names[i]);
        rest -= n * units[i];
      }
    }
    return sb.toString();
  }

  /**
   * Quotes a string as Go's {@code strconv.Quote} ({@link GoFormat#quote}).
   *
   * @param s the string
   * @return the quoted text
   */
  public static String quote(String s) {
    return GoFormat.quote(s);
  }
}
