package io.inferlens.analysis.promql;

/**
 * The Prometheus stale marker: a NaN with the payload {@code 0x7ff0000000000002} (Prometheus
 * {@code model/value/value.go} {@code StaleNaN}). A sample with exactly these bits says "this
 * series ended here": range selectors skip it and instant selection finds no value while it is the
 * latest sample. Any other NaN bit pattern is an ordinary value.
 */
public final class StaleMarker {

  /** Raw IEEE-754 bits of the stale marker, as Prometheus {@code value.StaleNaN}. */
  public static final long BITS = 0x7ff0000000000002L;

  private StaleMarker() {}

  /**
   * @param valueBits raw IEEE-754 bits of a sample value
   * @return whether they are exactly the stale marker (Prometheus {@code value.IsStaleNaN})
   */
  public static boolean is(long valueBits) {
    return valueBits == BITS;
  }
}
