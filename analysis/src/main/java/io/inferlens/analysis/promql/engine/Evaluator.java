package io.inferlens.analysis.promql.engine;

import io.inferlens.analysis.promql.StaleMarker;
import io.inferlens.analysis.promql.ast.Expr;
import io.inferlens.analysis.promql.ast.Function;
import io.inferlens.analysis.promql.ast.ValueType;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.Querier;
import io.inferlens.storage.Series;
import io.inferlens.storage.StorageException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Evaluates an expression at every step {@code start, start + interval, ..., end}, the way
 * Prometheus 2.42's {@code evaluator} does ({@code promql/engine.go}): every scalar or
 * instant-vector node gives a matrix whose points sit at the step times; binary operators,
 * aggregations and instant functions run step by step over their arguments' vectors
 * ({@link #rangeEval}); functions of a range vector slide a window {@code [t - range, t]} (both
 * ends inclusive, as 2.42) over each series. Instant selectors take the newest sample in
 * {@code [t - lookback, t]} unless it is a stale marker. Offsets and {@code @} shift the reference
 * time of a selector or subquery; {@code @ start()} and {@code @ end()} are the outer query's.
 *
 * <p>One evaluator serves one query (or one subquery level) on one thread. Times in milliseconds.
 */
final class Evaluator {

  private static final LabelSet EMPTY = LabelSet.of();

  private final Querier querier;
  private final EngineOptions options;
  private final SampleBudget budget;
  private final long queryStartMs;
  private final long queryEndMs;
  private final long startMs;
  private final long intervalMs;
  private final io.inferlens.storage.Resolution rollups;
  private final int steps;

  /**
   * @param querier where selectors read samples
   * @param options lookback and default subquery step
   * @param budget the query's sample limit and deadline
   * @param queryStartMs the outer query's start, for {@code @ start()}
   * @param queryEndMs the outer query's end, for {@code @ end()}
   * @param startMs first step, milliseconds
   * @param endMs last step (inclusive if on the grid), milliseconds, &ge; {@code startMs}
   * @param intervalMs step, milliseconds, &gt; 0
   */
  Evaluator(Querier querier, EngineOptions options, SampleBudget budget, long queryStartMs,
      long queryEndMs, long startMs, long endMs, long intervalMs) {
    this(querier, options, budget, queryStartMs, queryEndMs, startMs, endMs, intervalMs, null);
  }

  /**
   * As the other constructor, reading rollups for the functions they serve.
   *
   * @param rollups the {@code max_source_resolution}, or null to read raw samples only
   */
  Evaluator(Querier querier, EngineOptions options, SampleBudget budget, long queryStartMs,
      long queryEndMs, long startMs, long endMs, long intervalMs,
      io.inferlens.storage.Resolution rollups) {
    this.rollups = rollups;
    this.querier = querier;
    this.options = options;
    this.budget = budget;
    this.queryStartMs = queryStartMs;
    this.queryEndMs = queryEndMs;
    this.startMs = startMs;
    this.intervalMs = intervalMs;
    long n = endMs < startMs ? 0 : (endMs - startMs) / intervalMs + 1;
    // A subquery such as x[1y:1ms] asks for billions of steps: each step is a point held, so the
    // sample limit bounds them before anything is allocated.
    budget.checkSteps(n);
    this.steps = (int) n;
  }

  /** @return how many steps this evaluator runs */
  int steps() {
    return steps;
  }

  private long stepTime(int k) {
    return startMs + k * intervalMs;
  }

  /**
   * Evaluates a scalar or instant-vector expression at every step.
   *
   * @param e the expression, of type scalar or instant vector
   * @return one series per output label set, points at step times; a scalar is one series with
   *     no labels and a point at every step
   * @throws QueryException on evaluation errors, limits and timeouts
   */
  List<PointSeries> eval(Expr e) {
    budget.checkDeadline();
    if (e instanceof Expr.Paren p) {
      return eval(p.expr());
    }
    if (e instanceof Expr.NumberLiteral n) {
      PointSeries s = new PointSeries(EMPTY, steps);
      for (int k = 0; k < steps; k++) {
        s.add(stepTime(k), n.value());
      }
      return List.of(s);
    }
    if (e instanceof Expr.VectorSelector vs) {
      return vectorSelector(vs, false);
    }
    if (e instanceof Expr.Unary u) {
      return unary(u);
    }
    if (e instanceof Expr.Binary b) {
      return binary(b);
    }
    if (e instanceof Expr.Aggregate a) {
      return aggregate(a);
    }
    if (e instanceof Expr.Call c) {
      return call(c);
    }
    throw new QueryException(QueryException.Kind.BAD_DATA,
        "expression of type " + e.type().promName() + " cannot be evaluated here: " + e);
  }

  /**
   * Evaluates a range-vector expression at one evaluation time, as the top of an instant query:
   * the raw samples of a range selector, or the points of a subquery.
   *
   * @param e a range selector or subquery, possibly in parentheses
   * @return the series with their points
   */
  List<PointSeries> evalRangeVector(Expr e) {
    Expr m = unwrap(e);
    if (rollups != null) {
      throw RollupFunctions.refuse(rollups, "the raw samples of " + m);
    }
    if (m instanceof Expr.Subquery sq) {
      return subquery(sq);
    }
    Expr.MatrixSelector ms = (Expr.MatrixSelector) m;
    Expr.VectorSelector vs = ms.selector();
    long ref = refTime(vs.at(), startMs) - vs.offsetMs();
    List<PointSeries> out = new ArrayList<>();
    for (Series s : select(vs.matchers(), ref - ms.rangeMs(), ref)) {
      PointSeries ps = new PointSeries(s.labels(), s.size());
      for (int i = 0; i < s.size(); i++) {
        if (!StaleMarker.is(s.valueBits()[i])) {
          ps.add(s.timestampsMs()[i], s.value(i));
        }
      }
      if (ps.size() > 0) {
        out.add(ps);
      }
    }
    return out;
  }

  // ---- selectors ----

  private long refTime(Expr.At at, long stepMs) {
    return at == null ? stepMs : at.resolve(queryStartMs, queryEndMs);
  }

  private List<Series> select(List<Matcher> matchers, long minMs, long maxMs) {
    try {
      List<Series> raw = querier.select(matchers, minMs, maxMs);
      long n = 0;
      for (Series s : raw) {
        n += s.size();
      }
      budget.take(n);
      return raw;
    } catch (StorageException ex) {
      throw new QueryException(QueryException.Kind.INTERNAL,
          "reading the store failed: " + ex.getMessage(), ex);
    } catch (IllegalArgumentException ex) {
      throw new QueryException(QueryException.Kind.BAD_DATA, ex.getMessage(), ex);
    }
  }

  /**
   * @param timestamps true for {@code timestamp(selector)}: the value is the selected sample's
   *     time in seconds and the metric name is dropped
   */
  private List<PointSeries> vectorSelector(Expr.VectorSelector vs, boolean timestamps) {
    if (rollups != null) {
      throw RollupFunctions.refuse(rollups, "the instant selector " + vs + " (use "
          + "avg_over_time(" + vs + "[" + RollupFunctions.name(rollups) + "]) or last_over_time)");
    }
    long off = vs.offsetMs();
    long firstRef = refTime(vs.at(), stepTime(0)) - off;
    long lastRef = refTime(vs.at(), stepTime(Math.max(steps - 1, 0))) - off;
    long lookback = options.lookbackDeltaMs();
    List<PointSeries> out = new ArrayList<>();
    selectEach(vs.matchers(), firstRef - lookback, lastRef, (labels, t, bits, n) -> {
      PointSeries ps = null;
      int next = 0;
      for (int k = 0; k < steps; k++) {
        long ts = stepTime(k);
        long ref = refTime(vs.at(), ts) - off;
        while (next < n && t[next] <= ref) {
          next++;
        }
        int latest = next - 1;
        if (latest < 0 || t[latest] < ref - lookback || StaleMarker.is(bits[latest])) {
          continue;
        }
        if (ps == null) {
          ps = new PointSeries(timestamps ? LabelBuilder.dropName(labels) : labels, steps);
        }
        ps.add(ts, timestamps ? t[latest] / 1000.0 : Double.longBitsToDouble(bits[latest]));
      }
      if (ps != null) {
        out.add(ps);
        budget.take(ps.size());
      }
    });
    if (timestamps) {
      requireDistinct(out);
    }
    return out;
  }

  // ---- step-by-step evaluation ----

  /** One step of an operator or instant function. */
  @FunctionalInterface
  interface StepFunction {
    /**
     * @param args one vector per argument expression, in order (null for string arguments); a
     *     scalar argument is a vector of one sample without labels
     * @param ts the step time, milliseconds
     * @return the output vector at this step
     */
    List<Sample> apply(List<List<Sample>> args, long ts);
  }

  /**
   * Prometheus's {@code rangeEval}: evaluates the arguments over every step, then calls
   * {@code f} with their vectors at each step and collects its outputs into series.
   *
   * @throws QueryException {@code EXECUTION} if a step's output holds one label set twice
   */
  List<PointSeries> rangeEval(StepFunction f, List<Expr> exprs) {
    int n = exprs.size();
    List<List<PointSeries>> mats = new ArrayList<>(n);
    long held = 0;
    for (Expr e : exprs) {
      if (e == null || e.type() == ValueType.STRING) {
        mats.add(null);
      } else {
        List<PointSeries> m = eval(e);
        mats.add(m);
        for (PointSeries s : m) {
          held += s.size();
        }
      }
    }
    int[][] cursors = new int[n][];
    for (int i = 0; i < n; i++) {
      cursors[i] = mats.get(i) == null ? null : new int[mats.get(i).size()];
    }
    Map<LabelSet, PointSeries> out = new LinkedHashMap<>();
    List<List<Sample>> vectors = new ArrayList<>(n);
    Set<LabelSet> seen = new HashSet<>();
    long points = 0;
    for (int k = 0; k < steps; k++) {
      budget.checkDeadline();
      long ts = stepTime(k);
      vectors.clear();
      for (int i = 0; i < n; i++) {
        List<PointSeries> m = mats.get(i);
        if (m == null) {
          vectors.add(null);
          continue;
        }
        List<Sample> v = new ArrayList<>(m.size());
        int[] c = cursors[i];
        for (int j = 0; j < m.size(); j++) {
          PointSeries s = m.get(j);
          if (c[j] < s.size() && s.timestampMs(c[j]) == ts) {
            v.add(new Sample(s.labels(), ts, s.value(c[j])));
            c[j]++;
          }
        }
        vectors.add(v);
      }
      List<Sample> result = f.apply(vectors, ts);
      if (result.size() > 1) {
        seen.clear();
        for (Sample s : result) {
          if (!seen.add(s.labels())) {
            throw duplicateLabelset();
          }
        }
      }
      for (Sample s : result) {
        out.computeIfAbsent(s.labels(), l -> new PointSeries(l, 16)).add(ts, s.value());
      }
      points += result.size();
    }
    budget.release(held);
    budget.take(points);
    return new ArrayList<>(out.values());
  }

  static QueryException duplicateLabelset() {
    return QueryException.execution("vector cannot contain metrics with the same labelset");
  }

  private static void requireDistinct(List<PointSeries> series) {
    if (series.size() < 2) {
      return;
    }
    Set<LabelSet> seen = new HashSet<>();
    for (PointSeries s : series) {
      if (!seen.add(s.labels())) {
        throw duplicateLabelset();
      }
    }
  }

  private List<PointSeries> unary(Expr.Unary u) {
    List<PointSeries> in = eval(u.expr());
    if (!u.negate()) {
      return in;
    }
    List<PointSeries> out = new ArrayList<>(in.size());
    for (PointSeries s : in) {
      PointSeries neg = new PointSeries(LabelBuilder.dropName(s.labels()), s.size());
      for (int i = 0; i < s.size(); i++) {
        neg.add(s.timestampMs(i), -s.value(i));
      }
      out.add(neg);
    }
    requireDistinct(out);
    return out;
  }

  private List<PointSeries> binary(Expr.Binary b) {
    ValueType lt = b.lhs().type();
    ValueType rt = b.rhs().type();
    List<Expr> args = List.of(b.lhs(), b.rhs());
    BinaryOps.Cache cache = new BinaryOps.Cache();
    if (lt == ValueType.SCALAR && rt == ValueType.SCALAR) {
      return rangeEval((v, ts) -> List.of(new Sample(EMPTY, ts,
          BinaryOps.scalarScalar(b.op(), v.get(0).get(0).value(), v.get(1).get(0).value()))),
          args);
    }
    if (lt == ValueType.VECTOR && rt == ValueType.VECTOR) {
      return rangeEval((v, ts) -> BinaryOps.vectorVector(b.op(), v.get(0), v.get(1),
          b.matching(), b.returnBool(), ts, cache), args);
    }
    if (lt == ValueType.VECTOR) {
      return rangeEval((v, ts) -> BinaryOps.vectorScalar(b.op(), v.get(0),
          v.get(1).get(0).value(), false, b.returnBool(), ts, cache), args);
    }
    return rangeEval((v, ts) -> BinaryOps.vectorScalar(b.op(), v.get(1),
        v.get(0).get(0).value(), true, b.returnBool(), ts, cache), args);
  }

  private List<PointSeries> aggregate(Expr.Aggregate a) {
    List<String> grouping = new ArrayList<>(a.grouping());
    grouping.sort(LabelSet.UTF8_ORDER);
    Expr param = a.param() == null ? null : unwrap(a.param());
    Aggregations.GroupCache cache = new Aggregations.GroupCache();
    if (param instanceof Expr.StringLiteral s) {
      return rangeEval((v, ts) -> Aggregations.aggregate(a.op(), grouping, a.without(),
          Double.NaN, s.value(), v.get(0), ts, cache), List.of(a.expr()));
    }
    if (param != null) {
      return rangeEval((v, ts) -> Aggregations.aggregate(a.op(), grouping, a.without(),
          v.get(0).get(0).value(), null, v.get(1), ts, cache), List.of(param, a.expr()));
    }
    return rangeEval((v, ts) -> Aggregations.aggregate(a.op(), grouping, a.without(),
        Double.NaN, null, v.get(0), ts, cache), List.of(a.expr()));
  }

  static Expr unwrap(Expr e) {
    while (e instanceof Expr.Paren p) {
      e = p.expr();
    }
    return e;
  }

  // ---- functions ----

  private List<PointSeries> call(Expr.Call c) {
    Function f = c.function();
    List<Expr> args = new ArrayList<>(c.args().size());
    for (Expr a : c.args()) {
      args.add(unwrap(a));
    }
    if (f == Function.TIMESTAMP && args.get(0) instanceof Expr.VectorSelector vs) {
      return vectorSelector(vs, true);
    }
    for (int i = 0; i < args.size(); i++) {
      if (args.get(i).type() == ValueType.MATRIX) {
        return rangeFunction(f, args, i);
      }
    }
    return rangeEval((v, ts) -> InstantFunctions.apply(f, v, args, ts), args);
  }

  /**
   * A function of a range vector: per series and step, the window {@code [ref - range, ref]} of
   * its samples (stale markers dropped) or subquery points, where {@code ref} is the step time
   * (or the {@code @} time) minus the offset.
   */
  private List<PointSeries> rangeFunction(Function f, List<Expr> args, int matrixIndex) {
    if (rollups != null) {
      Expr m = args.get(matrixIndex);
      Expr.VectorSelector vs = m instanceof Expr.MatrixSelector ms ? ms.selector() : null;
      long[] refs = new long[steps];
      long[] times = new long[steps];
      for (int k = 0; k < steps; k++) {
        times[k] = stepTime(k);
        refs[k] = vs == null ? times[k] : refTime(vs.at(), times[k]) - vs.offsetMs();
      }
      return RollupFunctions.evaluate(querier, budget, rollups, f, m, refs, times);
    }
    double[][] scalars = new double[args.size()][];
    for (int i = 0; i < args.size(); i++) {
      if (i != matrixIndex && args.get(i).type() == ValueType.SCALAR) {
        List<PointSeries> s = eval(args.get(i));
        double[] perStep = new double[steps];
        PointSeries only = s.get(0);
        for (int k = 0; k < steps; k++) {
          perStep[k] = only.value(k);
        }
        scalars[i] = perStep;
      }
    }
    Expr m = args.get(matrixIndex);
    WindowFunctions.Window w = new WindowFunctions.Window();
    w.args = new double[args.size()];
    WindowFunctions.Fn fn = WindowFunctions.of(f);
    List<PointSeries> out = new ArrayList<>();
    if (m instanceof Expr.Subquery sq) {
      w.rangeMs = sq.rangeMs();
      List<PointSeries> points = subquery(sq);
      long held = 0;
      for (PointSeries s : points) {
        held += s.size();
      }
      for (int j = 0; j < points.size(); j++) {
        PointSeries s = points.get(j);
        points.set(j, null); // not needed once evaluated
        w.dv = s.valuesArray();
        w.bits = null;
        window(f, fn, w, s.labels(), s.timestampsArray(), s.size(), sq.at(), sq.offsetMs(),
            scalars, out);
      }
      budget.release(held);
    } else {
      Expr.MatrixSelector ms = (Expr.MatrixSelector) m;
      w.rangeMs = ms.rangeMs();
      Expr.At at = ms.selector().at();
      long offsetMs = ms.selector().offsetMs();
      long firstRef = refTime(at, stepTime(0)) - offsetMs;
      long lastRef = refTime(at, stepTime(Math.max(steps - 1, 0))) - offsetMs;
      // Series by series, as the store hands them over: only a batch is held at once.
      selectEach(ms.selector().matchers(), firstRef - ms.rangeMs(), lastRef,
          (labels, t0, bits, n0) -> {
        long[] t = t0;
        int n = n0;
        w.dv = null;
        w.bits = bits;
        for (int j = 0; j < n0; j++) {
          if (StaleMarker.is(bits[j])) { // rare: copy without the stale markers
            long[] t2 = new long[n];
            double[] v2 = new double[n];
            int k = 0;
            for (int i = 0; i < n; i++) {
              if (!StaleMarker.is(bits[i])) {
                t2[k] = t[i];
                v2[k] = Double.longBitsToDouble(bits[i]);
                k++;
              }
            }
            t = t2;
            n = k;
            w.dv = v2;
            w.bits = null;
            break;
          }
        }
        window(f, fn, w, labels, t, n, at, offsetMs, scalars, out);
      });
    }
    if (f == Function.ABSENT_OVER_TIME) {
      return absentOverTime(out, m);
    }
    requireDistinct(out);
    return out;
  }

  /** Selects series and hands them over one at a time, counting them against the budget. */
  private void selectEach(List<Matcher> matchers, long minMs, long maxMs,
      Querier.SeriesVisitor each) {
    try {
      querier.selectEach(matchers, minMs, maxMs, (labels, t, bits, n) -> {
        budget.take(n);
        try {
          each.visit(labels, t, bits, n);
        } finally {
          budget.release(n);
        }
      });
    } catch (StorageException ex) {
      throw new QueryException(QueryException.Kind.INTERNAL,
          "reading the store failed: " + ex.getMessage(), ex);
    } catch (IllegalArgumentException ex) {
      throw new QueryException(QueryException.Kind.BAD_DATA, ex.getMessage(), ex);
    }
  }

  /**
   * Slides the window {@code [ref - range, ref]} over one series' samples {@code [0, n)} at every
   * step and adds the output series, if it has a value, to {@code out}.
   */
  private void window(Function f, WindowFunctions.Fn fn, WindowFunctions.Window w,
      LabelSet labels, long[] t, int n, Expr.At at, long offsetMs, double[][] scalars,
      List<PointSeries> out) {
    w.t = t;
    double[] result = new double[1];
    PointSeries ps = null;
    int lo = 0;
    int hi = 0;
    for (int k = 0; k < steps; k++) {
      budget.checkDeadline();
      long ts = stepTime(k);
      long ref = refTime(at, ts) - offsetMs;
      long start = ref - w.rangeMs;
      while (lo < n && t[lo] < start) {
        lo++;
      }
      if (hi < lo) {
        hi = lo;
      }
      while (hi < n && t[hi] <= ref) {
        hi++;
      }
      if (hi == lo) {
        continue;
      }
      w.from = lo;
      w.to = hi;
      w.rangeStartMs = start;
      w.rangeEndMs = ref;
      w.evalMs = ts;
      for (int i = 0; i < scalars.length; i++) {
        if (scalars[i] != null) {
          w.args[i] = scalars[i][k];
        }
      }
      if (fn.apply(w, result)) {
        if (ps == null) {
          ps = new PointSeries(f == Function.LAST_OVER_TIME ? labels
              : LabelBuilder.dropName(labels), steps);
        }
        ps.add(ts, result[0]);
      }
    }
    if (ps != null) {
      out.add(ps);
      budget.take(ps.size());
    }
  }

  /**
   * 2.42's {@code absent_over_time}: 1 at each step where no series had a sample in the window,
   * labelled from the selector's equality matchers; nothing if one series covers every step.
   */
  private List<PointSeries> absentOverTime(List<PointSeries> present, Expr m) {
    for (PointSeries s : present) {
      if (s.size() == steps) {
        return List.of();
      }
    }
    Set<Long> found = new HashSet<>();
    for (PointSeries s : present) {
      for (int i = 0; i < s.size(); i++) {
        found.add(s.timestampMs(i));
      }
    }
    PointSeries out = new PointSeries(InstantFunctions.absentLabels(m), steps);
    for (int k = 0; k < steps; k++) {
      if (!found.contains(stepTime(k))) {
        out.add(stepTime(k), 1);
      }
    }
    return out.size() == 0 ? List.of() : List.of(out);
  }

  /**
   * Evaluates a subquery's inner expression on its own step grid: from the first multiple of the
   * step at or after {@code outerStart - offset - range} to {@code outerEnd - offset}, as 2.42.
   */
  private List<PointSeries> subquery(Expr.Subquery sq) {
    if (rollups != null) {
      throw RollupFunctions.refuse(rollups, "a subquery (" + sq + ")");
    }
    long interval = sq.stepMs() > 0 ? sq.stepMs() : options.defaultSubqueryStepMs();
    long outerStart = refTime(sq.at(), stepTime(0));
    long outerEnd = refTime(sq.at(), stepTime(Math.max(steps - 1, 0)));
    long from = outerStart - sq.offsetMs() - sq.rangeMs();
    long innerStart = interval * (from / interval);
    if (innerStart < from) {
      innerStart += interval;
    }
    long innerEnd = outerEnd - sq.offsetMs();
    Evaluator inner = new Evaluator(querier, options, budget, queryStartMs, queryEndMs,
        innerStart, innerEnd, interval);
    return inner.eval(sq.expr());
  }
}
