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
 * configuration file sets users, as in Prometheus. With {@code --multitenancy} both are for the
 * process, not a tenant (no {@code X-Scope-OrgID} needed): not ready while any tenant's store
 * cannot write (they share the disk), the line naming that tenant.
 */
final class HealthApi {

  private static final Logger log = LoggerFactory.getLogger(HealthApi.class);

  /** Least time between two probe writes, milliseconds: probes every second at most. */
  static final long PROBE_INTERVAL_MS = 1_000;

  private final Tenants tenants;
  private final AtomicLong lastProbeNs = new AtomicLong(System.nanoTime() - PROBE_INTERVAL_MS
      * 1_000_000L);

  /** @param tenants the tenants whose stores' writes readiness reports */
  HealthApi(Tenants tenants) {
    this.tenants = tenants;
  }

  /** @param sb the builder to add {@code /-/healthy} and {@code /-/ready} to */
  void bind(ServerBuilder sb) {
    sb.service("/-/healthy", (ctx, req) ->
        HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "InferLens is Healthy.\n"));
    sb.service("/-/ready", (ctx, req) -> {
      if (failing() == null) {
        return ready();
      }
      return HttpResponse.of(java.util.concurrent.CompletableFuture.supplyAsync(this::readiness,
          ctx.blockingTaskExecutor()));
    });
  }

  /** @return the first tenant whose store's last write failed, or null */
  private Tenant failing() {
    for (Tenant t : tenants.all()) {
      if (t.store().writeHealth().failure() != null) {
        return t;
      }
    }
    return null;
  }

  private HttpResponse readiness() {
    long now = System.nanoTime();
    long last = lastProbeNs.get();
    if (now - last >= PROBE_INTERVAL_MS * 1_000_000L && lastProbeNs.compareAndSet(last, now)) {
      for (Tenant t : tenants.all()) {
        TimeSeriesStore store = t.store();
        if (store.writeHealth().failure() == null) {
          continue;
        }
        try {
          store.probeWrite();
          log.info("the store{} can write again (probe write succeeded)",
              t.id() == null ? "" : " of tenant " + t.id());
        } catch (StorageException e) {
          log.debug("probe write failed: {}", e.getMessage());
        }
      }
    }
    Tenant t = failing();
    if (t == null) {
      return ready();
    }
    WriteHealth.Failure f = t.store().writeHealth().failure();
    if (f == null) {
      return ready();
    }
    return HttpResponse.of(HttpStatus.SERVICE_UNAVAILABLE, MediaType.PLAIN_TEXT_UTF_8,
        "InferLens is not ready: the store%s cannot write since %s (%d failed writes): %s\n",
        t.id() == null ? "" : " of tenant " + t.id(),
        Instant.ofEpochMilli(f.sinceMs()), f.failures(), oneLine(f.message()));
  }

  private static HttpResponse ready() {
    return HttpResponse.of(HttpStatus.OK, MediaType.PLAIN_TEXT_UTF_8, "InferLens is Ready.\n");
  }

  private static String oneLine(String s) {
    return s.replace('\n', ' ').replace('\r', ' ');
  }
}
