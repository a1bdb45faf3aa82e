/**
 * PromQL: the syntax tree ({@code ast}), the parser ({@code parse}) and the engine
 * ({@code engine}), plus the pieces they share: {@link io.inferlens.analysis.promql.StaleMarker},
 * {@link io.inferlens.analysis.promql.HistogramQuantile} (classic-bucket quantiles) and
 * {@link io.inferlens.analysis.promql.StepRange} (a step grid of the analysis).
 *
 * <p>Semantics are those of Prometheus 2.42 ({@code promql/engine.go}, {@code promql/functions.go},
 * {@code promql/quantile.go} at tag v2.42.0), which {@code PromqlOracleTest} in the api module
 * checks against a real Prometheus 2.42: range selectors cover {@code [t - range, t]} inclusive on
 * both ends (Prometheus 3.x made the left end open), instant selection looks back 5 minutes,
 * {@code [t - 5m, t]} inclusive, and stale markers are dropped from range selectors and end a
 * series for instant selection. All timestamps and durations are milliseconds.
 */
package io.inferlens.analysis.promql;
