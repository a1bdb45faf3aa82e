package io.inferlens.ingest;

import io.inferlens.ingest.IngestException.Kind;
import io.inferlens.storage.AppendResult;
import io.inferlens.storage.SampleAppender;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.StorageException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The HTTP-independent remote write 1.0 receiver: headers → snappy → decode and validate → HA
 * deduplication → ingestion rate limit → append → outcome. The api module calls {@link #handle}
 * off the event loop and maps the result to a status in one place: {@link IngestException.Kind}
 * to 400/413/415/429, {@link StorageException} to 5xx (retry), {@link WriteOutcome#ok()} false
 * to 400, true to 204 (202 when {@link WriteOutcome#deduplicated()} is set).
 *
 * <p>Source: Prometheus remote write 1.0 specification
 * (https://prometheus.io/docs/specs/remote_write_spec/) and docs/DESIGN.md §2.
 *
 * <p>Thread safety: thread safe. Decoders are not, so each thread gets its own through a
 * {@link ThreadLocal}: requests run on a bounded blocking-task pool, so the number of decoders is
 * bounded by the pool size, and each retains at most a ~1.5 MiB label string cache; the
 * decompression buffer (at most 4 MiB retained) is one per thread, shared with the handlers of
 * other tenants. A pool would add contention and hand-back bugs for no gain here. All
 * decoders share one thread-safe {@link LabelSetCache} (bounded, see there), so a series
 * is cached once whichever thread decodes it next.
 */
public final class RemoteWriteHandler {

  private final SampleAppender appender;
  private final ThreadLocal<RemoteWriteDecoder> decoders;
  /** The ingestion rate limit, or null when it is off. */
  private final IngestionRateLimiter rateLimiter;
  /** The HA pairs' elections, or null when deduplication is off. */
  private final HaTracker haTracker;
  /** Removes the replica label from accepted HA requests; null when deduplication is off. */
  private final ReplicaLabelRemover replicaLabel;
  private final IngestLimits limits;
  /**
   * First label-set cache size of a tenant's handler ({@code --multitenancy}): 16,384 slots,
   * about 200 KiB of tables, room for about 12,000 active series before it grows.
   */
  public static final int TENANT_CACHE_SLOTS = 1 << 14;

  /** The decoders' shared label-set cache; replaced by one 8 times larger when nearly full. */
  private volatile LabelSetCache labelSets;

  /**
   * A handler whose label-set cache has {@link LabelSetCache#DEFAULT_SLOTS} slots from the start
   * (about 1.5 MiB of tables), the server's one store.
   *
   * @param appender where valid series go; must be thread safe (its contract says so)
   * @param limits size cap, timestamp window, label limits, ingestion rate and clock applied to
   *     every request
   */
  public RemoteWriteHandler(SampleAppender appender, IngestLimits limits) {
    this(appender, limits, LabelSetCache.DEFAULT_SLOTS);
  }

  /**
   * A handler whose label-set cache starts with {@code initialCacheSlots} slots and grows eight
   * times over, up to {@link LabelSetCache#DEFAULT_SLOTS}, when three quarters are filled (the
   * entries are then looked up and cached again, once): one tenant's of many, so that a
   * tenant with a few hundred series does not hold the 1.5 MiB tables a large one needs.
   *
   * @param appender where valid series go; thread safe
   * @param limits as for {@link #RemoteWriteHandler(SampleAppender, IngestLimits)}
   * @param initialCacheSlots the cache's first size, a power of two from 4 to 131,072, e.g.
   *     {@link #TENANT_CACHE_SLOTS}
   * @throws IllegalArgumentException if {@code initialCacheSlots} is not such a number
   */
  public RemoteWriteHandler(SampleAppender appender, IngestLimits limits, int initialCacheSlots) {
    if (initialCacheSlots > LabelSetCache.DEFAULT_SLOTS) {
      throw new IllegalArgumentException("initialCacheSlots must be at most "
          + LabelSetCache.DEFAULT_SLOTS + ", not " + initialCacheSlots);
    }
    this.labelSets = new LabelSetCache(initialCacheSlots);
    this.appender = Objects.requireNonNull(appender, "appender");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.haTracker = limits.ha().isOff() ? null : new HaTracker(limits.ha());
    this.replicaLabel = limits.ha().isOff() ? null
        : new ReplicaLabelRemover(limits.ha().replicaLabel());
    this.rateLimiter = limits.rate().isOff() ? null
        : new IngestionRateLimiter(limits.rate(), limits.clock());
    this.decoders = ThreadLocal.withInitial(() -> new RemoteWriteDecoder(limits,
        () -> this.labelSets));
  }

  /** Replaces a nearly full label-set cache by one 8 times larger, up to the default size. */
  private void growCacheIfFull() {
    LabelSetCache c = labelSets;
    if (c.slots() < LabelSetCache.DEFAULT_SLOTS && c.nearlyFull()) {
      synchronized (this) {
        if (labelSets == c) {
          labelSets = new LabelSetCache(Math.min(LabelSetCache.DEFAULT_SLOTS, c.slots() * 8));
        }
      }
    }
  }

  /** @return the label-set cache's number of slots now (tests) */
  int labelCacheSlots() {
    return labelSets.slots();
  }

  /**
   * Handles one remote write request. Valid series are appended even when other series of the
   * same request are rejected; the outcome then has {@code ok == false}. Valid metric metadata
   * entries go to {@link SampleAppender#appendMetadata} after the samples, even when other
   * entries or series are refused; a refused entry makes the outcome not ok as a refused series
   * does (the receiver never answers 2xx while dropping something it was sent), with one
   * exception: with HA deduplication on ({@link IngestLimits#ha()}), a request whose first
   * series carries both the cluster and the replica label is decided whole by {@link HaTracker}
   * (as Mimir, which looks at the first series only): accepted, it is stored with the replica
   * label removed from every series; from a replica that is not the elected one, it is dropped
   * whole, series and metadata, and the outcome is ok with {@link WriteOutcome#deduplicated()}
   * set (answered 202, as Mimir); beyond {@link HaConfig#maxClusters()}, refused whole
   * ({@link RejectReason#TOO_MANY_HA_CLUSTERS}, 400). A request whose first series lacks either
   * label, or whose replica value is longer than the label value limit (it fails validation
   * anyway, as in Mimir), is stored as it came. The decision comes before the ingestion rate
   * limit, so a dropped replica's writes take nothing from the bucket.
   *
   * @param contentType the Content-Type header, or null when absent
   * @param contentEncoding the Content-Encoding header, or null when absent
   * @param body the request body (snappy block compressed WriteRequest); not retained
   * @return counts and the first error; never null
   * @throws IngestException the request as a whole is refused ({@link Kind}); nothing was
   *     stored. {@link Kind#RATE_LIMITED} when its valid samples do not fit the ingestion rate
   *     limit's bucket (checked after decoding, as Mimir counts validated samples; metadata is not
   *     counted): the sender should retry after {@link IngestException#retryAfterSeconds()}
   * @throws StorageException the store failed; nothing of this request is acknowledged and the
   *     sender should retry (5xx)
   */
  public WriteOutcome handle(String contentType, String contentEncoding, byte[] body)
      throws IngestException, StorageException {
    WriteProtocol.check(contentType, contentEncoding);
    DecodedWrite decoded = decoders.get().decodeSnappy(body);
    growCacheIfFull();
    List<SeriesWrite> valid = decoded.valid();
    if (haTracker != null && HaConfig.decides(decoded.haCluster(), decoded.haReplica(),
        limits.labels().maxLabelValueLength())) {
      HaTracker.Decision d =
          haTracker.check(decoded.haCluster(), decoded.haReplica(), limits.clock().millis());
      long samples = decoded.samplesAccepted() + decoded.samplesRejected();
      switch (d.outcome()) {
        case DEDUPLICATED:
          return new WriteOutcome(true, null, 0, 0, 0, Map.of(), decoded.metadataCount(), 0, 0,
              new WriteOutcome.Deduplicated(decoded.haCluster(), decoded.haReplica(),
                  d.elected(), samples));
        case TOO_MANY_CLUSTERS:
          return new WriteOutcome(false, "HA cluster " + SeriesText.quoted(
              decoded.haCluster()) + " (label " + limits.ha().clusterLabel() + ") refused: "
              + limits.ha().maxClusters() + " clusters are tracked already, the limit of "
              + HaConfig.FLAG_MAX_CLUSTERS + "; nothing of the request stored (" + samples
              + (samples == 1 ? " sample" : " samples") + ")", 0, 0, 0,
              Map.of(RejectReason.TOO_MANY_HA_CLUSTERS.key(), samples),
              decoded.metadataCount(), 0, 0, null);
        default:
          valid = replicaLabel.apply(valid);
      }
    }
    if (rateLimiter != null) {
      long wait = rateLimiter.tryAcquire(decoded.samplesAccepted());
      if (wait > 0) {
        throw new IngestException(Kind.RATE_LIMITED, "ingestion rate limit exceeded: "
            + decoded.samplesAccepted() + " samples refused, nothing of the request stored; "
            + IngestionRate.FLAG_RATE + " " + formatRate(rateLimiter) + " samples/s with "
            + IngestionRate.FLAG_BURST + " " + rateLimiter.burst() + "; retry after " + wait
            + " s", wait, decoded.samplesAccepted());
      }
    }
    AppendResult appended = valid.isEmpty()
        ? new AppendResult(0, 0, 0, List.of(), 0)
        : appender.append(valid);
    int familiesChanged = decoded.metadata().isEmpty()
        ? 0 : appender.appendMetadata(decoded.metadata());

    Map<String, Long> rejected = new HashMap<>(decoded.rejectedByReason());
    if (appended.rejectedCount() > 0) {
      rejected.merge(RejectReason.CONFLICT.key(), appended.rejectedCount(), Long::sum);
    }
    List<AppendResult.LimitRefusal> limited = appended.limitRefusals();
    for (AppendResult.LimitRefusal r : limited) {
      rejected.merge(RejectReason.of(r.limit()).key(), r.samples(), Long::sum);
    }
    String first = decoded.firstError();
    long moreSeries = Math.max(0, decoded.seriesRejected() - 1);
    long moreSamples = appended.rejectedCount();
    long moreMetadata = decoded.metadataRejected();
    int limitedShown = 0;
    if (first == null && !limited.isEmpty()) {
      first = limited.get(0).message();
      limitedShown = 1;
    }
    List<String> moreLimited = new java.util.ArrayList<>(limited.size());
    for (AppendResult.LimitRefusal r : limited.subList(limitedShown, limited.size())) {
      moreLimited.add(r.series() + " new series (" + r.samples()
          + (r.samples() == 1 ? " sample" : " samples") + ") over " + r.limit().flag() + "="
          + r.limitValue() + ", the first of metric \"" + r.firstMetric() + "\"");
    }
    if (first == null && appended.rejectedCount() > 0) {
      first = appended.rejections().isEmpty()
          ? appended.rejectedCount() + " samples conflict with stored samples"
          : withSeries(appended.rejections().get(0));
      moreSamples--;
    }
    boolean firstIsMetadata = false;
    if (first == null && decoded.metadataError() != null) {
      first = decoded.metadataError();
      firstIsMetadata = true;
      moreMetadata--;
    }
    String message = first == null ? null
        : first + alsoRefused(moreSeries, moreLimited, moreSamples, moreMetadata,
            firstIsMetadata);
    return new WriteOutcome(message == null, message, appended.samplesAppended(),
        appended.samplesDuplicate(), appended.seriesCreated(), rejected, decoded.metadataCount(),
        decoded.metadataRejected(), familiesChanged, null);
  }

  /**
   * @return every HA cluster's elected replica, after forgetting clusters idle for
   *     {@link HaTracker#IDLE_FORGET_MS}; empty when HA deduplication is off
   */
  public List<HaTracker.Election> haElections() {
    return haTracker == null ? List.of() : haTracker.elections(limits.clock().millis());
  }

  /**
   * @return "" when nothing more was refused, else e.g. "; also refused: 2 more series, 3 new
   *     series (3 samples) over --limits.max-series=1000, the first of metric "x", 1 more
   *     sample conflicting with a stored sample (counts by reason: …)"
   */
  private static String alsoRefused(long moreSeries, List<String> moreLimited, long moreSamples,
      long moreMetadata, boolean firstIsMetadata) {
    List<String> parts = new java.util.ArrayList<>(3 + moreLimited.size());
    if (moreSeries > 0) {
      parts.add(moreSeries + " more series");
    }
    parts.addAll(moreLimited);
    if (moreSamples > 0) {
      parts.add(moreSamples + (moreSamples == 1
          ? " more sample conflicting with a stored sample"
          : " more samples conflicting with stored samples"));
    }
    if (moreMetadata > 0) {
      parts.add(moreMetadata + (firstIsMetadata ? " more" : "")
          + (moreMetadata == 1 ? " metadata entry" : " metadata entries"));
    }
    if (parts.isEmpty()) {
      return "";
    }
    boolean samples = moreSeries > 0 || moreSamples > 0 || !moreLimited.isEmpty();
    String counts = samples && moreMetadata > 0
        ? "counts by reason: inferlens_samples_rejected_total; metadata:"
            + " inferlens_metadata_rejected_total"
        : samples ? "counts by reason: inferlens_samples_rejected_total"
            : "count: inferlens_metadata_rejected_total";
    return "; also refused: " + String.join(", ", parts) + " (" + counts + ")";
  }

  /** @return the rate as the flag was given: {@code 1000}, not {@code 1000.0}; {@code 2.5} */
  private static String formatRate(IngestionRateLimiter limiter) {
    double r = limiter.samplesPerSecond();
    return r == Math.rint(r) && Math.abs(r) < 1e15 ? Long.toString((long) r) : Double.toString(r);
  }

  /** The rejection's reason, prefixed with its series unless the store already named it. */
  private static String withSeries(AppendResult.Rejection r) {
    String prefix = "series " + r.series() + ": ";
    return r.reason().startsWith(prefix) ? r.reason() : prefix + r.reason();
  }
}
