package io.inferlens.api;

import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.server.ServerBuilder;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.TimeSeriesStore;
import io.inferlens.storage.WriteHealth;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health checks, with Prometheus's paths and bodies (web/web.go):
 *
 * <ul>
 *   <li>{@code /-/healthy}: 200 {@code InferLens is Healthy.} while the process serves HTTP,
 *       whatever the store's state (a liveness probe: restarting does not free a disk);
 *   <li>{@code /-/ready}: 200 {@code InferLens is Ready.} while the store can write, else 503
 *       with one line saying why, e.g. {@code InferLens is not ready: the store cannot write
 *       since 2026-12-03T17:00:00Z (3 failed writes): IO error: No space left on device} (a
 *       readiness probe: a load balancer stops sending writes that would all answer 503).
 * </ul>
 *
 * <p>"Can write" is the outcome of the store's most recent write ({@link WriteHealth}). While it
 * is a failure, a readiness check first makes a probe write ({@link TimeSeriesStore#probeWrite()},
 * at most one per {@value #PROBE_INTERVAL_MS} ms, on the blocking executor), so the instance
 * turns ready again once the disk has room even if no sender writes to it. Any method is
 * answered, as Prometheus answers GET and HEAD. Behind basic authentication when the web
 * configuration file sets users, as in Prometheus.
 */
final class HealthApi {

  private static final Logger log = LoggerFactory.getLogger(HealthApi.class);

  /** Least time between two probe writes, milliseconds: probes every second at most. */
  static final long PROBE_INTERVAL_MS = 1_000;

  private final TimeSeriesStore store;
  private final AtomicLong lastProbeNs = new AtomicLong(System.nanoTime() - PROBE_INTERVAL_MS
      * 1_000_000L);

  /** @param store the store whose writes readiness reports */
  HealthApi(TimeSeriesStore store) {
    this.store = store;
  }

  /** @param sb the builder to add {@code /-/healthy} and {@code /-/ready} to */
  void bind(ServerBuilder sb) {
    sb.service("/-/healthy", (ctx, req) ->
        HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "InferLens is Healthy.\n"));
    sb.service("/-/ready", (ctx, req) -> {
      if (store.writeHealth().failure() == null) {
        return ready();
      }
      return HttpResponse.of(java.util.concurrent.CompletableFuture.supplyAsync(this::readiness,
          ctx.blockingTaskExecutor()));
    });
  }

  private HttpResponse readiness() {
    long now = System.nanoTime();
    long last = lastProbeNs.get();
    if (now - last >= PROBE_INTERVAL_MS * 1_000_000L && lastProbeNs.compareAndSet(last, now)) {
      try {
        store.probeWrite();
        log.info("the store can write again (probe write succeeded); ready");
      } catch (StorageException e) {
        log.debug("probe write failed: {}", e.getMessage());
      }
    }
    WriteHealth.Failure f = store.writeHealth().failure();
    if (f == null) {
      return ready();
    }
    return HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE, MediaType.PLAIN_TEXT_UTF_8,
        "InferLens is not ready: the store cannot write since %s (%d failed writes): %s\n",
        Instant.ofEpochMilli(f.sinceMs()), f.failures(), oneLine(f.message()));
  }

  private static HttpResponse ready() {
    return HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "InferLens is Ready.\n");
  }

  private static String oneLine(String s) {
    return s.replace('\n', ' ').replace('\r', ' ');
  }
}
