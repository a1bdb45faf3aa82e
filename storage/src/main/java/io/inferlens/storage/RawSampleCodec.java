package io.inferlens.storage;

/**
 * Format version 1 sample layout: one RocksDB entry per sample.
 *
 * <pre>
 * key   (16 B): series id, 8 B big-endian | timestamp ms XOR 0x8000000000000000, 8 B big-endian
 * value ( 8 B): raw IEEE-754 bits, 8 B big-endian
 * </pre>
 *
 * Flipping the sign bit makes unsigned byte order equal signed timestamp order, so samples before
 * 1970 (negative timestamps) sort before later ones.
 *
 * <p>Thread safety: stateless.
 */
public final class RawSampleCodec implements SampleCodec {

  /** The shared instance. */
  public static final RawSampleCodec INSTANCE = new RawSampleCodec();

  /** Key length in bytes: series id plus timestamp. */
  public static final int KEY_BYTES = 16;

  /** Value length in bytes: one IEEE-754 double. */
  public static final int VALUE_BYTES = 8;

  private RawSampleCodec() {}

  @Override
  public byte[] key(long seriesId, long timestampMs) {
    byte[] k = new byte[KEY_BYTES];
    Keys.putBe64(k, 0, seriesId);
    Keys.putBe64(k, 8, timestampMs ^ Long.MIN_VALUE);
    return k;
  }

  @Override
  public long seriesId(byte[] key) {
    return Keys.getBe64(key, 0);
  }

  @Override
  public long timestampMs(byte[] key) {
    return Keys.getBe64(key, 8) ^ Long.MIN_VALUE;
  }

  @Override
  public byte[] encodeValue(long valueBits) {
    return Keys.be64(valueBits);
  }

  @Override
  public long decodeValue(byte[] value) {
    if (value.length != VALUE_BYTES) {
      throw new IllegalStateException(
          "corrupt sample value: " + value.length + " bytes, expected " + VALUE_BYTES);
    }
    return Keys.getBe64(value, 0);
  }

  @Override
  public byte[] rangeEndExclusive(long seriesId, long endMs) {
    if (endMs == Long.MAX_VALUE) {
      // No timestamp follows MAX_VALUE: the 8-byte prefix of the next id sorts after all keys of
      // this series and before all keys of the next one.
      return Keys.be64(seriesId + 1);
    }
    return key(seriesId, endMs + 1);
  }
}
