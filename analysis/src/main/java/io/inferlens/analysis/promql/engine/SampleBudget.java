package io.inferlens.analysis.promql.engine;

/**
 * What one query may hold and how long it may run: the samples it keeps in memory at once
 * against {@code --query.max-samples}, and its deadline against {@code --query.timeout}. Shared
 * by a query's evaluator and its subquery evaluators; one query runs on one thread.
 */
final class SampleBudget {

  private final long maxSamples;
  private final long deadlineNanos;
  private final long timeoutMs;
  private long current;
  private long peak;
  private int checks;

  /**
   * @param maxSamples most samples held at once, &gt; 0
   * @param timeoutMs the query's timeout, milliseconds
   */
  SampleBudget(long maxSamples, long timeoutMs) {
    this.maxSamples = maxSamples;
    this.timeoutMs = timeoutMs;
    this.deadlineNanos = System.nanoTime() + timeoutMs * 1_000_000L;
  }

  /**
   * Counts samples now held.
   *
   * @param n samples taken, &ge; 0
   * @throws QueryException {@code EXECUTION} when the total goes over the limit (Prometheus's
   *     {@code ErrTooManySamples} message, plus the flag and its value)
   */
  void take(long n) {
    current += n;
    if (current > peak) {
      peak = current;
    }
    if (current > maxSamples) {
      throw new QueryException(QueryException.Kind.EXECUTION,
          "query processing would load too many samples into memory in query execution"
              + " (over --query.max-samples=" + maxSamples + ")");
    }
  }

  /**
   * Refuses a step grid whose points alone would be over the limit.
   *
   * @param steps steps of an evaluator (a query or subquery), &ge; 0
   * @throws QueryException {@code EXECUTION} naming the limit when {@code steps} exceeds it
   */
  void checkSteps(long steps) {
    if (steps > maxSamples || steps > Integer.MAX_VALUE - 8) {
      throw new QueryException(QueryException.Kind.EXECUTION,
          "query processing would load too many samples into memory in subquery evaluation ("
              + steps + " steps, over --query.max-samples=" + maxSamples + ")");
    }
  }

  /** @param n samples no longer held, &ge; 0 */
  void release(long n) {
    current = Math.max(0, current - n);
  }

  /** @return the most samples held at once so far */
  long peak() {
    return peak;
  }

  /**
   * Checks the deadline every 64th call (reading the clock is not free).
   *
   * @throws QueryException {@code TIMEOUT} once the deadline has passed
   */
  void checkDeadline() {
    if ((++checks & 63) == 0 && System.nanoTime() - deadlineNanos > 0) {
      throw new QueryException(QueryException.Kind.TIMEOUT,
          "query timed out in expression evaluation (over --query.timeout="
              + io.inferlens.analysis.promql.ast.Printer.duration(timeoutMs) + ")");
    }
  }
}
