package io.inferlens.analysis.promql.engine;

import io.inferlens.storage.LabelSet;

/**
 * One element of an instant vector: a series' label set with one value at one time.
 *
 * @param labels the series' label set
 * @param timestampMs the sample's time, milliseconds since the epoch: the evaluation time, except
 *     for the raw samples a vector selector hands to {@code timestamp()}
 * @param value the value; NaN and ±Inf are ordinary values
 */
public record Sample(LabelSet labels, long timestampMs, double value) {}
