package io.inferlens.storage;

import java.util.List;

/**
 * Cardinality statistics of the active series ({@link SeriesLimits}), in the shape of
 * Prometheus's {@code TSDBStatus} ({@code web/api/v1/api.go}, {@code serveTSDBStatus}; the
 * counts as {@code MemPostings.Stats} in {@code tsdb/index/postings.go} computes them over the
 * head's postings). InferLens's "head" here is the set of active series, the ones the series
 * limits count.
 *
 * @param headStats totals
 * @param seriesCountByMetricName the metric names ({@code __name__} values) with the most active
 *     series: value = their series count
 * @param labelValueCountByLabelName the label names with the most distinct values among active
 *     series: value = the number of values
 * @param memoryInBytesByLabelName the label names whose values take the most bytes: value = the
 *     sum of the UTF-8 bytes of the name's distinct values among active series, as Prometheus
 *     2.42's {@code size += len(value)} (each value is held once by the index; Prometheus 2.43+
 *     multiplies each value by its series count instead; Debian's 2.42 is the oracle,
 *     {@code TsdbStatusApiTest})
 * @param seriesCountByLabelValuePair the {@code name=value} pairs carried by the most active
 *     series: value = their series count
 */
public record TsdbStatus(
    HeadStats headStats,
    List<Stat> seriesCountByMetricName,
    List<Stat> labelValueCountByLabelName,
    List<Stat> memoryInBytesByLabelName,
    List<Stat> seriesCountByLabelValuePair) {

  /** Makes the lists unmodifiable. */
  public TsdbStatus {
    seriesCountByMetricName = List.copyOf(seriesCountByMetricName);
    labelValueCountByLabelName = List.copyOf(labelValueCountByLabelName);
    memoryInBytesByLabelName = List.copyOf(memoryInBytesByLabelName);
    seriesCountByLabelValuePair = List.copyOf(seriesCountByLabelValuePair);
  }

  /**
   * Prometheus's {@code HeadStats}.
   *
   * @param numSeries active series, ≥ 0
   * @param numLabelPairs distinct {@code name=value} pairs among the active series, ≥ 0
   * @param chunkCount series whose in-memory head buffer holds samples not yet flushed into
   *     chunks (InferLens keeps one compressed buffer per series where Prometheus cuts a head
   *     chunk every 120 samples), ≥ 0
   * @param minTime smallest timestamp of a sample in the in-memory head, ms;
   *     {@link Long#MAX_VALUE} when the head is empty, as Prometheus's empty head
   * @param maxTime newest sample timestamp appended since open, ms; {@link Long#MIN_VALUE} when
   *     the head is empty, as Prometheus's empty head
   */
  public record HeadStats(long numSeries, long numLabelPairs, long chunkCount, long minTime,
      long maxTime) {}

  /**
   * One entry of a top list, Prometheus's {@code TSDBStat}.
   *
   * @param name a metric name, label name or {@code name=value} pair
   * @param value its count or bytes, ≥ 1
   */
  public record Stat(String name, long value) {}
}
