package io.inferlens.analysis.promql.ast;

/**
 * PromQL binary operators with their precedence (Prometheus {@code promql/parser/lex.go},
 * {@code ItemType.Precedence}): {@code ^} binds tightest and is right-associative; {@code or}
 * binds loosest.
 */
public enum BinaryOp {
  /** {@code +} */ ADD("+", 4, false, false),
  /** {@code -} */ SUB("-", 4, false, false),
  /** {@code *} */ MUL("*", 5, false, false),
  /** {@code /} */ DIV("/", 5, false, false),
  /** {@code %} */ MOD("%", 5, false, false),
  /** {@code ^}, right-associative */ POW("^", 6, false, false),
  /** {@code atan2} */ ATAN2("atan2", 5, false, false),
  /** {@code ==} */ EQL("==", 3, true, false),
  /** {@code !=} */ NEQ("!=", 3, true, false),
  /** {@code >} */ GTR(">", 3, true, false),
  /** {@code <} */ LSS("<", 3, true, false),
  /** {@code >=} */ GTE(">=", 3, true, false),
  /** {@code <=} */ LTE("<=", 3, true, false),
  /** {@code and} */ AND("and", 2, false, true),
  /** {@code unless} */ UNLESS("unless", 2, false, true),
  /** {@code or} */ OR("or", 1, false, true);

  private final String text;
  private final int precedence;
  private final boolean comparison;
  private final boolean setOperator;

  BinaryOp(String text, int precedence, boolean comparison, boolean setOperator) {
    this.text = text;
    this.precedence = precedence;
    this.comparison = comparison;
    this.setOperator = setOperator;
  }

  /** @return the operator as written in PromQL */
  public String text() {
    return text;
  }

  /** @return binding strength, 1 ({@code or}) to 6 ({@code ^}) */
  public int precedence() {
    return precedence;
  }

  /** @return whether this is a comparison ({@code ==}, {@code !=}, {@code >}, ...) */
  public boolean isComparison() {
    return comparison;
  }

  /** @return whether this is {@code and}, {@code or} or {@code unless} */
  public boolean isSetOperator() {
    return setOperator;
  }

  /** @return whether {@code a op b op c} groups as {@code a op (b op c)}: only {@code ^} */
  public boolean isRightAssociative() {
    return this == POW;
  }
}
