package io.inferlens.api;

import com.linecorp.armeria.common.RequestHeaders;
import io.inferlens.storage.StorageException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which {@link Tenant} a request is for.
 *
 * <p>Without {@code --multitenancy} there is one tenant, the store in the data directory, and
 * every request goes to it whatever its headers ({@code X-Scope-OrgID} is ignored, as Mimir with
 * multitenancy disabled).
 *
 * <p>With it, as Mimir and Cortex: the {@value #HEADER} header names the tenant of every write,
 * read, query, diagnosis and UI request; a request without it is refused with 401 "no org id"
 * naming the header, and a malformed id with 400 naming the rule. A sender that cannot set
 * headers may name its tenant with the URL parameter {@value #PARAM} instead ({@link #PARAM});
 * both, naming different tenants, are refused with 400. Tenant ids follow Mimir's
 * rules ("About Grafana Mimir tenant IDs"): 1 to {@value #MAX_ID_LENGTH} characters of
 * {@code a-z A-Z 0-9 ! - _ . * ' ( )}, not {@code .} or {@code ..}; a list of tenants
 * ({@code a|b}, Mimir's query federation) is refused. Each tenant's store lives in
 * {@code <data-dir>/tenants/<id>}: the stores found there are opened at start-up, and a write
 * naming a tenant without one creates it if it stores something (one refused whole, or whose
 * every series is refused, creates nothing), up to {@code --multitenancy.max-tenants} (past it
 * the write is refused with 400 naming the flag). A request naming two different tenants (two
 * headers, two parameters, or a header and a parameter that disagree) is refused with 400. A read naming a tenant that has no store is
 * answered from an empty one, as Mimir answers a tenant that never wrote: no series, no
 * targets, no incidents; it creates nothing.
 *
 * <p>Thread safe: tenants are created under this object's lock, found without it.
 */
final class Tenants implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Tenants.class);

  /** The request header naming the tenant (Mimir's and Cortex's). */
  static final String HEADER = "X-Scope-OrgID";

  /**
   * The URL parameter that names the tenant when the header cannot be sent: Debian's Prometheus
   * 2.42 package drops {@code remote_write}'s and {@code remote_read}'s {@code headers} (its
   * patch disabling OpenTelemetry; checked against a server printing what it receives), so its
   * users put {@code ?tenant=ID} in the URL instead. An InferLens extension, not Mimir's.
   */
  static final String PARAM = "tenant";

  /** Longest tenant id, in characters (Mimir's). */
  static final int MAX_ID_LENGTH = 150;

  /** The folder of the data directory that holds one store per tenant. */
  static final String TENANTS_DIR = "tenants";

  /** The flag bounding the number of tenants. */
  static final String FLAG_MAX_TENANTS = "--multitenancy.max-tenants";

  /** A request's tenant could not be decided; nothing was read or written. */
  static final class TenantException extends Exception {
    private final ErrorMapping.Kind kind;
    private final String reason;

    TenantException(ErrorMapping.Kind kind, String reason, String message) {
      super(message);
      this.kind = kind;
      this.reason = reason;
    }

    /** @return {@link ErrorMapping.Kind#UNAUTHORIZED} (no header) or BAD_DATA (bad id, too many) */
    ErrorMapping.Kind kind() {
      return kind;
    }

    /**
     * @return why, the {@code reason} of {@code inferlens_tenant_refused_requests_total}:
     *     {@code no_org_id}, {@code invalid_tenant}, {@code conflicting_tenants} or
     *     {@code too_many_tenants}
     */
    String reason() {
      return reason;
    }
  }

  /** Opens one tenant's stack. */
  @FunctionalInterface
  interface Opener {
    /**
     * @param id the tenant's id
     * @param dir its store's directory
     * @return the open tenant
     * @throws StorageException if its store cannot be opened
     */
    Tenant open(String id, Path dir) throws StorageException;
  }

  /** Handles a new tenant's write as its handler would, storing nothing. */
  @FunctionalInterface
  interface Prober {
    /**
     * @param id the tenant's id
     * @param contentType the request's Content-Type, or null
     * @param contentEncoding the request's Content-Encoding, or null
     * @param body the request's body
     * @return what the tenant's handler would answer, as if every valid sample were new
     * @throws IngestException as {@link io.inferlens.ingest.RemoteWriteHandler#handle}
     * @throws StorageException never from the probe's own appender
     */
    io.inferlens.ingest.WriteOutcome probe(String id, String contentType, String contentEncoding,
        byte[] body) throws io.inferlens.ingest.IngestException, StorageException;
  }

  /** The one tenant without --multitenancy, else null. */
  private final Tenant single;
  private final Path tenantsDir;
  private final Opener opener;
  private final Prober prober;
  private final int maxTenants;
  private final ConcurrentHashMap<String, Tenant> byId = new ConcurrentHashMap<>();
  /** Answers reads of tenants without a store; null without --multitenancy. */
  private final Tenant empty;
  private boolean closed;
  /** Refused requests by reason, with --multitenancy; null without. */
  private final Map<String, Counter> refusals;
  private final MeterRegistry registry;
  /** When a refusal was last logged, nanoseconds; one line per 10 s at most. */
  private final AtomicLong lastRefusalLogNs = new AtomicLong(System.nanoTime() - LOG_EVERY_NS);

  private static final long LOG_EVERY_NS = 10_000_000_000L;

  private Tenants(Tenant single, Path tenantsDir, Opener opener, Prober prober, int maxTenants,
      Tenant empty, MeterRegistry registry) {
    this.single = single;
    this.tenantsDir = tenantsDir;
    this.opener = opener;
    this.prober = prober;
    this.maxTenants = maxTenants;
    this.empty = empty;
    this.registry = registry;
    this.refusals = registry == null ? null : new ConcurrentHashMap<>();
  }

  /**
   * @param tenant the one tenant of a server without --multitenancy
   * @return tenants that answer every request with it
   */
  static Tenants single(Tenant tenant) {
    return new Tenants(tenant, null, null, null, 0, tenant, null);
  }

  /**
   * Opens every tenant store found in {@code <dataDir>/tenants}.
   *
   * @param dataDir the data directory
   * @param maxTenants most tenants, &ge; 1
   * @param opener opens one tenant
   * @param prober decides whether a new tenant's first request would store anything
   * @param empty the tenant that answers reads of tenants without a store (a store nothing is
   *     written to); closed with these tenants
   * @param registry where requests refused for their tenant are counted
   *     ({@code inferlens_tenant_refused_requests_total{reason}})
   * @return the tenants
   * @throws StorageException if a tenant's store cannot be opened (the others opened are closed)
   * @throws IllegalStateException if {@code dataDir/tenants} holds a folder whose name is not a
   *     tenant id, or more tenants than {@code maxTenants}
   */
  static Tenants multi(Path dataDir, int maxTenants, Opener opener, Prober prober,
      Tenant empty, MeterRegistry registry) throws StorageException {
    Path dir = dataDir.resolve(TENANTS_DIR);
    Tenants t = new Tenants(null, dir, opener, prober, maxTenants, empty, registry);
    try {
      for (Path p : existing(dir)) {
        String id = p.getFileName().toString();
        if (check(id) != null) {
          throw new IllegalStateException(p + " is not a tenant's store: \"" + id
              + "\" is not a tenant id (" + check(id) + ")");
        }
        if (t.byId.size() == maxTenants) {
          throw new IllegalStateException(dir + " holds the stores of " + existing(dir).size()
              + " tenants, more than " + FLAG_MAX_TENANTS + " " + maxTenants);
        }
        t.byId.put(id, opener.open(id, p));
      }
    } catch (StorageException | RuntimeException e) {
      t.close();
      throw e;
    }
    if (!t.byId.isEmpty()) {
      log.info("opened the stores of {} tenant{} in {}", t.byId.size(),
          t.byId.size() == 1 ? "" : "s", dir);
    }
    return t;
  }

  private static List<Path> existing(Path dir) {
    List<Path> out = new ArrayList<>();
    if (!Files.isDirectory(dir)) {
      return out;
    }
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, Files::isDirectory)) {
      ds.forEach(out::add);
    } catch (IOException e) {
      throw new IllegalStateException("cannot list the tenants in " + dir + ": " + e, e);
    }
    out.sort(Comparator.comparing(Path::toString));
    return out;
  }

  /**
   * @param id a candidate tenant id
   * @return null when {@code id} is a valid tenant id, else what is wrong with it
   */
  static String check(String id) {
    if (id.isEmpty()) {
      return "it is empty";
    }
    if (id.length() > MAX_ID_LENGTH) {
      return "it has " + id.length() + " characters, more than " + MAX_ID_LENGTH;
    }
    if (id.equals(".") || id.equals("..")) {
      return "\".\" and \"..\" are not tenant ids";
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "!-_.*'()".indexOf(c) >= 0;
      if (!ok) {
        return (c == '|' ? "a list of tenants (query federation) is not supported; "
            : describe(c) + " at offset " + i + " is not allowed; ")
            + "tenant ids are 1 to " + MAX_ID_LENGTH + " characters of a-z A-Z 0-9 ! - _ . * ' ( )";
      }
    }
    return null;
  }

  private static String describe(char c) {
    if (c >= 0x80) {
      // Armeria reads header bytes as ISO-8859-1: name no character the sender did not type.
      return "a non-ASCII character";
    }
    return "character " + (c >= 0x20 && c < 0x7f ? "'" + c + "'"
        : String.format("U+%04X", (int) c));
  }

  /**
   * @param header a header value as Armeria gives it (its bytes read as ISO-8859-1)
   * @return the value as the sender most likely typed it, UTF-8, for messages only
   */
  private static String typed(String header) {
    for (int i = 0; i < header.length(); i++) {
      if (header.charAt(i) > 0xff) {
        return header;
      }
    }
    return new String(header.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1),
        java.nio.charset.StandardCharsets.UTF_8);
  }

  /** @return whether requests name their tenant ({@code --multitenancy}) */
  boolean multi() {
    return single == null;
  }

  /**
   * @param headers a request's headers
   * @return the tenant the request reads; with --multitenancy, the empty tenant when the named
   *     one has no store
   * @throws TenantException with --multitenancy, when the header is missing or malformed
   */
  Tenant forRead(RequestHeaders headers) throws TenantException {
    if (single != null) {
      return single;
    }
    Tenant t = byId.get(idOf(headers));
    return t != null ? t : empty;
  }

  /**
   * @param headers a request's headers
   * @return the tenant the request names if it has a store (the one tenant without
   *     --multitenancy), else null
   * @throws TenantException with --multitenancy, when the header is missing or malformed
   */
  Tenant existing(RequestHeaders headers) throws TenantException {
    return single != null ? single : byId.get(idOf(headers));
  }

  /**
   * Creates a tenant's store: its first write that stores something ({@link WriteService}
   * checks that first, so a request that stores nothing creates nothing).
   *
   * @param id a valid tenant id ({@link #idOf})
   * @return the tenant, created or found
   * @throws TenantException when the tenant is new and {@code --multitenancy.max-tenants} are
   *     open
   * @throws StorageException if the new tenant's store cannot be opened
   * @throws IllegalStateException without --multitenancy
   */
  synchronized Tenant create(String id) throws TenantException, StorageException {
    if (single != null) {
      throw new IllegalStateException("no tenants without --multitenancy");
    }
    Tenant t = byId.get(id);
    if (t != null) {
      return t;
    }
    if (closed) {
      throw new StorageException("the server is shutting down", null);
    }
    if (byId.size() >= maxTenants) {
      throw new TenantException(ErrorMapping.Kind.BAD_DATA, "too_many_tenants", "tenant \""
          + id + "\" refused: " + maxTenants + " tenants have a store already, the limit of "
          + FLAG_MAX_TENANTS + "; nothing of the request stored");
    }
    t = opener.open(id, tenantsDir.resolve(id));
    byId.put(id, t);
    log.info("tenant {}: store created in {}", id, t.dir());
    return t;
  }

  /**
   * @param id a valid tenant id without a store yet
   * @param contentType the request's Content-Type, or null
   * @param contentEncoding the request's Content-Encoding, or null
   * @param body the request's body
   * @return what the tenant's handler would answer (its limits, nothing stored)
   * @throws io.inferlens.ingest.IngestException when the request is refused whole
   * @throws StorageException never in practice (the probe stores nothing)
   */
  io.inferlens.ingest.WriteOutcome probe(String id, String contentType, String contentEncoding,
      byte[] body) throws io.inferlens.ingest.IngestException, StorageException {
    return prober.probe(id, contentType, contentEncoding, body);
  }

  /**
   * Counts a request refused for its tenant in {@code inferlens_tenant_refused_requests_total}
   * and logs it, one line per 10 s at most, so that a sender whose data is refused (Prometheus
   * drops a batch answered 4xx) shows on the server too.
   *
   * @param e why it was refused
   */
  void refused(TenantException e) {
    if (refusals == null) {
      return;
    }
    refusals.computeIfAbsent(e.reason(), r -> Counter.builder("inferlens.tenant.refused.requests")
        .description("Requests refused before reaching a tenant (no X-Scope-OrgID, an invalid"
            + " or conflicting tenant id, or a new tenant past --multitenancy.max-tenants)")
        .tag("reason", r).register(registry)).increment();
    long now = System.nanoTime();
    long last = lastRefusalLogNs.get();
    if (now - last >= LOG_EVERY_NS && lastRefusalLogNs.compareAndSet(last, now)) {
      log.warn("request refused for its tenant ({}): {}", e.reason(), e.getMessage());
    }
  }

  /**
   * @param headers a request's headers
   * @return the tenant id the request names: its {@value #HEADER} header, else its URL
   *     parameter {@value #PARAM}
   * @throws TenantException when it names none (401), names several different ones, or one
   *     that is not a tenant id (400)
   */
  static String idOf(RequestHeaders headers) throws TenantException {
    String header = one(headers.getAll(HEADER), "header " + HEADER);
    String param = null;
    String path = headers.path();
    int q = path.indexOf('?');
    if (q >= 0) {
      param = one(com.linecorp.armeria.common.QueryParams.fromQueryString(path.substring(q + 1))
          .getAll(PARAM), "URL parameter " + PARAM);
    }
    if (header == null && param == null) {
      throw new TenantException(ErrorMapping.Kind.UNAUTHORIZED, "no_org_id",
          "no org id: --multitenancy is on and the request has no " + HEADER
          + " header (nor " + PARAM + "= URL parameter) naming its tenant");
    }
    if (header != null && param != null && !header.equals(param)) {
      throw new TenantException(ErrorMapping.Kind.BAD_DATA, "conflicting_tenants", "header "
          + HEADER + " \"" + shortened(header) + "\" and URL parameter " + PARAM + "=\""
          + shortened(param) + "\" name different tenants");
    }
    String id = header != null ? header : param;
    String bad = check(id);
    if (bad != null) {
      throw new TenantException(ErrorMapping.Kind.BAD_DATA, "invalid_tenant",
          (header != null ? "header " + HEADER : "URL parameter " + PARAM) + " \""
          + shortened(header != null ? typed(id) : id) + "\" is not a tenant id: " + bad);
    }
    return id;
  }

  /** @return the one value of {@code values} (all equal), or null when there is none */
  private static String one(List<String> values, String what) throws TenantException {
    if (values.isEmpty()) {
      return null;
    }
    String first = values.get(0);
    for (String v : values) {
      if (!v.equals(first)) {
        throw new TenantException(ErrorMapping.Kind.BAD_DATA, "conflicting_tenants",
            what + " is given " + values.size() + " times with different tenants (\""
            + shortened(first) + "\", \"" + shortened(v) + "\"); a request is one tenant's");
      }
    }
    return first;
  }

  private static String shortened(String id) {
    return id.length() > 40 ? id.substring(0, 40) + "…" : id;
  }

  /**
   * @return every tenant with a store, by id (the one tenant without --multitenancy); a fresh
   *     list
   */
  List<Tenant> all() {
    if (single != null) {
      return List.of(single);
    }
    List<Tenant> out = new ArrayList<>(byId.values());
    out.sort(Comparator.comparing(Tenant::id));
    return out;
  }

  /**
   * @param id a tenant id
   * @return its tenant, or null when it has no store (tests)
   */
  Tenant get(String id) {
    return single != null ? null : byId.get(id);
  }

  /** @return the tenant that answers reads of tenants without a store (the single one without) */
  Tenant empty() {
    return empty;
  }

  /** @return {@code --multitenancy.max-tenants}, 0 without --multitenancy */
  int maxTenants() {
    return maxTenants;
  }

  /** Closes every tenant's store; later writes of a new tenant fail. Idempotent. */
  @Override
  public void close() {
    List<Tenant> open;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      open = new ArrayList<>(byId.values());
    }
    for (Tenant t : open) {
      t.close();
    }
    if (empty != null) {
      empty.close();
    }
  }
}
