package io.inferlens.analysis.promql.engine;

import io.inferlens.analysis.promql.HistogramQuantile;
import io.inferlens.analysis.promql.ast.Expr;
import io.inferlens.analysis.promql.ast.Function;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;

/**
 * The functions of instant vectors and scalars at one step, as Prometheus 2.42's
 * {@code promql/functions.go}: math functions drop {@code __name__}; {@code sort*},
 * {@code label_replace} and {@code label_join} keep it; date functions read each value as Unix
 * seconds (UTC), or the step time when called without an argument; {@code histogram_quantile}
 * groups classic {@code le} buckets by their other labels ({@link HistogramQuantile#quantile}).
 * The native-histogram functions select nothing from float samples.
 */
final class InstantFunctions {

  private static final LabelSet EMPTY = LabelSet.of();
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  private InstantFunctions() {}

  /**
   * @param f the function
   * @param args argument vectors at this step (null for string arguments)
   * @param exprs the argument expressions, parentheses removed (for string constants and
   *     {@code absent}'s labels)
   * @param ts the step time, milliseconds
   * @return the output vector
   * @throws QueryException {@code EXECUTION} for an invalid regex or label name
   */
  static List<Sample> apply(Function f, List<List<Sample>> args, List<Expr> exprs, long ts) {
    switch (f) {
      case ABS: return map(args, ts, Math::abs);
      case CEIL: return map(args, ts, Math::ceil);
      case FLOOR: return map(args, ts, Math::floor);
      case EXP: return map(args, ts, Math::exp);
      case SQRT: return map(args, ts, Math::sqrt);
      case LN: return map(args, ts, Math::log);
      case LOG2: return map(args, ts, x -> Math.log(x) / Math.log(2));
      case LOG10: return map(args, ts, Math::log10);
      case SIN: return map(args, ts, Math::sin);
      case COS: return map(args, ts, Math::cos);
      case TAN: return map(args, ts, Math::tan);
      case ASIN: return map(args, ts, Math::asin);
      case ACOS: return map(args, ts, Math::acos);
      case ATAN: return map(args, ts, Math::atan);
      case SINH: return map(args, ts, Math::sinh);
      case COSH: return map(args, ts, Math::cosh);
      case TANH: return map(args, ts, Math::tanh);
      case ASINH: return map(args, ts, x -> Double.isInfinite(x) ? x
          : Math.log(x + Math.sqrt(x * x + 1)));
      case ACOSH: return map(args, ts, x -> x < 1 ? Double.NaN
          : Math.log(x + Math.sqrt(x * x - 1)));
      case ATANH: return map(args, ts, x -> 0.5 * Math.log((1 + x) / (1 - x)));
      case DEG: return map(args, ts, x -> x * 180 / Math.PI);
      case RAD: return map(args, ts, x -> x * Math.PI / 180);
      case SGN: return map(args, ts, x -> x > 0 ? 1 : x < 0 ? -1 : x);
      case ROUND: {
        double toNearest = args.size() > 1 ? args.get(1).get(0).value() : 1;
        double inverse = 1.0 / toNearest;
        return map(args, ts, x -> Math.floor(x * inverse + 0.5) / inverse);
      }
      case CLAMP: {
        double min = args.get(1).get(0).value();
        double max = args.get(2).get(0).value();
        if (max < min) {
          return List.of();
        }
        return map(args, ts, x -> Math.max(min, Math.min(max, x)));
      }
      case CLAMP_MAX: {
        double max = args.get(1).get(0).value();
        return map(args, ts, x -> Math.min(max, x));
      }
      case CLAMP_MIN: {
        double min = args.get(1).get(0).value();
        return map(args, ts, x -> Math.max(min, x));
      }
      case TIMESTAMP: {
        List<Sample> out = new ArrayList<>();
        for (Sample s : args.get(0)) {
          out.add(new Sample(LabelBuilder.dropName(s.labels()), ts, s.timestampMs() / 1000.0));
        }
        return out;
      }
      case VECTOR: return List.of(new Sample(EMPTY, ts, args.get(0).get(0).value()));
      case SCALAR: {
        List<Sample> v = args.get(0);
        return List.of(new Sample(EMPTY, ts, v.size() == 1 ? v.get(0).value() : Double.NaN));
      }
      case TIME: return List.of(new Sample(EMPTY, ts, ts / 1000.0));
      case PI: return List.of(new Sample(EMPTY, ts, Math.PI));
      case SORT: return sorted(args.get(0), false);
      case SORT_DESC: return sorted(args.get(0), true);
      case ABSENT:
        return args.get(0).isEmpty()
            ? List.of(new Sample(absentLabels(exprs.get(0)), ts, 1)) : List.of();
      case LABEL_REPLACE: return labelReplace(args.get(0), exprs);
      case LABEL_JOIN: return labelJoin(args.get(0), exprs);
      case HISTOGRAM_QUANTILE:
        return histogramQuantile(args.get(0).get(0).value(), args.get(1), ts);
      case HISTOGRAM_COUNT, HISTOGRAM_SUM, HISTOGRAM_FRACTION: return List.of();
      case DAY_OF_MONTH: return date(args, ts, d -> d.getDayOfMonth());
      case DAY_OF_WEEK: return date(args, ts, d -> d.getDayOfWeek().getValue() % 7);
      case DAY_OF_YEAR: return date(args, ts, d -> d.getDayOfYear());
      case DAYS_IN_MONTH: return date(args, ts, d -> d.toLocalDate().lengthOfMonth());
      case HOUR: return date(args, ts, d -> d.getHour());
      case MINUTE: return date(args, ts, d -> d.getMinute());
      case MONTH: return date(args, ts, d -> d.getMonthValue());
      case YEAR: return date(args, ts, d -> d.getYear());
      default:
        throw new IllegalArgumentException(f.promName() + " takes a range vector");
    }
  }

  private static List<Sample> map(List<List<Sample>> args, long ts, DoubleUnaryOperator op) {
    List<Sample> in = args.get(0);
    List<Sample> out = new ArrayList<>(in.size());
    for (Sample s : in) {
      out.add(new Sample(LabelBuilder.dropName(s.labels()), ts, op.applyAsDouble(s.value())));
    }
    return out;
  }

  /**
   * 2.42's {@code sort}/{@code sort_desc}: by value, NaN at the bottom in both (they sort the
   * reverse order with NaN first, then reverse it).
   */
  private static List<Sample> sorted(List<Sample> in, boolean descending) {
    List<Sample> out = new ArrayList<>(in);
    Comparator<Sample> byValue = (a, b) -> {
      boolean an = Double.isNaN(a.value());
      boolean bn = Double.isNaN(b.value());
      if (an || bn) {
        return an == bn ? 0 : an ? 1 : -1;
      }
      return descending ? Double.compare(b.value(), a.value())
          : Double.compare(a.value(), b.value());
    };
    out.sort(byValue);
    return out;
  }

  /** Date functions: each value (or the step time) as Unix seconds, UTC. */
  private static List<Sample> date(List<List<Sample>> args, long ts,
      java.util.function.ToIntFunction<ZonedDateTime> part) {
    if (args.isEmpty()) {
      ZonedDateTime d = Instant.ofEpochMilli(ts).atZone(ZoneOffset.UTC);
      return List.of(new Sample(EMPTY, ts, part.applyAsInt(d)));
    }
    List<Sample> out = new ArrayList<>();
    for (Sample s : args.get(0)) {
      double v = s.value();
      double value;
      if (Double.isNaN(v) || Double.isInfinite(v) || Math.abs(v) > 3e11) {
        value = Double.NaN; // Go's int64 conversion of such values is undefined
      } else {
        ZonedDateTime d = Instant.ofEpochSecond((long) v).atZone(ZoneOffset.UTC);
        value = part.applyAsInt(d);
      }
      out.add(new Sample(LabelBuilder.dropName(s.labels()), ts, value));
    }
    return out;
  }

  /**
   * The labels {@code absent} gives: the selector's equality matchers other than the name, a
   * label matched twice left out (Prometheus {@code createLabelsForAbsentFunction}); none for any
   * other expression.
   */
  static LabelSet absentLabels(Expr e) {
    Expr x = Evaluator.unwrap(e);
    List<Matcher> matchers;
    if (x instanceof Expr.VectorSelector vs) {
      matchers = vs.matchers();
    } else if (x instanceof Expr.MatrixSelector ms) {
      matchers = ms.selector().matchers();
    } else {
      return EMPTY;
    }
    Map<String, String> labels = new LinkedHashMap<>();
    Set<String> has = new HashSet<>();
    for (Matcher m : matchers) {
      if (m.name().equals(LabelSet.METRIC_NAME)) {
        continue;
      }
      if (m.type() == Matcher.Type.EQ && !has.contains(m.name())) {
        labels.put(m.name(), m.value());
        has.add(m.name());
      } else {
        labels.remove(m.name());
      }
    }
    return LabelSet.of(new ArrayList<>(labels.keySet()), new ArrayList<>(labels.values()));
  }

  private static String stringArg(List<Expr> exprs, int i) {
    return ((Expr.StringLiteral) Evaluator.unwrap(exprs.get(i))).value();
  }

  private static List<Sample> labelReplace(List<Sample> in, List<Expr> exprs) {
    String dst = stringArg(exprs, 1);
    String replacement = stringArg(exprs, 2);
    String src = stringArg(exprs, 3);
    String regex = stringArg(exprs, 4);
    Pattern p;
    try {
      // RE2 syntax and linear-time matching, as Go's regexp that Prometheus uses
      p = Pattern.compile("^(?:" + regex + ")$", Pattern.DOTALL);
    } catch (PatternSyntaxException ex) {
      throw QueryException.execution("invalid regular expression in label_replace(): %s", regex);
    }
    if (!LABEL_NAME.matcher(dst).matches()) {
      throw QueryException.execution("invalid destination label name in label_replace(): %s",
          dst);
    }
    List<Sample> out = new ArrayList<>(in.size());
    for (Sample s : in) {
      String value = s.labels().get(src);
      com.google.re2j.Matcher m = p.matcher(value == null ? "" : value);
      if (!m.matches()) {
        out.add(s);
        continue;
      }
      String result = GoTemplate.expand(replacement, m);
      out.add(new Sample(new LabelBuilder(s.labels()).set(dst, result).build(), s.timestampMs(),
          s.value()));
    }
    return out;
  }

  private static List<Sample> labelJoin(List<Sample> in, List<Expr> exprs) {
    String dst = stringArg(exprs, 1);
    String sep = stringArg(exprs, 2);
    List<String> srcs = new ArrayList<>();
    for (int i = 3; i < exprs.size(); i++) {
      String src = stringArg(exprs, i);
      if (!LABEL_NAME.matcher(src).matches()) {
        throw QueryException.execution("invalid source label name in label_join(): %s", src);
      }
      srcs.add(src);
    }
    if (!LABEL_NAME.matcher(dst).matches()) {
      throw QueryException.execution("invalid destination label name in label_join(): %s", dst);
    }
    List<Sample> out = new ArrayList<>(in.size());
    for (Sample s : in) {
      StringBuilder sb = new StringBuilder();
      for (int i = 0; i < srcs.size(); i++) {
        if (i > 0) {
          sb.append(sep);
        }
        String v = s.labels().get(srcs.get(i));
        sb.append(v == null ? "" : v);
      }
      out.add(new Sample(new LabelBuilder(s.labels()).set(dst, sb.toString()).build(),
          s.timestampMs(), s.value()));
    }
    return out;
  }

  /**
   * 2.42 {@code funcHistogramQuantile} over classic buckets: samples grouped by all labels but
   * {@code le} (the name included, so two histograms stay apart), output without {@code le} and
   * the name; a sample whose {@code le} does not parse is skipped.
   */
  private static List<Sample> histogramQuantile(double q, List<Sample> in, long ts) {
    Map<List<String>, LabelSet> metrics = new LinkedHashMap<>();
    Map<List<String>, List<HistogramQuantile.Bucket>> buckets = new LinkedHashMap<>();
    for (Sample s : in) {
      OptionalDouble upper = HistogramQuantile.parseUpperBound(s.labels().get(HistogramQuantile.LE));
      if (upper.isEmpty()) {
        continue;
      }
      List<String> key = new ArrayList<>();
      for (int i = 0; i < s.labels().size(); i++) {
        if (!s.labels().name(i).equals(HistogramQuantile.LE)) {
          key.add(s.labels().name(i));
          key.add(s.labels().value(i));
        }
      }
      metrics.computeIfAbsent(key, k -> new LabelBuilder(s.labels())
          .del(HistogramQuantile.LE).del(LabelSet.METRIC_NAME).build());
      buckets.computeIfAbsent(key, k -> new ArrayList<>())
          .add(new HistogramQuantile.Bucket(upper.getAsDouble(), s.value()));
    }
    List<Sample> out = new ArrayList<>(metrics.size());
    for (Map.Entry<List<String>, LabelSet> e : metrics.entrySet()) {
      out.add(new Sample(e.getValue(), ts, HistogramQuantile.quantile(q, buckets.get(e.getKey()))));
    }
    return out;
  }
}
