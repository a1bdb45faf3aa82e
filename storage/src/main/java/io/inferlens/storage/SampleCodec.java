package io.inferlens.storage;

/**
 * The key and value layout of the samples column family, kept behind one interface so that a
 * later format (compressed chunks) can replace it without touching the store's logic.
 *
 * <p>Contract: keys of one series sort together, in ascending timestamp order, under unsigned
 * lexicographic byte comparison (RocksDB's default comparator); keys of a smaller series id sort
 * first. Returned arrays are fresh and owned by the caller.
 *
 * <p>Thread safety: implementations are stateless and thread safe.
 */
public interface SampleCodec {

  /**
   * @param seriesId the series id, &ge; 1
   * @param timestampMs the sample timestamp in milliseconds, any {@code long}
   * @return the key of that sample
   */
  byte[] key(long seriesId, long timestampMs);

  /**
   * @param key a key produced by {@link #key}
   * @return its series id
   */
  long seriesId(byte[] key);

  /**
   * @param key a key produced by {@link #key}
   * @return its timestamp in milliseconds
   */
  long timestampMs(byte[] key);

  /**
   * @param valueBits raw IEEE-754 bits of the value
   * @return the stored value bytes
   */
  byte[] encodeValue(long valueBits);

  /**
   * @param value bytes produced by {@link #encodeValue}
   * @return the raw IEEE-754 bits
   * @throws IllegalStateException if the bytes have the wrong length (corruption)
   */
  long decodeValue(byte[] value);

  /**
   * @param seriesId the series id, &ge; 1 and &lt; {@link Long#MAX_VALUE}
   * @param endMs the last timestamp to include, in milliseconds (inclusive)
   * @return the smallest key that sorts after every sample of the series at or before
   *     {@code endMs}: an exclusive upper bound for iteration
   */
  byte[] rangeEndExclusive(long seriesId, long endMs);
}
