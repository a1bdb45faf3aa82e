/**
 * The cardinality guard that explains itself (docs/DESIGN.md section 3, cause
 * {@code CARDINALITY_EXPLOSION}): {@link io.inferlens.analysis.cardinality.CardinalityRule} says
 * when a metric's series grow much faster than its targets, and
 * {@link io.inferlens.analysis.cardinality.CardinalityWatch} samples the store's per-metric
 * counts once a minute and turns what the rule finds into diagnoses for the incident journal.
 */
package io.inferlens.analysis.cardinality;
