package io.inferlens.analysis.promql.ast;

/**
 * PromQL aggregation operators (Prometheus {@code promql/parser/lex.go}). Those with a parameter
 * take it as the first argument: {@code topk(3, x)}, {@code quantile(0.9, x)},
 * {@code count_values("le", x)}.
 */
public enum AggregationOp {
  /** {@code sum} */ SUM(null),
  /** {@code avg} */ AVG(null),
  /** {@code min} */ MIN(null),
  /** {@code max} */ MAX(null),
  /** {@code count} */ COUNT(null),
  /** {@code group} */ GROUP(null),
  /** {@code stddev}, population standard deviation */ STDDEV(null),
  /** {@code stdvar}, population variance */ STDVAR(null),
  /** {@code topk(k, v)} */ TOPK(ValueType.SCALAR),
  /** {@code bottomk(k, v)} */ BOTTOMK(ValueType.SCALAR),
  /** {@code quantile(φ, v)} */ QUANTILE(ValueType.SCALAR),
  /** {@code count_values("label", v)} */ COUNT_VALUES(ValueType.STRING);

  private final ValueType paramType;

  AggregationOp(ValueType paramType) {
    this.paramType = paramType;
  }

  /** @return the PromQL keyword, such as {@code count_values} */
  public String text() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /** @return the type of the parameter, or null if the operator takes none */
  public ValueType paramType() {
    return paramType;
  }
}
