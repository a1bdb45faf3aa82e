package io.inferlens.analysis.promql.engine;

import io.inferlens.analysis.promql.ast.ValueType;
import java.util.List;

/**
 * The answer to a query, in the four shapes of Prometheus's API: for {@link ValueType#MATRIX},
 * {@link #matrix()} (a range query always answers a matrix); for {@link ValueType#VECTOR},
 * {@link #vector()}; for {@link ValueType#SCALAR}, {@link #scalar()} at {@link #timestampMs()};
 * for {@link ValueType#STRING}, {@link #string()} at {@link #timestampMs()}.
 *
 * @param type the result type
 * @param matrix the series of a matrix, in the engine's order (label-set order for range queries);
 *     empty otherwise
 * @param vector the samples of a vector in the engine's order; empty otherwise
 * @param scalar the scalar value; NaN otherwise
 * @param string the string value; null otherwise
 * @param timestampMs evaluation time of an instant query, milliseconds
 * @param samplesTouched samples read from the store and points produced, as counted against
 *     {@code maxSamples}
 */
public record QueryResult(ValueType type, List<PointSeries> matrix, List<Sample> vector,
    double scalar, String string, long timestampMs, long samplesTouched) {}
