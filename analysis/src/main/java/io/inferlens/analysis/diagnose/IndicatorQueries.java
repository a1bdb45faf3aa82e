package io.inferlens.analysis.diagnose;

import io.inferlens.analysis.catalog.Aggregation;
import io.inferlens.analysis.catalog.MetricSource;
import io.inferlens.analysis.catalog.SourceKind;
import io.inferlens.analysis.promql.ast.AggregationOp;
import io.inferlens.analysis.promql.ast.BinaryOp;
import io.inferlens.analysis.promql.ast.Expr;
import io.inferlens.analysis.promql.ast.Function;
import io.inferlens.analysis.target.ResolvedSignal;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import java.util.List;

/**
 * The one formula of each indicator: a PromQL expression templated with the target's matchers,
 * which the analysis evaluates with the PromQL engine and shows as evidence, so a user can paste
 * it into Grafana and get the same numbers. Per source kind ({@link SourceKind}), with {@code w}
 * the rate window and {@code M} the target's matchers:
 *
 * <ul>
 *   <li>latency quantile q of a histogram:
 *       {@code histogram_quantile(q, sum by (le) (rate(x_bucket{M}[w])))};
 *   <li>mean of a histogram (tokens per request):
 *       {@code sum(rate(x_sum{M}[w])) / (sum(rate(x_count{M}[w])) > 0)};
 *   <li>counter: {@code sum(rate(x{M}[w]))}; with denominators
 *       {@code sum(rate(x{M}[w])) / (sum(rate(d{M}[w])) > 0)};
 *   <li>gauge: {@code sum|avg|max(x{M})}, values the catalog ignores filtered first
 *       ({@code x{M} != -1});
 *   <li>ratio of gauges: {@code sum(x{M}) / ((sum(d1{M}) + sum(d2{M})) > 0)};
 *   <li>a source scale other than 1 multiplies the whole: {@code (…) * 1e-06};
 *   <li>a signal with a {@link ResolvedSignal#fallback() fallback} (the deprecated name of an
 *       engine upgraded in place) is {@code formula(new) or formula(old)}: the old name's value
 *       only at steps where the new one has none (PromQL {@code or} of two label-less results).
 * </ul>
 *
 * A zero denominator gives no value (the {@code > 0} filter), never ±Inf. Over rollups
 * ({@link #ofRollups}) gauges are read per interval first.
 */
public final class IndicatorQueries {

  private IndicatorQueries() {}

  /**
   * @param rs the target's resolved signal
   * @param ind one of the indicators the signal feeds
   * @param rateWindowMs the rate window, milliseconds, &gt; 0
   * @return the expression, of type instant vector, giving at most one series
   */
  public static Expr of(ResolvedSignal rs, Indicator ind, long rateWindowMs) {
    return of(rs, ind, rateWindowMs, null, 0);
  }

  /**
   * The formula over rollups ({@code max_source_resolution}): counters and histograms as
   * {@link #of(ResolvedSignal, Indicator, long)} with a window of whole intervals; gauges read
   * per series over one interval first, {@code agg(avg_over_time(x{M}[R]))} for
   * {@link RollupEvaluator.GaugeReading#MEAN} or {@code agg(last_over_time(x{M}[R]))} for
   * {@link RollupEvaluator.GaugeReading#LAST}.
   *
   * @param rs the target's resolved signal
   * @param ind one of its indicators
   * @param windowMs the rate window, a multiple of {@code intervalMs}, milliseconds
   * @param reading how a gauge's interval is read
   * @param intervalMs the rollup interval, milliseconds
   * @return the expression, of type instant vector, giving at most one series
   */
  public static Expr ofRollups(ResolvedSignal rs, Indicator ind, long windowMs,
      RollupEvaluator.GaugeReading reading, long intervalMs) {
    return of(rs, ind, windowMs, reading, intervalMs);
  }

  private static Expr of(ResolvedSignal rs, Indicator ind, long rateWindowMs,
      RollupEvaluator.GaugeReading reading, long intervalMs) {
    Expr e = single(rs, ind, rateWindowMs, reading, intervalMs);
    if (rs.fallback() == null) {
      return e;
    }
    return new Expr.Binary(BinaryOp.OR, e,
        single(rs.fallback(), ind, rateWindowMs, reading, intervalMs), false,
        new Expr.VectorMatching(Expr.VectorMatching.Cardinality.MANY_TO_MANY, false, List.of(),
            List.of()));
  }

  /** The formula of one source, without its fallback. */
  private static Expr single(ResolvedSignal rs, Indicator ind, long rateWindowMs,
      RollupEvaluator.GaugeReading reading, long intervalMs) {
    MetricSource src = rs.source();
    Expr e;
    switch (src.kind()) {
      case HISTOGRAM:
        if (ind.isLatency()) {
          Expr rates = aggregate(AggregationOp.SUM, List.of("le"),
              rate(rs.selector(src.bucketName()), rateWindowMs));
          e = new Expr.Call(Function.HISTOGRAM_QUANTILE, List.of(
              new Expr.NumberLiteral(IndicatorEvaluator.quantileOf(ind)), rates));
        } else {
          e = ratio(sumRate(rs.selector(src.sumName()), rateWindowMs),
              sumRate(rs.selector(src.countName()), rateWindowMs));
        }
        break;
      case COUNTER: {
        Expr num = sumRate(rs.matchers(), rateWindowMs);
        if (src.denominators().isEmpty()) {
          e = num;
        } else {
          Expr den = null;
          for (List<Matcher> sel : rs.denominatorSelectors()) {
            Expr d = sumRate(sel, rateWindowMs);
            den = den == null ? d : binary(BinaryOp.ADD, den, d);
          }
          e = ratio(num, den);
        }
        break;
      }
      case GAUGE_RATIO: {
        Expr den = null;
        for (List<Matcher> sel : rs.denominatorSelectors()) {
          Expr d = aggregate(AggregationOp.SUM, List.of(), gauge(sel, src, reading, intervalMs));
          den = den == null ? d : binary(BinaryOp.ADD, den, d);
        }
        e = ratio(aggregate(AggregationOp.SUM, List.of(), gauge(rs.matchers(), src, reading, intervalMs)), den);
        break;
      }
      default:
        e = aggregate(op(src.aggregation()), List.of(), gauge(rs.matchers(), src, reading, intervalMs));
    }
    if (src.scale() != 1.0) {
      e = binary(BinaryOp.MUL, new Expr.Paren(e), new Expr.NumberLiteral(src.scale()));
    }
    return e;
  }

  /**
   * @param rs the target's resolved signal
   * @param ind one of its indicators
   * @param rateWindowMs the rate window, milliseconds
   * @return {@link #of} as PromQL text, as {@code /api/v1/query} takes it
   */
  public static String text(ResolvedSignal rs, Indicator ind, long rateWindowMs) {
    return of(rs, ind, rateWindowMs).toString();
  }

  private static AggregationOp op(Aggregation a) {
    switch (a) {
      case AVG: return AggregationOp.AVG;
      case MAX: return AggregationOp.MAX;
      default: return AggregationOp.SUM;
    }
  }

  private static Expr.VectorSelector selector(List<Matcher> matchers) {
    String name = null;
    for (Matcher m : matchers) {
      if (m.name().equals(LabelSet.METRIC_NAME) && m.type() == Matcher.Type.EQ) {
        name = m.value();
      }
    }
    return new Expr.VectorSelector(name, matchers, 0, null);
  }

  /**
   * A gauge's selector (or its interval reading over rollups), with the catalog's ignored values
   * filtered out.
   */
  private static Expr gauge(List<Matcher> matchers, MetricSource src,
      RollupEvaluator.GaugeReading reading, long intervalMs) {
    Expr e = selector(matchers);
    if (reading != null) {
      e = new Expr.Call(reading == RollupEvaluator.GaugeReading.LAST ? Function.LAST_OVER_TIME
          : Function.AVG_OVER_TIME, List.of(new Expr.MatrixSelector((Expr.VectorSelector) e,
          intervalMs)));
    }
    for (double ignored : src.ignoredValues()) {
      e = binary(BinaryOp.NEQ, e, new Expr.NumberLiteral(ignored));
    }
    return e;
  }

  private static Expr rate(List<Matcher> matchers, long windowMs) {
    return new Expr.Call(Function.RATE,
        List.of(new Expr.MatrixSelector(selector(matchers), windowMs)));
  }

  private static Expr sumRate(List<Matcher> matchers, long windowMs) {
    return aggregate(AggregationOp.SUM, List.of(), rate(matchers, windowMs));
  }

  private static Expr aggregate(AggregationOp op, List<String> by, Expr e) {
    return new Expr.Aggregate(op, e, null, by, false);
  }

  /** {@code num / (den > 0)}: no value where the denominator is zero. */
  private static Expr ratio(Expr num, Expr den) {
    Expr positive = new Expr.Paren(binary(BinaryOp.GTR, den, new Expr.NumberLiteral(0)));
    return binary(BinaryOp.DIV, num, positive);
  }

  private static Expr binary(BinaryOp op, Expr l, Expr r) {
    Expr.VectorMatching m = l.type() == io.inferlens.analysis.promql.ast.ValueType.VECTOR
        && r.type() == io.inferlens.analysis.promql.ast.ValueType.VECTOR
        ? new Expr.VectorMatching(Expr.VectorMatching.Cardinality.ONE_TO_ONE, false, List.of(),
            List.of())
        : null;
    return new Expr.Binary(op, l, r, false, m);
  }
}
