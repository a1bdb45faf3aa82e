package io.inferlens.ingest;

import java.util.Objects;

/**
 * A remote write request that InferLens refuses as a whole, for a reason the sender cannot fix by
 * retrying. The {@link Kind} is the only thing callers branch on; the api module maps it to an
 * HTTP status in one place. The message names the offending header, field, series or limit with
 * its numbers and is meant to be sent back to the sender verbatim.
 *
 * <p>Per-series problems (bad labels, bad timestamps) are not exceptions: they are reported in
 * {@link DecodedWrite} / {@link WriteOutcome} so that the valid series of the same request are
 * still stored.
 */
public final class IngestException extends Exception {
  private static final long serialVersionUID = 1L;

  /** The closed set of request-level failures. */
  public enum Kind {
    /** Malformed body: empty, not a snappy block, not a WriteRequest. HTTP 400. */
    BAD_REQUEST,
    /** The compressed or the declared decompressed size is over the configured limit. HTTP 413. */
    PAYLOAD_TOO_LARGE,
    /** Content-Type or Content-Encoding that is not remote write 1.0 with snappy. HTTP 415. */
    UNSUPPORTED_MEDIA_TYPE
  }

  private final Kind kind;

  /**
   * @param kind the failure class, never null
   * @param message what is wrong, naming the field/series/limit and the numbers
   */
  public IngestException(Kind kind, String message) {
    super(message);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /** @return the failure class; branch on this, never on the message text */
  public Kind kind() {
    return kind;
  }
}
