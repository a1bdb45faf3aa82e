package io.inferlens.api;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The bound on remote-write bodies in flight: the bytes of every request admitted and not yet
 * answered, counted by its {@code Content-Length} (the compressed body) from the moment its
 * headers arrive, before Armeria reads the body, until the answer is sent. A request that would
 * take the total past {@link #limitBytes()} is not admitted: the write service answers 503 with
 * {@code Retry-After} at once, so the sender keeps the samples and retries (Prometheus retries
 * every 5xx and honours {@code Retry-After}; storage/remote/client.go), and nothing of the
 * request is read into memory. As Mimir's instance limit
 * {@code -distributor.instance-limits.max-inflight-push-requests-bytes}, it bounds what queued
 * requests hold: decoding (what the decompressed body and its series cost) is bounded apart by
 * the write service's fixed pool of decoding threads, so heap under any overload is about this
 * limit plus one decoded request per decoding thread.
 *
 * <p>A request without {@code Content-Length} (chunked) is charged its body's size once Armeria
 * has read it (at most {@code --max-request-bytes}), before it is queued for decoding. One
 * request alone is always admitted when nothing else is in flight,
 * so a limit below {@code --max-request-bytes} cannot refuse every large request forever.
 * Thread safe, lock free.
 */
final class InflightWrites {

  /** Default of {@code --max-inflight-write-bytes}: 16 MiB of request bodies. */
  static final long DEFAULT_LIMIT_BYTES = 16L << 20;

  private final long limitBytes;
  private final AtomicLong inflight = new AtomicLong();

  /**
   * @param limitBytes the most bytes of bodies in flight, &ge; 1
   * @throws IllegalArgumentException if {@code limitBytes} &lt; 1
   */
  InflightWrites(long limitBytes) {
    if (limitBytes < 1) {
      throw new IllegalArgumentException("--max-inflight-write-bytes must be at least 1, got "
          + limitBytes);
    }
    this.limitBytes = limitBytes;
  }

  /** @return the limit in bytes */
  long limitBytes() {
    return limitBytes;
  }

  /** @return bytes of the bodies admitted and not yet answered now */
  long inflightBytes() {
    return inflight.get();
  }

  /**
   * Admits a request of {@code bytes} if the total stays within the limit, or if nothing is in
   * flight.
   *
   * @param bytes the body's size in bytes, &ge; 0
   * @return true if admitted: the caller must {@link #release(long)} the same bytes once
   */
  boolean tryAcquire(long bytes) {
    while (true) {
      long now = inflight.get();
      if (now > 0 && now + bytes > limitBytes) {
        return false;
      }
      if (inflight.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  /** @param bytes what {@link #tryAcquire(long)} admitted */
  void release(long bytes) {
    inflight.addAndGet(-bytes);
  }
}
