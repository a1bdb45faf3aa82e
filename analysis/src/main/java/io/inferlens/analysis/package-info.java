/**
 * Analysis over stored series: PromQL-exact window functions and histogram quantiles
 * ({@link io.inferlens.analysis.promql}) and smoothing ({@link io.inferlens.analysis.smoothing}).
 * Depends on the storage API only; knows nothing of protobuf or HTTP.
 */
package io.inferlens.analysis;
