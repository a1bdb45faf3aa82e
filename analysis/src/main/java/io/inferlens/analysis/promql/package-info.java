/**
 * PromQL functions evaluated the way a Prometheus range query evaluates them: at
 * {@code start, start + step, ..., end} (a {@link io.inferlens.analysis.promql.StepRange}), over the
 * raw samples of a {@link io.inferlens.storage.Series}, with results as parallel arrays
 * ({@link io.inferlens.analysis.promql.StepSeries}, NaN = no value at that step).
 *
 * <p>Semantics are those of Prometheus 2.42 ({@code promql/engine.go}, {@code promql/functions.go},
 * {@code promql/quantile.go} at tag v2.42.0), which {@code PromqlParityTest} in the api module
 * checks against a real Prometheus 2.42: range selectors cover {@code [t - range, t]} inclusive on
 * both ends (Prometheus 3.x made the left end open), instant selection looks back 5 minutes,
 * {@code [t - 5m, t]} inclusive, and stale markers are dropped from range selectors and end a
 * series for instant selection. All timestamps and durations are milliseconds.
 */
package io.inferlens.analysis.promql;
