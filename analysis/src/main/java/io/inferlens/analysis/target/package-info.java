/**
 * Targets and signal resolution against the store: {@link io.inferlens.analysis.target.TargetDiscovery}
 * finds one {@link io.inferlens.analysis.target.Target} per grouping-label tuple of engine series
 * (docs/DESIGN.md §3), {@link io.inferlens.analysis.target.SignalResolver} binds each catalog signal to
 * the concrete series a target has, joining GPU (dcgm-exporter) and Kafka series by host or
 * consumer group as configured in {@link io.inferlens.analysis.target.TargetConfig}. Times are
 * milliseconds since the Unix epoch, ranges inclusive.
 */
package io.inferlens.analysis.target;
