/**
 * The signal catalog: logical signals ({@link io.inferlens.analysis.catalog.Signal}) and, per
 * signal, the concrete metric names that provide it across serving stacks and versions
 * ({@link io.inferlens.analysis.catalog.MetricSource}), loaded from the bundled
 * {@code signals.json} and optional user overrides ({@link io.inferlens.analysis.catalog.SignalCatalog}).
 * Pure data: no store access; resolution against stored series is in
 * {@link io.inferlens.analysis.target}.
 */
package io.inferlens.analysis.catalog;
