package io.inferlens.analysis.promql.parse;

import io.inferlens.analysis.promql.ast.AggregationOp;
import io.inferlens.analysis.promql.ast.Expr;
import io.inferlens.analysis.promql.ast.Expr.VectorMatching.Cardinality;
import io.inferlens.analysis.promql.ast.Function;
import io.inferlens.analysis.promql.ast.GoFormat;
import io.inferlens.analysis.promql.ast.ValueType;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import java.util.List;
import java.util.Map;

/**
 * The checks Prometheus makes on a parsed tree before it accepts a query ({@code checkAST} in
 * {@code promql/parser/parse.go} at v2.42.0), in its order, so the first failure is the one
 * Prometheus reports: argument types of functions and aggregations, operand types and modifiers
 * of binary operations, subqueries only over instant vectors, a metric name set only once, and a
 * selector that cannot select every series.
 *
 * <p>Children are checked before their parent, arguments left to right, an aggregation's
 * argument before its parameter.
 */
final class TypeChecker {

  private final String input;
  private final Map<Expr, int[]> spans;
  private final Map<Expr, Expr.VectorMatching> written;

  /**
   * @param input the query, for error positions
   * @param spans start and end (char indices) of every node
   * @param written the matching clause of every binary operation as written
   */
  TypeChecker(String input, Map<Expr, int[]> spans, Map<Expr, Expr.VectorMatching> written) {
    this.input = input;
    this.spans = spans;
    this.written = written;
  }

  /**
   * @param e the parsed tree
   * @throws ParseException at the first check that fails
   */
  void check(Expr e) {
    type(e);
  }

  private ParseException error(int pos, String detail) {
    return new ParseException(input, pos, detail);
  }

  private int start(Expr e) {
    return spans.get(e)[0];
  }

  private void expect(Expr e, ValueType want, String context) {
    ValueType t = type(e);
    if (t != want) {
      throw error(start(e), "expected type " + want.promName() + " in " + context + ", got "
          + t.promName());
    }
  }

  /** Checks {@code e} and its children; returns its type. */
  private ValueType type(Expr e) {
    if (e instanceof Expr.Aggregate a) {
      expect(a.expr(), ValueType.VECTOR, "aggregation expression");
      if (a.op() == AggregationOp.TOPK || a.op() == AggregationOp.BOTTOMK
          || a.op() == AggregationOp.QUANTILE) {
        expect(a.param(), ValueType.SCALAR, "aggregation parameter");
      } else if (a.op() == AggregationOp.COUNT_VALUES) {
        expect(a.param(), ValueType.STRING, "aggregation parameter");
      }
    } else if (e instanceof Expr.Binary b) {
      return binary(b);
    } else if (e instanceof Expr.Call c) {
      call(c);
    } else if (e instanceof Expr.Paren p) {
      return type(p.expr());
    } else if (e instanceof Expr.Unary u) {
      ValueType t = type(u.expr());
      if (t != ValueType.SCALAR && t != ValueType.VECTOR) {
        throw error(start(u), "unary expression only allowed on expressions of type scalar or "
            + "instant vector, got " + GoFormat.quote(t.promName()));
      }
      return t;
    } else if (e instanceof Expr.Subquery q) {
      ValueType t = type(q.expr());
      if (t != ValueType.VECTOR) {
        throw error(start(q), "subquery is only allowed on instant vector, got " + t.apiName()
            + " instead");
      }
    } else if (e instanceof Expr.MatrixSelector m) {
      type(m.selector());
    } else if (e instanceof Expr.VectorSelector v) {
      selector(v);
    }
    // The remaining kinds know their type without walking down.
    return e.type();
  }

  /** Checks a binary operation; returns its type. */
  private ValueType binary(Expr.Binary b) {
    ValueType lt = type(b.lhs());
    ValueType rt = type(b.rhs());
    Expr.VectorMatching vm = written.get(b);
    if (b.returnBool() && !b.op().isComparison()) {
      throw error(operatorStart(b), "bool modifier can only be used on comparison operators");
    }
    if (b.op().isComparison() && !b.returnBool() && lt == ValueType.SCALAR
        && rt == ValueType.SCALAR) {
      throw error(operatorStart(b), "comparisons between scalars must use BOOL modifier");
    }
    Cardinality card = vm.card();
    if (b.op().isSetOperator() && card == Cardinality.ONE_TO_ONE) {
      card = Cardinality.MANY_TO_MANY;
    }
    if (vm.on()) {
      for (String l1 : vm.labels()) {
        if (vm.include().contains(l1)) {
          throw error(operatorStart(b),
              "label " + GoFormat.quote(l1) + " must not occur in ON and GROUP clause at once");
        }
      }
    }
    String mixed = "binary expression must contain only scalar and instant vector types";
    if (lt != ValueType.SCALAR && lt != ValueType.VECTOR) {
      throw error(start(b.lhs()), mixed);
    }
    if (rt != ValueType.SCALAR && rt != ValueType.VECTOR) {
      throw error(start(b.rhs()), mixed);
    }
    String op = GoFormat.quote(b.op().text());
    if (lt != ValueType.VECTOR || rt != ValueType.VECTOR) {
      if (!vm.labels().isEmpty()) {
        throw error(start(b), "vector matching only allowed between instant vectors");
      }
    } else if (b.op().isSetOperator()) {
      if (card == Cardinality.ONE_TO_MANY || card == Cardinality.MANY_TO_ONE) {
        throw error(start(b), "no grouping allowed for " + op + " operation");
      }
    }
    if ((lt == ValueType.SCALAR || rt == ValueType.SCALAR) && b.op().isSetOperator()) {
      throw error(start(b), "set operator " + op + " not allowed in binary scalar expression");
    }
    return lt == ValueType.SCALAR && rt == ValueType.SCALAR ? ValueType.SCALAR : ValueType.VECTOR;
  }

  /** Where the operator of {@code b} starts: the first non-space after its left operand. */
  private int operatorStart(Expr.Binary b) {
    int i = spans.get(b.lhs())[1];
    while (i < input.length() && Lexer.isSpace(input.charAt(i))) {
      i++;
    }
    return i;
  }

  private void call(Expr.Call c) {
    Function f = c.function();
    List<ValueType> argTypes = f.argTypes();
    int n = c.args().size();
    String name = GoFormat.quote(f.promName());
    if (f.variadic() == 0) {
      if (argTypes.size() != n) {
        throw error(start(c), "expected " + argTypes.size() + " argument(s) in call to " + name
            + ", got " + n);
      }
    } else {
      int required = argTypes.size() - 1;
      if (required > n) {
        throw error(start(c), "expected at least " + required + " argument(s) in call to "
            + name + ", got " + n);
      }
      if (f.variadic() > 0 && required + f.variadic() < n) {
        throw error(start(c), "expected at most " + (required + f.variadic())
            + " argument(s) in call to " + name + ", got " + n);
      }
    }
    for (int i = 0; i < n; i++) {
      int t = i;
      if (t >= argTypes.size()) {
        if (f.variadic() == 0) {
          break;
        }
        t = argTypes.size() - 1;
      }
      expect(c.args().get(i), argTypes.get(t), "call to function " + name);
    }
  }

  private void selector(Expr.VectorSelector v) {
    List<Matcher> ms = v.matchers();
    if (v.name() != null) {
      // The first matcher is the one of the name written before the braces.
      for (Matcher m : ms.subList(1, ms.size())) {
        if (m.name().equals(LabelSet.METRIC_NAME)) {
          throw error(start(v), "metric name must not be set twice: " + GoFormat.quote(v.name())
              + " or " + GoFormat.quote(m.value()));
        }
      }
      return;
    }
    for (Matcher m : ms) {
      if (!m.matchesEmpty()) {
        return;
      }
    }
    throw error(start(v), "vector selector must contain at least one non-empty matcher");
  }
}
