package io.inferlens.ingest;

import java.util.Objects;

/**
 * A remote write request that InferLens refuses as a whole: for a reason the sender cannot fix by
 * retrying, or ({@link Kind#RATE_LIMITED}) because it came beyond the ingestion rate limit and
 * should be retried after {@link #retryAfterSeconds()}. The {@link Kind} is the only thing
 * callers branch on; the api module maps it to an HTTP status in one place. The message names the
 * offending header, field, series or limit with its numbers and is meant to be sent back to the
 * sender verbatim.
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
    UNSUPPORTED_MEDIA_TYPE,
    /**
     * Beyond the ingestion rate limit ({@link IngestionRate}); nothing of the request was stored.
     * HTTP 429 with {@code Retry-After}: the sender backs off and retries.
     */
    RATE_LIMITED
  }

  private final Kind kind;
  private final long retryAfterSeconds;
  private final long samples;

  /**
   * @param kind the failure class, never null
   * @param message what is wrong, naming the field/series/limit and the numbers
   */
  public IngestException(Kind kind, String message) {
    this(kind, message, 0, 0);
  }

  /**
   * @param kind the failure class, never null
   * @param message what is wrong, naming the field/series/limit and the numbers
   * @param retryAfterSeconds for {@link Kind#RATE_LIMITED}, whole seconds to wait before
   *     retrying, ≥ 1; else 0
   * @param samples for {@link Kind#RATE_LIMITED}, the valid samples of the refused request, ≥ 0
   *     (counted as rejected with reason {@code rate_limited}); else 0
   */
  public IngestException(Kind kind, String message, long retryAfterSeconds, long samples) {
    super(message);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.retryAfterSeconds = retryAfterSeconds;
    this.samples = samples;
  }

  /** @return whole seconds to wait before retrying, ≥ 1 for {@link Kind#RATE_LIMITED}, else 0 */
  public long retryAfterSeconds() {
    return retryAfterSeconds;
  }

  /** @return samples refused with the request for {@link Kind#RATE_LIMITED}, else 0 */
  public long samples() {
    return samples;
  }

  /** @return the failure class; branch on this, never on the message text */
  public Kind kind() {
    return kind;
  }
}
