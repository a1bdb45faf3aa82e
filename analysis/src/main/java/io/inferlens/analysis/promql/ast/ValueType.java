package io.inferlens.analysis.promql.ast;

/**
 * The four PromQL value types (Prometheus {@code promql/parser/value.go}): what an expression
 * evaluates to, checked by the parser for function arguments and operators.
 */
public enum ValueType {
  /** A single float, {@code 1}, {@code scalar(v)}, {@code time()}. */
  SCALAR("scalar"),
  /** A string literal; only as a function argument or a top-level query. */
  STRING("string"),
  /** An instant vector: a set of series with one sample each at the evaluation time. */
  VECTOR("instant vector"),
  /** A range vector: a set of series with the samples of a range each. */
  MATRIX("range vector");

  private final String promName;

  ValueType(String promName) {
    this.promName = promName;
  }

  /** @return the name Prometheus uses in error messages, such as {@code "instant vector"} */
  public String promName() {
    return promName;
  }

  /** @return the name used in the HTTP API's {@code resultType}: scalar, string, vector, matrix */
  public String apiName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
