package io.inferlens.analysis.promql.ast;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The PromQL functions of Prometheus 2.42 with their signatures, as its parser checks them
 * ({@code promql/parser/functions.go} at v2.42.0): argument types, how many trailing arguments
 * may be left out or repeated, and the result type. The native-histogram functions are listed
 * because the 2.42 parser accepts them; over float samples they select nothing.
 */
public enum Function {
  /** {@code abs} */ ABS("abs", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code absent} */ ABSENT("absent", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code absent_over_time} */ ABSENT_OVER_TIME("absent_over_time", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code acos} */ ACOS("acos", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code acosh} */ ACOSH("acosh", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code asin} */ ASIN("asin", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code asinh} */ ASINH("asinh", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code atan} */ ATAN("atan", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code atanh} */ ATANH("atanh", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code avg_over_time} */ AVG_OVER_TIME("avg_over_time", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code ceil} */ CEIL("ceil", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code changes} */ CHANGES("changes", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code clamp} */ CLAMP("clamp", 0, ValueType.VECTOR, ValueType.VECTOR, ValueType.SCALAR, ValueType.SCALAR),
  /** {@code clamp_max} */ CLAMP_MAX("clamp_max", 0, ValueType.VECTOR, ValueType.VECTOR, ValueType.SCALAR),
  /** {@code clamp_min} */ CLAMP_MIN("clamp_min", 0, ValueType.VECTOR, ValueType.VECTOR, ValueType.SCALAR),
  /** {@code cos} */ COS("cos", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code cosh} */ COSH("cosh", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code count_over_time} */ COUNT_OVER_TIME("count_over_time", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code days_in_month} */ DAYS_IN_MONTH("days_in_month", 1, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code day_of_month} */ DAY_OF_MONTH("day_of_month", 1, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code day_of_week} */ DAY_OF_WEEK("day_of_week", 1, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code day_of_year} */ DAY_OF_YEAR("day_of_year", 1, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code deg} */ DEG("deg", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code delta} */ DELTA("delta", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code deriv} */ DERIV("deriv", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code exp} */ EXP("exp", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code floor} */ FLOOR("floor", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code histogram_count} */ HISTOGRAM_COUNT("histogram_count", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code histogram_sum} */ HISTOGRAM_SUM("histogram_sum", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code histogram_fraction} */ HISTOGRAM_FRACTION("histogram_fraction", 0, ValueType.VECTOR, ValueType.SCALAR, ValueType.SCALAR, ValueType.VECTOR),
  /** {@code histogram_quantile} */ HISTOGRAM_QUANTILE("histogram_quantile", 0, ValueType.VECTOR, ValueType.SCALAR, ValueType.VECTOR),
  /** {@code holt_winters} */ HOLT_WINTERS("holt_winters", 0, ValueType.VECTOR, ValueType.MATRIX, ValueType.SCALAR, ValueType.SCALAR),
  /** {@code hour} */ HOUR("hour", 1, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code idelta} */ IDELTA("idelta", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code increase} */ INCREASE("increase", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code irate} */ IRATE("irate", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code label_replace} */ LABEL_REPLACE("label_replace", 0, ValueType.VECTOR, ValueType.VECTOR, ValueType.STRING, ValueType.STRING, ValueType.STRING, ValueType.STRING),
  /** {@code label_join} */ LABEL_JOIN("label_join", -1, ValueType.VECTOR, ValueType.VECTOR, ValueType.STRING, ValueType.STRING, ValueType.STRING),
  /** {@code last_over_time} */ LAST_OVER_TIME("last_over_time", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code ln} */ LN("ln", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code log10} */ LOG10("log10", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code log2} */ LOG2("log2", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code max_over_time} */ MAX_OVER_TIME("max_over_time", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code min_over_time} */ MIN_OVER_TIME("min_over_time", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code minute} */ MINUTE("minute", 1, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code month} */ MONTH("month", 1, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code pi} */ PI("pi", 0, ValueType.SCALAR),
  /** {@code predict_linear} */ PREDICT_LINEAR("predict_linear", 0, ValueType.VECTOR, ValueType.MATRIX, ValueType.SCALAR),
  /** {@code present_over_time} */ PRESENT_OVER_TIME("present_over_time", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code quantile_over_time} */ QUANTILE_OVER_TIME("quantile_over_time", 0, ValueType.VECTOR, ValueType.SCALAR, ValueType.MATRIX),
  /** {@code rad} */ RAD("rad", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code rate} */ RATE("rate", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code resets} */ RESETS("resets", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code round} */ ROUND("round", 1, ValueType.VECTOR, ValueType.VECTOR, ValueType.SCALAR),
  /** {@code scalar} */ SCALAR("scalar", 0, ValueType.SCALAR, ValueType.VECTOR),
  /** {@code sgn} */ SGN("sgn", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code sin} */ SIN("sin", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code sinh} */ SINH("sinh", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code sort} */ SORT("sort", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code sort_desc} */ SORT_DESC("sort_desc", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code sqrt} */ SQRT("sqrt", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code stddev_over_time} */ STDDEV_OVER_TIME("stddev_over_time", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code stdvar_over_time} */ STDVAR_OVER_TIME("stdvar_over_time", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code sum_over_time} */ SUM_OVER_TIME("sum_over_time", 0, ValueType.VECTOR, ValueType.MATRIX),
  /** {@code tan} */ TAN("tan", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code tanh} */ TANH("tanh", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code time} */ TIME("time", 0, ValueType.SCALAR),
  /** {@code timestamp} */ TIMESTAMP("timestamp", 0, ValueType.VECTOR, ValueType.VECTOR),
  /** {@code vector} */ VECTOR("vector", 0, ValueType.VECTOR, ValueType.SCALAR),
  /** {@code year} */ YEAR("year", 1, ValueType.VECTOR, ValueType.VECTOR);

  private static final Map<String, Function> BY_NAME = new HashMap<>();

  static {
    for (Function f : values()) {
      BY_NAME.put(f.promName, f);
    }
  }

  private final String promName;
  private final int variadic;
  private final ValueType returnType;
  private final List<ValueType> argTypes;

  Function(String promName, int variadic, ValueType returnType, ValueType... argTypes) {
    this.promName = promName;
    this.variadic = variadic;
    this.returnType = returnType;
    this.argTypes = List.of(argTypes);
  }

  /**
   * @param name a function name as written in PromQL, case-sensitive
   * @return the function, or null if Prometheus 2.42 has none of that name
   */
  public static Function byName(String name) {
    return BY_NAME.get(name);
  }

  /** @return the name as written in PromQL */
  public String promName() {
    return promName;
  }

  /** @return the declared argument types, in order */
  public List<ValueType> argTypes() {
    return argTypes;
  }

  /**
   * @return 0 if every argument is required; n &gt; 0 if the last n may be left out; -1 if the
   *     last may be repeated any number of times (including zero, as {@code label_join})
   */
  public int variadic() {
    return variadic;
  }

  /** @return the result type */
  public ValueType returnType() {
    return returnType;
  }
}
