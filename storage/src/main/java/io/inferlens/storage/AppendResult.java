package io.inferlens.storage;

import java.util.List;

/**
 * What one {@code append} call did. Every sample is counted exactly once, in
 * {@code samplesAppended}, {@code samplesDuplicate} or {@code rejections}.
 *
 * @param samplesAppended new samples now durable (their RocksDB write with WAL returned)
 * @param samplesDuplicate samples identical (timestamp and raw bits) to one already stored or
 *     earlier in the same call: idempotent successes, stored once
 * @param seriesCreated label sets seen for the first time
 * @param rejections samples refused, such as a different value at an already stored timestamp;
 *     the first few are listed in full, see {@code rejectedCount} for the total
 * @param rejectedCount total number of rejected samples, ≥ {@code rejections.size()}
 */
public record AppendResult(
    long samplesAppended,
    long samplesDuplicate,
    long seriesCreated,
    List<Rejection> rejections,
    long rejectedCount) {

  /**
   * One refused sample.
   *
   * @param series the series it belongs to
   * @param timestampMs its timestamp in milliseconds
   * @param reason why, as a sentence with the numbers, e.g. "sample at 1700000000000 ms has value
   *     bits 0x... but 0x... is already stored"
   */
  public record Rejection(LabelSet series, long timestampMs, String reason) {}
}
