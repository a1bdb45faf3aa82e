package io.inferlens.analysis.promql.ast;

import io.inferlens.storage.Matcher;
import java.util.List;
import java.util.Objects;

/**
 * A parsed PromQL expression: the abstract syntax tree of Prometheus 2.x
 * ({@code promql/parser/ast.go}), as immutable records. Durations, offsets and {@code @}
 * timestamps are milliseconds; {@link #toString()} prints the expression back as PromQL on one
 * line, as Prometheus's {@code String()} ({@link Printer#print}); {@link Printer#pretty} gives
 * the form {@code /api/v1/format_query} answers.
 *
 * <p>The parser ({@code io.inferlens.analysis.promql.parse.Parser}) builds only well-typed trees:
 * every node's {@link #type()} is what its parent expects.
 */
public sealed interface Expr {

  /** @return what this expression evaluates to */
  ValueType type();

  /**
   * {@code @} modifier of a selector or subquery.
   *
   * @param kind which evaluation time to pin
   * @param timestampMs for {@link Kind#TIMESTAMP}, the pinned time in milliseconds; else 0
   */
  record At(Kind kind, long timestampMs) {
    /** What {@code @} pins the evaluation time to. */
    public enum Kind {
      /** {@code @ 1609746000}: a fixed time */
      TIMESTAMP,
      /** {@code @ start()}: the query's start */
      START,
      /** {@code @ end()}: the query's end */
      END
    }

    /**
     * @param startMs query start, milliseconds
     * @param endMs query end, milliseconds
     * @return the pinned time, milliseconds
     */
    public long resolve(long startMs, long endMs) {
      return switch (kind) {
        case TIMESTAMP -> timestampMs;
        case START -> startMs;
        case END -> endMs;
      };
    }
  }

  /**
   * A number literal: {@code 1}, {@code 0x1f}, {@code 1e3}, {@code Inf}, {@code NaN}; also a
   * duration used as a number is not allowed in 2.42, so none appears here.
   *
   * @param value the value
   */
  record NumberLiteral(double value) implements Expr {
    @Override
    public ValueType type() {
      return ValueType.SCALAR;
    }

    @Override
    public String toString() {
      return Printer.print(this);
    }
  }

  /**
   * A string literal, unquoted and unescaped.
   *
   * @param value the string
   */
  record StringLiteral(String value) implements Expr {
    /** @throws NullPointerException if {@code value} is null */
    public StringLiteral {
      Objects.requireNonNull(value, "value");
    }

    @Override
    public ValueType type() {
      return ValueType.STRING;
    }

    @Override
    public String toString() {
      return Printer.print(this);
    }
  }

  /**
   * An instant selector {@code name{matchers} offset d @ t}.
   *
   * @param name the metric name written before the braces, or null if none was written
   * @param matchers every matcher, including {@code __name__="name"} when a name was written (as
   *     Prometheus does), in the order written with the name's matcher first
   * @param offsetMs the offset, milliseconds; negative looks forward
   * @param at the {@code @} modifier, or null
   */
  record VectorSelector(String name, List<Matcher> matchers, long offsetMs, At at)
      implements Expr {
    /** Copies the matcher list. */
    public VectorSelector {
      matchers = List.copyOf(matchers);
    }

    @Override
    public ValueType type() {
      return ValueType.VECTOR;
    }

    @Override
    public String toString() {
      return Printer.print(this);
    }
  }

  /**
   * A range selector {@code selector[range]}; offset and {@code @} belong to the selector.
   *
   * @param selector the instant selector
   * @param rangeMs the range, milliseconds, positive
   */
  record MatrixSelector(VectorSelector selector, long rangeMs) implements Expr {
    @Override
    public ValueType type() {
      return ValueType.MATRIX;
    }

    @Override
    public String toString() {
      return Printer.print(this);
    }
  }

  /**
   * A subquery {@code expr[range:step] offset d @ t}.
   *
   * @param expr the inner expression, an instant vector
   * @param rangeMs the range, milliseconds, positive
   * @param stepMs the step, milliseconds; 0 if omitted (the engine's default step is used)
   * @param offsetMs the offset, milliseconds
   * @param at the {@code @} modifier, or null
   */
  record Subquery(Expr expr, long rangeMs, long stepMs, long offsetMs, At at) implements Expr {
    @Override
    public ValueType type() {
      return ValueType.MATRIX;
    }

    @Override
    public String toString() {
      return Printer.print(this);
    }
  }

  /**
   * Unary minus or plus. Prometheus folds {@code -1} into a literal; this parser does too.
   *
   * @param negate true for {@code -}, false for {@code +}
   * @param expr the operand, scalar or instant vector
   */
  record Unary(boolean negate, Expr expr) implements Expr {
    @Override
    public ValueType type() {
      return expr.type();
    }

    @Override
    public String toString() {
      return Printer.print(this);
    }
  }

  /**
   * How the two sides of a vector-vector binary operation are paired.
   *
   * @param card the cardinality
   * @param on true for {@code on(labels)}, false for {@code ignoring(labels)} (or no clause)
   * @param labels the labels of {@code on} or {@code ignoring}
   * @param include the extra labels of {@code group_left(...)} or {@code group_right(...)}
   */
  record VectorMatching(Cardinality card, boolean on, List<String> labels, List<String> include) {
    /** Copies the lists. */
    public VectorMatching {
      labels = List.copyOf(labels);
      include = List.copyOf(include);
    }

    /** Matching cardinality. */
    public enum Cardinality {
      /** one-to-one, no group modifier */
      ONE_TO_ONE,
      /** {@code group_left}: many on the left to one on the right */
      MANY_TO_ONE,
      /** {@code group_right}: one on the left to many on the right */
      ONE_TO_MANY,
      /** set operators {@code and}, {@code or}, {@code unless} */
      MANY_TO_MANY
    }
  }

  /**
   * A binary operation.
   *
   * @param op the operator
   * @param lhs left operand
   * @param rhs right operand
   * @param returnBool the {@code bool} modifier of a comparison
   * @param matching vector matching when both sides are instant vectors; null otherwise
   */
  record Binary(BinaryOp op, Expr lhs, Expr rhs, boolean returnBool, VectorMatching matching)
      implements Expr {
    @Override
    public ValueType type() {
      return lhs.type() == ValueType.SCALAR && rhs.type() == ValueType.SCALAR
          ? ValueType.SCALAR : ValueType.VECTOR;
    }

    @Override
    public String toString() {
      return Printer.print(this);
    }
  }

  /**
   * An aggregation {@code op by|without (grouping) (param, expr)}.
   *
   * @param op the operator
   * @param expr the aggregated instant vector
   * @param param the parameter of topk, bottomk, quantile, count_values; null for the others
   * @param grouping the labels of {@code by} or {@code without}
   * @param without true for {@code without}, false for {@code by} (or no clause)
   */
  record Aggregate(AggregationOp op, Expr expr, Expr param, List<String> grouping, boolean without)
      implements Expr {
    /** Copies the grouping list. */
    public Aggregate {
      grouping = List.copyOf(grouping);
    }

    @Override
    public ValueType type() {
      return ValueType.VECTOR;
    }

    @Override
    public String toString() {
      return Printer.print(this);
    }
  }

  /**
   * A function call, its arguments type-checked against the function's signature.
   *
   * @param function the function
   * @param args the arguments, in order
   */
  record Call(Function function, List<Expr> args) implements Expr {
    /** Copies the argument list. */
    public Call {
      args = List.copyOf(args);
    }

    @Override
    public ValueType type() {
      return function.returnType();
    }

    @Override
    public String toString() {
      return Printer.print(this);
    }
  }

  /**
   * Parentheses, kept so printing gives back what was written.
   *
   * @param expr the inner expression
   */
  record Paren(Expr expr) implements Expr {
    @Override
    public ValueType type() {
      return expr.type();
    }

    @Override
    public String toString() {
      return Printer.print(this);
    }
  }
}
