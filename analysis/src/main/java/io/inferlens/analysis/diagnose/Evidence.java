package io.inferlens.analysis.diagnose;

/**
 * One measured fact behind a verdict (docs/DESIGN.md section 4, {@code chain[].evidence[]}).
 *
 * @param signal indicator name such as {@code e2e_p95}
 * @param value mean of the (smoothed) indicator over the diagnosed period, in {@code unit}
 * @param threshold the threshold in force, or null where none applies
 * @param baseline the learned normal value (P95 of history), or null when none exists yet
 * @param unit {@code s}, {@code requests}, {@code ratio}, {@code %}, {@code 1/s}, …
 * @param window the rate/quantile window, e.g. {@code 5m}
 * @param low 5th percentile of the indicator over the period (the low end of its range)
 * @param high 95th percentile over the period (the high end of its range)
 * @param promql the PromQL expression the indicator was evaluated from, templated with the
 *     target's matchers ({@link IndicatorQueries}), to paste into Grafana; null where the value
 *     came from rollups only
 * @param basis where the threshold came from: {@code slo} (an explicit {@code --slo}),
 *     {@code baseline} (headroom × the learned P95), {@code static} (the extreme static limit
 *     in force before a baseline exists), {@code ratio} (a comparison with another period);
 *     null where no threshold applies
 */
public record Evidence(String signal, double value, Double threshold, Double baseline,
    String unit, String window, double low, double high, String promql, String basis) {}
