package io.inferlens.analysis.promql.engine;

import io.inferlens.analysis.promql.ast.Expr;
import io.inferlens.analysis.promql.ast.LargeStack;
import io.inferlens.analysis.promql.ast.ValueType;
import io.inferlens.storage.LabelOrder;
import io.inferlens.storage.Querier;
import io.inferlens.storage.Resolution;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The PromQL engine: evaluates parsed expressions over a {@link Querier} with Prometheus 2.42's
 * semantics ({@code promql/engine.go}), as its {@code /api/v1/query} and
 * {@code /api/v1/query_range} do.
 *
 * <ul>
 *   <li>An instant query evaluates at one time and answers the expression's own type (a range
 *       selector or subquery answers their samples as a matrix).
 *   <li>A range query evaluates at {@code start, start + step, ..., end} (not aligned; Grafana
 *       aligns) and answers a matrix sorted by label set; only scalar and instant-vector
 *       expressions are allowed.
 * </ul>
 *
 * <p>Limits ({@link EngineOptions}): at most {@code maxConcurrency} queries run at once (others
 * wait for a slot within their timeout); each query may hold {@code maxSamples} samples and run
 * {@code timeoutMs}. A query over a limit fails alone with a {@link QueryException} naming the
 * limit. Thread safe.
 */
public final class Engine {

  /** Prometheus's limit on points per series of a range query ({@code web/api/v1/api.go}). */
  public static final long MAX_POINTS_PER_SERIES = 11_000;

  private final Querier querier;
  private final EngineOptions options;
  private final Semaphore slots;

  /**
   * @param querier the store to read
   * @param options limits and defaults
   */
  public Engine(Querier querier, EngineOptions options) {
    this(querier, options, slots(options));
  }

  /**
   * An engine that takes its evaluation slots from {@code slots}, which engines over other
   * stores (other tenants') share, so {@link EngineOptions#maxConcurrency()} holds for the
   * process however many tenants query (Prometheus's {@code --query.max-concurrency}).
   *
   * @param querier the store to read
   * @param options limits and defaults
   * @param slots the shared slots, made by {@link #slots(EngineOptions)} with the same options
   */
  public Engine(Querier querier, EngineOptions options, Semaphore slots) {
    this.querier = querier;
    this.options = options;
    this.slots = java.util.Objects.requireNonNull(slots, "slots");
  }

  /**
   * @param options limits and defaults
   * @return {@link EngineOptions#maxConcurrency()} fair slots for engines to share
   */
  public static Semaphore slots(EngineOptions options) {
    return new Semaphore(options.maxConcurrency(), true);
  }

  /** @return the options this engine runs with */
  public EngineOptions options() {
    return options;
  }

  /**
   * Evaluates an instant query.
   *
   * @param expr the parsed expression
   * @param timeMs the evaluation time, milliseconds since the epoch
   * @return the result in the expression's type
   * @throws QueryException on evaluation errors ({@code EXECUTION}), the timeout
   *     ({@code TIMEOUT}), a store failure ({@code INTERNAL}), or interruption ({@code CANCELED})
   */
  public QueryResult instant(Expr expr, long timeMs) {
    return instant(expr, timeMs, options.timeoutMs());
  }

  /**
   * {@link #instant(Expr, long)} with a shorter timeout for this query.
   *
   * @param expr the parsed expression
   * @param timeMs the evaluation time, milliseconds since the epoch
   * @param timeoutMs this query's timeout, milliseconds, capped by the engine's
   * @return the result in the expression's type
   */
  public QueryResult instant(Expr expr, long timeMs, long timeoutMs) {
    return instant(expr, timeMs, timeoutMs, null);
  }

  /**
   * {@link #instant(Expr, long, long)} reading rollups where they serve the query
   * ({@code max_source_resolution}, see {@code RollupFunctions}).
   *
   * @param expr the parsed expression
   * @param timeMs the evaluation time, milliseconds since the epoch
   * @param timeoutMs this query's timeout, milliseconds, capped by the engine's
   * @param rollups the resolution to read, or null for raw samples
   * @return the result in the expression's type
   * @throws QueryException {@code BAD_DATA} for what the rollups cannot serve; else as
   *     {@link #instant(Expr, long)}
   */
  public QueryResult instant(Expr expr, long timeMs, long timeoutMs, Resolution rollups) {
    acquire();
    try {
      return deep(() -> instantOnce(expr, timeMs, timeoutMs, rollups));
    } finally {
      slots.release();
    }
  }

  /**
   * Runs an evaluation so that deep nesting (10,000 levels of {@code 1+1+…}, thousands of nested
   * calls) is evaluated as Prometheus evaluates it, on a large stack when the caller's overflows
   * ({@link LargeStack}: the task starts again from scratch there, with a fresh sample budget);
   * past even that, a {@code BAD_DATA} error instead of a stack overflow.
   */
  private static QueryResult deep(java.util.function.Supplier<QueryResult> task) {
    try {
      return LargeStack.call(task);
    } catch (StackOverflowError e) {
      throw new QueryException(QueryException.Kind.BAD_DATA,
          "expression nested too deeply to evaluate");
    }
  }

  private QueryResult instantOnce(Expr expr, long timeMs, long timeoutMs, Resolution rollups) {
    SampleBudget budget = new SampleBudget(options.maxSamples(),
        Math.min(timeoutMs, options.timeoutMs()));
    Evaluator ev = new Evaluator(querier, options, budget, timeMs, timeMs, timeMs, timeMs, 1,
        rollups);
    ValueType type = LargeStack.call(expr::type);
    switch (type) {
      case STRING:
        return new QueryResult(type, List.of(), List.of(), Double.NaN,
            ((Expr.StringLiteral) Evaluator.unwrap(expr)).value(), timeMs, 0);
      case MATRIX: {
        List<PointSeries> m = ev.evalRangeVector(expr);
        return new QueryResult(type, m, List.of(), Double.NaN, null, timeMs, budget.peak());
      }
      case SCALAR: {
        List<PointSeries> m = ev.eval(expr);
        double v = m.isEmpty() || m.get(0).size() == 0 ? Double.NaN : m.get(0).value(0);
        return new QueryResult(type, List.of(), List.of(), v, null, timeMs, budget.peak());
      }
      default: {
        List<PointSeries> m = ev.eval(expr);
        List<Sample> vector = new ArrayList<>(m.size());
        for (PointSeries s : m) {
          if (s.size() > 0) {
            vector.add(new Sample(s.labels(), timeMs, s.value(0)));
          }
        }
        return new QueryResult(type, List.of(), vector, Double.NaN, null, timeMs,
            budget.peak());
      }
    }
  }

  /**
   * Evaluates a range query.
   *
   * @param expr the parsed expression, of type scalar or instant vector
   * @param startMs first step, milliseconds
   * @param endMs last step bound, milliseconds, &ge; {@code startMs}
   * @param stepMs step, milliseconds, &gt; 0
   * @return a matrix sorted by label set; a scalar expression gives one series without labels
   * @throws QueryException {@code BAD_DATA} for a range-vector or string expression, a bad range
   *     or step, or more than {@link #MAX_POINTS_PER_SERIES} steps; otherwise as
   *     {@link #instant}
   */
  public QueryResult range(Expr expr, long startMs, long endMs, long stepMs) {
    return range(expr, startMs, endMs, stepMs, options.timeoutMs());
  }

  /**
   * {@link #range(Expr, long, long, long)} with a shorter timeout for this query.
   *
   * @param expr the parsed expression
   * @param startMs first step, milliseconds
   * @param endMs last step bound, milliseconds
   * @param stepMs step, milliseconds, &gt; 0
   * @param timeoutMs this query's timeout, milliseconds, capped by the engine's
   * @return a matrix sorted by label set
   */
  public QueryResult range(Expr expr, long startMs, long endMs, long stepMs, long timeoutMs) {
    return range(expr, startMs, endMs, stepMs, timeoutMs, null);
  }

  /**
   * {@link #range(Expr, long, long, long, long)} reading rollups where they serve the query
   * ({@code max_source_resolution}, see {@code RollupFunctions}).
   *
   * @param expr the parsed expression, of type scalar or instant vector
   * @param startMs first step, milliseconds
   * @param endMs last step bound, milliseconds
   * @param stepMs step, milliseconds, &gt; 0
   * @param timeoutMs this query's timeout, milliseconds, capped by the engine's
   * @param rollups the resolution to read, or null for raw samples
   * @return a matrix sorted by label set
   * @throws QueryException {@code BAD_DATA} for what the rollups cannot serve; else as
   *     {@link #range(Expr, long, long, long)}
   */
  public QueryResult range(Expr expr, long startMs, long endMs, long stepMs, long timeoutMs,
      Resolution rollups) {
    ValueType type = deepType(expr);
    if (type != ValueType.SCALAR && type != ValueType.VECTOR) {
      throw new QueryException(QueryException.Kind.BAD_DATA, "invalid expression type \""
          + type.promName() + "\" for range query, must be Scalar or instant Vector");
    }
    if (endMs < startMs) {
      throw new QueryException(QueryException.Kind.BAD_DATA,
          "end timestamp must not be before start time");
    }
    if (stepMs <= 0) {
      throw new QueryException(QueryException.Kind.BAD_DATA, "zero or negative query resolution"
          + " step widths are not accepted. Try a positive integer");
    }
    if ((endMs - startMs) / stepMs > MAX_POINTS_PER_SERIES) {
      throw new QueryException(QueryException.Kind.BAD_DATA, "exceeded maximum resolution of"
          + " 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)");
    }
    acquire();
    try {
      return deep(() -> {
        SampleBudget budget = new SampleBudget(options.maxSamples(),
            Math.min(timeoutMs, options.timeoutMs()));
        Evaluator ev = new Evaluator(querier, options, budget, startMs, endMs, startMs, endMs,
            stepMs, rollups);
        List<PointSeries> m = new ArrayList<>(ev.eval(expr));
        m.removeIf(s -> s.size() == 0);
        m.sort((a, b) -> LabelOrder.compare(a.labels(), b.labels()));
        return new QueryResult(ValueType.MATRIX, m, List.of(), Double.NaN, null, endMs,
            budget.peak());
      });
    } finally {
      slots.release();
    }
  }

  /** An expression's type, on a large stack for a deep one (the type walks the tree). */
  private static ValueType deepType(Expr expr) {
    try {
      return LargeStack.call(expr::type);
    } catch (StackOverflowError e) {
      throw new QueryException(QueryException.Kind.BAD_DATA,
          "expression nested too deeply to evaluate");
    }
  }

  private void acquire() {
    try {
      if (!slots.tryAcquire(options.timeoutMs(), TimeUnit.MILLISECONDS)) {
        throw new QueryException(QueryException.Kind.TIMEOUT, "query timed out waiting for one of"
            + " --query.max-concurrency=" + options.maxConcurrency() + " query slots");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QueryException(QueryException.Kind.CANCELED, "query was canceled", e);
    }
  }
}
