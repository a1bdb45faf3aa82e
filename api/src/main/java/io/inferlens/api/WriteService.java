package io.inferlens.api;

import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpData;
import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServiceRequestContext;
import io.inferlens.ingest.IngestException;
import io.inferlens.ingest.WriteOutcome;
import io.inferlens.storage.StorageException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /api/v1/write}: Prometheus remote write 1.0. Answers 204 when every sample of the
 * request is durable (or was an idempotent duplicate, or the request carried none); 400 when
 * any series or sample was refused — the valid ones are stored all the same, and the body names
 * the first refused series; 413/415 for size and media-type errors; 429 with {@code Retry-After}
 * (whole seconds) when the request came beyond {@code --limits.ingestion-rate}, nothing of it
 * stored, so the sender backs off and retries; 202 when HA deduplication dropped the request as
 * a non-elected replica's (as Mimir: a 2xx, so the replica does not retry, with a body naming the
 * elected replica); 503 when the store failed or the server is overloaded, so the sender
 * retries (docs/DESIGN.md section 2). With {@code --multitenancy}, the request's
 * {@code X-Scope-OrgID} header picks the tenant whose store, limits and HA elections apply
 * ({@link Tenants}): 401 without it, 400 for a malformed id or a new tenant past
 * {@code --multitenancy.max-tenants}; a new tenant's store is created by its first write.
 *
 * <p>The body is aggregated by Armeria under the server's {@code maxRequestLength} (413 past it);
 * a request whose body would take the bodies in flight past {@code --max-inflight-write-bytes}
 * is answered 503 with {@code Retry-After} before its body is read ({@link InflightWrites});
 * decoding and the RocksDB write run on this service's own pool of {@link #threads()} threads,
 * never on the event loop. Not on Armeria's shared blocking pool (up to 200 threads): each
 * decoding thread keeps about 1-5 MiB of scratch (decompression buffer, label strings), and
 * appends serialize on the store's lock anyway, so more threads than cores only cost memory
 * (measured: about 200 MiB of heap on the 100,000-series bench). Requests beyond the pool wait
 * in its queue; {@link #close()} stops the pool.
 */
public final class WriteService implements HttpService, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(WriteService.class);

  private final Tenants tenants;
  private final InflightWrites inflight;
  private final java.util.concurrent.ExecutorService pool;

  /** @return decoding threads: the number of cores, at least 2 */
  static int threads() {
    return Math.max(2, Runtime.getRuntime().availableProcessors());
  }

  /**
   * @param tenants the tenant of each request (the one store without --multitenancy), whose
   *     {@link Tenant#writeHandler()} decodes and appends and whose {@link Tenant#metrics()}
   *     count the outcome
   * @param inflight the bound on request bodies in flight ({@code --max-inflight-write-bytes})
   */
  WriteService(Tenants tenants, InflightWrites inflight) {
    this.tenants = tenants;
    this.inflight = inflight;
    java.util.concurrent.atomic.AtomicInteger n = new java.util.concurrent.atomic.AtomicInteger();
    this.pool = java.util.concurrent.Executors.newFixedThreadPool(threads(), r -> {
      Thread t = new Thread(r, "inferlens-write-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** Stops the decoding pool; requests already queued finish first. */
  @Override
  public void close() {
    pool.shutdown();
  }

  @Override
  public HttpResponse serve(ServiceRequestContext ctx, HttpRequest req) {
    if (req.method() != HttpMethod.POST) {
      return text(knownMetrics(req.headers()), ErrorMapping.Kind.METHOD_NOT_ALLOWED,
          "remote write takes POST, not " + req.method());
    }
    long declared = req.headers().contentLength();
    long cap = ctx.maxRequestLength();
    if (cap > 0 && declared > cap) {
      // Say which limit, before Armeria reads the body only to refuse it generically.
      return text(knownMetrics(req.headers()), ErrorMapping.Kind.TOO_LARGE,
          "body of " + declared + " bytes exceeds --max-request-bytes " + cap);
    }
    if (declared < 0) {
      // Chunked: the size is known once the body is read; charged then, before it is queued.
      return HttpResponse.of(req.aggregate().thenCompose(agg -> {
        long size = agg.content().length();
        if (!inflight.tryAcquire(size)) {
          return java.util.concurrent.CompletableFuture.completedFuture(
              overloaded(knownMetrics(agg.headers()), size));
        }
        return decode(ctx, agg, size);
      }));
    }
    if (!inflight.tryAcquire(declared)) {
      return overloaded(knownMetrics(req.headers()), declared);
    }
    return HttpResponse.of(req.aggregate()
        .whenComplete((agg, e) -> {
          if (e != null) {
            inflight.release(declared); // the body never arrived: nothing to decode
          }
        })
        .thenCompose(agg -> decode(ctx, agg, declared)));
  }

  /** Decodes on the pool; releases the request's {@code charge} of in-flight bytes after. */
  private java.util.concurrent.CompletableFuture<HttpResponse> decode(ServiceRequestContext ctx,
      AggregatedHttpRequest agg, long charge) {
    try {
      return java.util.concurrent.CompletableFuture
          .supplyAsync(() -> ctx.isCancelled() ? abandoned(agg) : handle(agg), pool)
          .whenComplete((r, e) -> inflight.release(charge));
    } catch (java.util.concurrent.RejectedExecutionException e) {
      inflight.release(charge); // the server is stopping
      return java.util.concurrent.CompletableFuture.completedFuture(text(null,
          ErrorMapping.Kind.UNAVAILABLE, "the server is stopping; nothing of it was stored"));
    }
  }

  /**
   * 503 with {@code Retry-After: 1}: the body would take the bytes in flight past
   * {@code --max-inflight-write-bytes}. The sender keeps the samples and retries; the body is
   * not read.
   */
  private HttpResponse overloaded(SelfMetrics metrics, long bodyBytes) {
    if (metrics != null) {
      metrics.writeRequest(HttpStatus.SERVICE_UNAVAILABLE.code());
    }
    ResponseHeaders headers = ResponseHeaders.builder(HttpStatus.SERVICE_UNAVAILABLE)
        .contentType(MediaType.PLAIN_TEXT_UTF_8)
        .add(HttpHeaderNames.RETRY_AFTER, "1")
        .build();
    return HttpResponse.of(headers, HttpData.ofUtf8("overloaded: " + inflight.inflightBytes()
        + " bytes of remote-write bodies are in flight and this body of " + bodyBytes
        + " bytes would pass --max-inflight-write-bytes=" + inflight.limitBytes()
        + "; nothing of it was stored, retry after 1 s\n"));
  }

  /**
   * A request whose sender gave up (closed the connection) or that timed out while it waited in
   * the queue: not decoded, since nobody reads the answer and the sender will send it again;
   * decoding it would only make the queue behind it wait longer under overload.
   */
  private HttpResponse abandoned(AggregatedHttpRequest req) {
    return text(knownMetrics(req.headers()), ErrorMapping.Kind.UNAVAILABLE,
        "request cancelled or timed out before it was decoded; nothing of it was stored");
  }

  /** @return the metrics of the request's tenant if it has a store, else null; never opens one */
  private SelfMetrics knownMetrics(com.linecorp.armeria.common.RequestHeaders headers) {
    try {
      Tenant t = tenants.existing(headers);
      return t == null ? null : t.metrics();
    } catch (Tenants.TenantException e) {
      return null;
    }
  }

  private HttpResponse handle(AggregatedHttpRequest req) {
    String contentType = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
    String contentEncoding = req.headers().get(HttpHeaderNames.CONTENT_ENCODING);
    byte[] body = req.content().array();
    Tenant tenant;
    try {
      tenant = tenants.existing(req.headers());
      if (tenant == null) {
        // A new tenant: its store is created by a request that stores something, so a wrong
        // protocol, a body that does not parse or a typo'd tenant sending nothing valid leaves
        // no store behind and takes no --multitenancy.max-tenants slot.
        String id = Tenants.idOf(req.headers());
        WriteOutcome probe = tenants.probe(id, contentType, contentEncoding, body);
        if (probe.samplesAppended() == 0 && probe.metadataCount() == probe.metadataRejected()
            && probe.deduplicated() == null) {
          return answer(null, null, probe);
        }
        // Opening a new tenant's store blocks: this runs on the pool, not the event loop.
        tenant = tenants.create(id);
      }
    } catch (Tenants.TenantException e) {
      tenants.refused(e);
      return text(null, e.kind(), e.getMessage());
    } catch (IngestException e) {
      return ingestError(null, null, e);
    } catch (StorageException e) {
      log.error("cannot open the store of the request's tenant; answering 503", e);
      return text(null, ErrorMapping.Kind.UNAVAILABLE, "storage failure: " + e.getMessage());
    }
    SelfMetrics metrics = tenant.metrics();
    long t0 = System.nanoTime();
    try {
      WriteOutcome outcome = tenant.writeHandler().handle(contentType, contentEncoding, body);
      metrics.decodeNanos(System.nanoTime() - t0);
      return answer(metrics, tenant, outcome);
    } catch (IngestException e) {
      return ingestError(metrics, tenant, e);
    } catch (StorageException e) {
      log.error("remote write failed in the store; answering 503 so the sender retries", e);
      return text(metrics, ErrorMapping.Kind.UNAVAILABLE, "storage failure: "
          + e.getMessage());
    } catch (RuntimeException e) {
      // A bug, not bad input: say so, and let the sender retry.
      log.error("unexpected error while handling remote write", e);
      return text(metrics, ErrorMapping.Kind.INTERNAL, "internal error: " + e);
    }
  }

  /** Reasons of refusals that a limit made: the 400 says where a tenant's limits came from. */
  private static final java.util.Set<String> LIMIT_REASONS = java.util.Set.of(
      io.inferlens.ingest.RejectReason.SERIES_LIMIT.key(),
      io.inferlens.ingest.RejectReason.SERIES_PER_METRIC_LIMIT.key(),
      io.inferlens.ingest.RejectReason.MAX_LABEL_NAMES_PER_SERIES.key(),
      io.inferlens.ingest.RejectReason.LABEL_NAME_TOO_LONG.key(),
      io.inferlens.ingest.RejectReason.LABEL_VALUE_TOO_LONG.key(),
      io.inferlens.ingest.RejectReason.METRIC_NAME_TOO_LONG.key());

  /**
   * The answer to a handled request: 202 (deduplicated), 204 or 400, counted in
   * {@code metrics} (none for a new tenant's request that stored nothing).
   */
  private static HttpResponse answer(SelfMetrics metrics, Tenant tenant, WriteOutcome outcome) {
    if (metrics != null) {
      metrics.ingested(outcome.samplesAppended(), outcome.samplesDuplicate(),
          outcome.seriesCreated());
      for (Map.Entry<String, Long> e : outcome.rejectedByReason().entrySet()) {
        metrics.rejected(e.getKey(), e.getValue());
      }
      if (outcome.metadataCount() > 0) {
        metrics.metadata(outcome.metadataCount(), outcome.metadataRejected());
      }
    }
    WriteOutcome.Deduplicated dedup = outcome.deduplicated();
    if (dedup != null) {
      if (metrics != null) {
        metrics.haDeduplicated(dedup.cluster(), dedup.samples());
        metrics.writeRequest(HttpStatus.ACCEPTED.code());
      }
      return HttpResponse.of(HttpStatus.ACCEPTED, MediaType.PLAIN_TEXT_UTF_8,
          "deduplicated: replica \"" + dedup.replica() + "\" of HA cluster \""
          + dedup.cluster() + "\" is not the elected replica \"" + dedup.elected()
          + "\"; its " + dedup.samples() + " samples were dropped\n");
    }
    if (outcome.ok()) {
      if (metrics != null) {
        metrics.writeRequest(HttpStatus.NO_CONTENT.code());
      }
      return HttpResponse.of(HttpStatus.NO_CONTENT);
    }
    String note = "";
    if (tenant != null && tenant.limitsNote() != null
        && outcome.rejectedByReason().keySet().stream().anyMatch(LIMIT_REASONS::contains)) {
      note = tenant.limitsNote();
    }
    return text(metrics, ErrorMapping.Kind.BAD_DATA, outcome.errorMessage() + note);
  }

  /** An {@link IngestException}: 429 with {@code Retry-After}, or its 4xx. */
  private static HttpResponse ingestError(SelfMetrics metrics, Tenant tenant,
      IngestException e) {
    if (e.kind() == IngestException.Kind.RATE_LIMITED) {
      if (metrics != null) {
        metrics.rejected(io.inferlens.ingest.RejectReason.RATE_LIMITED.key(), e.samples());
      }
      return rateLimited(metrics, e, tenant == null || tenant.limitsNote() == null ? ""
          : tenant.limitsNote());
    }
    return text(metrics, ErrorMapping.kind(e.kind()), e.getMessage());
  }

  /** 429 with {@code Retry-After} in whole seconds (RFC 9110 section 10.2.3, delta-seconds). */
  private static HttpResponse rateLimited(SelfMetrics metrics, IngestException e,
      String note) {
    HttpStatus status = ErrorMapping.status(e.kind());
    if (metrics != null) {
      metrics.writeRequest(status.code());
    }
    ResponseHeaders headers = ResponseHeaders.builder(status)
        .contentType(MediaType.PLAIN_TEXT_UTF_8)
        .add(HttpHeaderNames.RETRY_AFTER, Long.toString(e.retryAfterSeconds()))
        .build();
    return HttpResponse.of(headers, HttpData.ofUtf8(e.getMessage() + note + "\n"));
  }

  /**
   * Remote write answers errors in plain text, as Prometheus's receivers do; counted in the
   * tenant's {@code metrics}, or not at all before a tenant is known (null).
   */
  private static HttpResponse text(SelfMetrics metrics, ErrorMapping.Kind kind, String message) {
    HttpStatus status = ErrorMapping.status(kind);
    if (metrics != null) {
      metrics.writeRequest(status.code());
    }
    return HttpResponse.of(status, MediaType.PLAIN_TEXT_UTF_8, message + "\n");
  }
}
