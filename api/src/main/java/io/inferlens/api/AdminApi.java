package io.inferlens.api;

import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.server.HttpService;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.TimeSeriesStore;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Store maintenance for tests and benchmarks: {@code POST /api/v1/admin/flush} writes the
 * memtables to SST files, {@code POST /api/v1/admin/compact} flushes and fully compacts every
 * column family. Both wait until RocksDB is done and answer 200 with
 * {@code {"status":"success","data":{"operation","duration_ms","before":{…},"after":{…}}}}, the
 * sizes being {@code dir_bytes} (the data directory), {@code live_sst_bytes} and
 * {@code memtable_bytes} (samples column family), and {@code bytes_by_kind}: SST plus memtable
 * bytes of {@code chunks}, {@code rollup5m}, {@code rollup1h}, {@code head_log} and {@code index}
 * ({@link TimeSeriesStore#bytesByKind()}). Other methods get 405; a store failure 503.
 * They run on Armeria's blocking executor; a full compaction of a large store takes minutes, so
 * the request timeout is lifted for them.
 *
 * <p>Off unless {@code --web.enable-admin-api}, as Prometheus's admin APIs: then a POST answers
 * 403 {@code {"status":"error","errorType":"forbidden","error":"admin APIs disabled"}}.
 * Prometheus (web/api/v1/api.go) says the same words with 503 {@code unavailable}; a 503 tells
 * clients and load balancers to retry, while a disabled API is a permanent refusal.
 */
final class AdminApi {

  private static final Logger log = LoggerFactory.getLogger(AdminApi.class);

  private AdminApi() {}

  /** One maintenance operation of the store. */
  @FunctionalInterface
  private interface Operation {
    void run(TimeSeriesStore store) throws StorageException;
  }

  /** The error of a disabled admin endpoint, Prometheus's words. */
  static final String DISABLED = "admin APIs disabled";

  /**
   * @param sb where to bind the two routes (the server, or one tenant's route table)
   * @param store the store they act on
   * @param enabled {@code --web.enable-admin-api}; false, they answer 403 {@value #DISABLED}
   */
  static void bind(Routes sb, TimeSeriesStore store, boolean enabled) {
    sb.service("/api/v1/admin/flush", service("flush", store, TimeSeriesStore::flush, enabled));
    sb.service("/api/v1/admin/compact", service("compact", store, TimeSeriesStore::compact,
        enabled));
  }

  private static HttpService service(String name, TimeSeriesStore store, Operation op,
      boolean enabled) {
    return (ctx, req) -> {
      if (req.method() != HttpMethod.POST) {
        return JsonEndpoints.error(ErrorMapping.Kind.METHOD_NOT_ALLOWED,
            "admin " + name + " takes POST, not " + req.method());
      }
      if (!enabled) {
        return JsonEndpoints.error(ErrorMapping.Kind.FORBIDDEN, DISABLED);
      }
      // Waits for RocksDB: a full compaction is not bounded by the 60 s API timeout.
      ctx.clearRequestTimeout();
      return HttpResponse.of(req.aggregate().thenApplyAsync(agg -> {
        try {
          Map<String, Object> data = new LinkedHashMap<>();
          data.put("operation", name);
          Map<String, Object> before = sizes(store);
          long startNs = System.nanoTime();
          op.run(store);
          data.put("duration_ms", (System.nanoTime() - startNs) / 1_000_000);
          data.put("before", before);
          data.put("after", sizes(store));
          log.info("admin {}: {}", name, data);
          return JsonEndpoints.success(data);
        } catch (StorageException e) {
          log.error("admin {} failed in the store", name, e);
          return JsonEndpoints.error(ErrorMapping.Kind.UNAVAILABLE, e.getMessage());
        }
      }, ctx.blockingTaskExecutor()));
    };
  }

  private static Map<String, Object> sizes(TimeSeriesStore store) throws StorageException {
    Map<String, Long> props = store.rocksProperties();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("dir_bytes", store.diskSizeBytes());
    out.put("live_sst_bytes", props.get("rocksdb.total-sst-files-size"));
    out.put("memtable_bytes", props.get("rocksdb.cur-size-all-mem-tables"));
    // Which kind of data the bytes are (raw chunks, rollups, head log, index): for disk figures.
    out.put("bytes_by_kind", store.bytesByKind());
    return out;
  }
}
