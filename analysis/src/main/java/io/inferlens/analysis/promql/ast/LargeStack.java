package io.inferlens.analysis.promql.ast;

import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Runs a recursive walk over a syntax tree so that deep nesting does not fail where Prometheus
 * succeeds (Go grows goroutine stacks to 1 GB; a Java thread has about 1 MB, enough for some
 * thousands of nested parentheses). The task runs on the caller's thread; only if it overflows
 * that stack is it run again, from the start, on a new thread with a {@value #STACK_BYTES}-byte
 * stack (reserved, committed only as used). The task must therefore have no effects outside
 * itself before it returns.
 *
 * <p>Thread safety: safe; each call is independent.
 */
public final class LargeStack {

  /** Stack size of the retry thread: 512 MiB, about 500 times the default. */
  static final long STACK_BYTES = 512L << 20;

  private LargeStack() {}

  /**
   * @param task the walk; its runtime exceptions and errors are passed on unchanged
   * @param <T> its result type
   * @return the task's result
   * @throws StackOverflowError if it overflows even the large stack
   */
  public static <T> T call(Supplier<T> task) {
    try {
      return task.get();
    } catch (StackOverflowError e) {
      return onLargeStack(task);
    }
  }

  private static <T> T onLargeStack(Supplier<T> task) {
    AtomicReference<T> result = new AtomicReference<>();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    Thread t = new Thread(null, () -> {
      try {
        result.set(task.get());
      } catch (Throwable e) {
        failure.set(e);
      }
    }, "promql-large-stack", STACK_BYTES);
    t.start();
    boolean interrupted = false;
    while (true) {
      try {
        t.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    Throwable e = failure.get();
    if (e instanceof RuntimeException re) {
      throw re;
    }
    if (e instanceof Error err) {
      throw err;
    }
    return result.get();
  }
}
