package io.inferlens.analysis.promql.engine;

import io.inferlens.analysis.promql.ast.Expr;
import io.inferlens.analysis.promql.ast.Function;
import io.inferlens.analysis.promql.ast.Printer;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Querier;
import io.inferlens.storage.Resolution;
import io.inferlens.storage.RollupColumn;
import io.inferlens.storage.RollupSeries;
import io.inferlens.storage.StorageException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Functions of a range selector served from the store's rollups when a query sets
 * {@code max_source_resolution} (the name Thanos uses) to 5m or 1h. A window {@code x[d]} at
 * reference time {@code t} (the step time, or the {@code @} time, minus the offset) is the
 * rollup intervals starting in {@code [t - d, t - R]}: the raw samples in {@code [t - d, t)}.
 * Served, with {@code R} the resolution:
 *
 * <ul>
 *   <li>{@code count_over_time}, {@code sum_over_time}, {@code min_over_time},
 *       {@code max_over_time}, {@code avg_over_time} (sum / count), {@code last_over_time},
 *       {@code present_over_time}: the same values raw samples in {@code [t - d, t)} give;
 *   <li>{@code increase}: the counter increase of those samples plus the step from the sample
 *       before them (the last of the adjacent earlier interval), reset-aware, without
 *       Prometheus's extrapolation to the window's edges; {@code rate} is that divided by
 *       {@code d} in seconds. Windows laid end to end add up to the counter's whole increase.
 *       {@code histogram_quantile} over summed bucket rates follows.
 * </ul>
 *
 * Anything else answers {@code bad_data} naming what cannot be served: other functions,
 * subqueries, instant selectors outside these functions, and a range, offset, {@code @} time,
 * step or evaluation time that is not a multiple of {@code R}. Stale markers are not counted in
 * rollups. Times in milliseconds.
 */
final class RollupFunctions {

  private static final Set<Function> SERVED = EnumSet.of(Function.RATE, Function.INCREASE,
      Function.SUM_OVER_TIME, Function.COUNT_OVER_TIME, Function.MIN_OVER_TIME,
      Function.MAX_OVER_TIME, Function.AVG_OVER_TIME, Function.LAST_OVER_TIME,
      Function.PRESENT_OVER_TIME);

  private RollupFunctions() {}

  /** @return the parameter's text, such as {@code 5m} */
  static String name(Resolution r) {
    return Printer.duration(r.intervalMs());
  }

  static QueryException refuse(Resolution r, String what) {
    return new QueryException(QueryException.Kind.BAD_DATA,
        "max_source_resolution=" + name(r) + " cannot serve " + what + "; rollups serve "
            + "rate, increase and count/sum/min/max/avg/last/present_over_time of a selector "
            + "whose range, offset and step are multiples of " + name(r)
            + " (drop max_source_resolution to read raw samples)");
  }

  static void requireMultiple(Resolution r, long ms, String what) {
    if (Math.floorMod(ms, r.intervalMs()) != 0) {
      throw refuse(r, what + " " + Printer.duration(Math.abs(ms)) + ", not a multiple of "
          + name(r));
    }
  }

  /**
   * @param refTimes the reference time of each step, milliseconds
   * @param stepTimes the step times the output points take, milliseconds
   * @return one series per selected series with at least one value, name dropped except for
   *     {@code last_over_time}
   * @throws QueryException {@code BAD_DATA} for what rollups cannot serve
   */
  static List<PointSeries> evaluate(Querier querier, SampleBudget budget, Resolution r,
      Function f, Expr m, long[] refTimes, long[] stepTimes) {
    if (!(m instanceof Expr.MatrixSelector ms)) {
      throw refuse(r, "a subquery (" + m + ")");
    }
    if (!SERVED.contains(f)) {
      throw refuse(r, f.promName() + "()");
    }
    requireMultiple(r, ms.rangeMs(), "the range of " + ms);
    for (long t : refTimes) {
      requireMultiple(r, t, "the evaluation time (step, offset or @) of " + ms + " at");
    }
    long res = r.intervalMs();
    long first = refTimes.length == 0 ? 0 : refTimes[0];
    long last = first;
    for (long t : refTimes) {
      first = Math.min(first, t);
      last = Math.max(last, t);
    }
    Set<RollupColumn> columns = columns(f);
    List<RollupSeries> series;
    try {
      // One interval more before the first window: increase takes the step into it. The end is
      // the last window's last millisecond, which bounds raw samples of unfinalized windows.
      series = querier.selectRollups(ms.selector().matchers(), first - ms.rangeMs() - res,
          last - 1, r, columns);
    } catch (StorageException e) {
      throw new QueryException(QueryException.Kind.INTERNAL,
          "reading rollups failed: " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new QueryException(QueryException.Kind.BAD_DATA, e.getMessage(), e);
    }
    long held = 0;
    for (RollupSeries s : series) {
      held += s.size();
    }
    budget.take(held);
    List<PointSeries> out = new ArrayList<>();
    double seconds = ms.rangeMs() / 1000.0;
    for (RollupSeries s : series) {
      PointSeries ps = null;
      int lo = 0;
      int hi = 0;
      long[] starts = s.startsMs();
      for (int k = 0; k < refTimes.length; k++) {
        budget.checkDeadline();
        long from = refTimes[k] - ms.rangeMs();
        long to = refTimes[k] - res;
        while (lo < starts.length && starts[lo] < from) {
          lo++;
        }
        if (hi < lo) {
          hi = lo;
        }
        while (hi < starts.length && starts[hi] <= to) {
          hi++;
        }
        if (hi == lo) {
          continue;
        }
        double v = value(f, s, lo, hi, res, seconds);
        if (ps == null) {
          ps = new PointSeries(f == Function.LAST_OVER_TIME ? s.labels()
              : LabelBuilder.dropName(s.labels()), refTimes.length);
        }
        ps.add(stepTimes[k], v);
      }
      if (ps != null) {
        out.add(ps);
      }
    }
    budget.release(held);
    return out;
  }

  private static Set<RollupColumn> columns(Function f) {
    switch (f) {
      case RATE, INCREASE: return EnumSet.of(RollupColumn.FIRST, RollupColumn.LAST,
          RollupColumn.INCREASE);
      case SUM_OVER_TIME, AVG_OVER_TIME: return EnumSet.of(RollupColumn.SUM);
      case MIN_OVER_TIME: return EnumSet.of(RollupColumn.MIN);
      case MAX_OVER_TIME: return EnumSet.of(RollupColumn.MAX);
      case LAST_OVER_TIME: return EnumSet.of(RollupColumn.LAST);
      default: return EnumSet.noneOf(RollupColumn.class);
    }
  }

  /** The function over intervals {@code [lo, hi)}, which hold at least one sample. */
  private static double value(Function f, RollupSeries s, int lo, int hi, long res,
      double seconds) {
    switch (f) {
      case COUNT_OVER_TIME: {
        long n = 0;
        for (int i = lo; i < hi; i++) {
          n += s.counts()[i];
        }
        return n;
      }
      case PRESENT_OVER_TIME: return 1;
      case SUM_OVER_TIME: return sum(s, lo, hi);
      case AVG_OVER_TIME: {
        long n = 0;
        for (int i = lo; i < hi; i++) {
          n += s.counts()[i];
        }
        return sum(s, lo, hi) / n;
      }
      case MIN_OVER_TIME: {
        double m = s.min()[lo];
        for (int i = lo; i < hi; i++) {
          if (s.min()[i] < m || Double.isNaN(m)) {
            m = s.min()[i];
          }
        }
        return m;
      }
      case MAX_OVER_TIME: {
        double m = s.max()[lo];
        for (int i = lo; i < hi; i++) {
          if (s.max()[i] > m || Double.isNaN(m)) {
            m = s.max()[i];
          }
        }
        return m;
      }
      case LAST_OVER_TIME: return s.last()[hi - 1];
      default: {
        double inc = s.counterIncrease(lo, hi);
        if (lo > 0 && s.startsMs()[lo - 1] == s.startsMs()[lo] - res) {
          double step = s.first()[lo] - s.last()[lo - 1];
          inc += step >= 0 ? step : s.first()[lo];
        }
        return f == Function.RATE ? inc / seconds : inc;
      }
    }
  }

  private static double sum(RollupSeries s, int lo, int hi) {
    double sum = 0;
    double c = 0;
    for (int i = lo; i < hi; i++) {
      double x = s.sum()[i];
      double t = sum + x;
      c += Math.abs(sum) >= Math.abs(x) ? (sum - t) + x : (x - t) + sum;
      sum = t;
    }
    return Double.isInfinite(sum) ? sum : sum + c;
  }

  /** @return a name for a label set in an error message */
  static String describe(LabelSet l) {
    return l.toString();
  }
}
