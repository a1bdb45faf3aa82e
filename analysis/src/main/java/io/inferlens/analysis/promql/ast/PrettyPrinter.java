package io.inferlens.analysis.promql.ast;

/**
 * The multi-line form of an expression that Prometheus 2.42's {@code /api/v1/format_query}
 * answers ({@code expr.Pretty(0)}, {@code promql/parser/prettier.go} at v2.42.0). A node whose
 * one-line form ({@link Printer#print}) is longer than 100 bytes is split: aggregations and
 * calls put each argument on its own line, binary operations put the operator on a line between
 * their operands, parentheses put the inner expression on its own line; each level is indented
 * by two spaces. Selectors and literals are never split.
 *
 * <p>Prometheus's quirks are kept: a subquery short enough not to split is printed without its
 * indent, and a unary operation is printed on the line of its operand.
 *
 * <p>Thread safety: stateless.
 */
public final class PrettyPrinter {

  /** Prometheus's {@code maxCharactersPerLine}, counted in UTF-8 bytes as Go's {@code len}. */
  static final int MAX_LINE = 100;

  private PrettyPrinter() {}

  /**
   * @param e an expression
   * @return its prettified text, lines separated by {@code \n}, no trailing newline
   */
  public static String pretty(Expr e) {
    return LargeStack.call(() -> pretty(e, 0));
  }

  private static String pretty(Expr e, int level) {
    String indent = "  ".repeat(level);
    if (e instanceof Expr.Aggregate a) {
      if (!needsSplit(e)) {
        return indent + Printer.print(e);
      }
      StringBuilder sb = new StringBuilder(indent).append(Printer.aggregateHead(a)).append("(\n");
      if (a.param() != null) {
        sb.append(pretty(a.param(), level + 1)).append(",\n");
      }
      return sb.append(pretty(a.expr(), level + 1)).append('\n').append(indent).append(')')
          .toString();
    }
    if (e instanceof Expr.Binary b) {
      if (!needsSplit(e)) {
        return indent + Printer.print(e);
      }
      return pretty(b.lhs(), level + 1) + "\n" + indent + Printer.operator(b) + "\n"
          + pretty(b.rhs(), level + 1);
    }
    if (e instanceof Expr.Call c) {
      if (!needsSplit(e)) {
        return indent + Printer.print(e);
      }
      StringBuilder sb = new StringBuilder(indent).append(c.function().promName()).append("(\n");
      for (int i = 0; i < c.args().size(); i++) {
        if (i > 0) {
          sb.append(",\n");
        }
        sb.append(pretty(c.args().get(i), level + 1));
      }
      return sb.append('\n').append(indent).append(')').toString();
    }
    if (e instanceof Expr.Paren p) {
      if (!needsSplit(e)) {
        return indent + Printer.print(e);
      }
      return indent + "(\n" + pretty(p.expr(), level + 1) + "\n" + indent + ")";
    }
    if (e instanceof Expr.Subquery q) {
      if (!needsSplit(e)) {
        // No indent here: prettier.go returns e.String() alone.
        return Printer.print(e);
      }
      String whole = Printer.print(e);
      String inner = Printer.print(q.expr());
      return pretty(q.expr(), level) + whole.substring(inner.length());
    }
    if (e instanceof Expr.Unary u) {
      String child = pretty(u.expr(), level).strip();
      return indent + (u.negate() ? "-" : "+") + child;
    }
    // Selectors and literals: one line at the indent.
    return indent + Printer.print(e);
  }

  private static boolean needsSplit(Expr e) {
    return GoFormat.utf8Length(Printer.print(e)) > MAX_LINE;
  }
}
