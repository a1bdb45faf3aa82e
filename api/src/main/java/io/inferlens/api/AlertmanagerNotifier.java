package io.inferlens.api;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.linecorp.armeria.client.WebClient;
import com.linecorp.armeria.common.AggregatedHttpResponse;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpRequest;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.RequestHeaders;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.incident.IncidentEvaluator;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends incidents to Alertmanagers as Prometheus's rule manager and notifier do (Prometheus
 * rules/alerting.go {@code sendAlerts}, notifier/notifier.go):
 *
 * <ul>
 *   <li>after each evaluation, an open incident is sent when it is new, when its labels changed
 *       (the previous label set is sent resolved, so no alert is left behind), or when it was
 *       last sent {@code --alert.resend-delay} ago; its {@code endsAt} is now + 4 × max(resend
 *       delay, evaluation interval), so Alertmanager resolves it by itself if InferLens dies;
 *   <li>a resolved incident is sent with {@code endsAt} = its last held step, and re-sent every
 *       resend delay for the 15 minutes the evaluator keeps reporting it;
 *   <li>an incident that disappears while firing (merged into another) is sent resolved now;
 *   <li>one alert per label set, as Prometheus's rule keeps one: of the incidents with the same
 *       labels (an incident resolved, then another opened on the same target and cause) only
 *       the firing one, else the one that started last, is sent; a resolved copy sent after the
 *       firing one would end it in Alertmanager, which keeps one alert per label set;
 *   <li>an incident first seen already resolved (found late: data replayed after an outage) is
 *       sent firing, with its real {@code startsAt} and the annotation {@value #ENDED_AT}, then
 *       resolved with its real {@code endsAt} one resend delay later: Alertmanager notifies a
 *       resolved alert only after it notified it firing (its group_wait must be shorter than
 *       the resend delay, as the defaults 30 s and 1 min are). Not on the first evaluation after
 *       a start, whose resolved incidents a previous run may have sent;
 *   <li>external labels are added where the alert lacks the name;
 *   <li>with {@code --multitenancy}, each tenant's evaluator reports through
 *       {@link #forTenant(String)}: its alerts carry the label {@code tenant} and their links
 *       open the UI on that tenant.
 * </ul>
 *
 * <p>Each Alertmanager has its own queue (bounded by {@code --alertmanager.notification-queue-
 * capacity}; when full the oldest alert is dropped and counted) and its own thread, so one that
 * is down does not hold back the others. Batches of at most {@value #MAX_BATCH} alerts are
 * POSTed to {@code /api/v2/alerts} (Alertmanager API v2, openapi.yaml {@code postableAlerts})
 * with a {@value #TIMEOUT_MS} ms timeout. A failed batch (connection error, timeout, 5xx, 429) is
 * retried with exponential backoff from {@value #MIN_BACKOFF_MS} ms, doubling, at most
 * {@value #MAX_BACKOFF_MS} ms, until it is delivered; a batch refused with another 4xx is
 * dropped and counted, since retrying it cannot succeed. User info in the URL becomes HTTP basic
 * authentication.
 *
 * <p>Metrics, per Alertmanager ({@code alertmanager} tag): {@code inferlens_notifications_sent_total},
 * {@code _errors_total} (alerts in failed attempts), {@code _dropped_total} ({@code reason}
 * {@code queue_full} or {@code rejected}), {@code _queue_length}; and {@code
 * inferlens_notifications_queue_capacity}, {@code inferlens_notifications_latency_seconds}.
 *
 * <p>Thread safe: {@link #evaluated} is serialized; each queue is guarded by its sender.
 */
public final class AlertmanagerNotifier implements IncidentEvaluator.Listener, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AlertmanagerNotifier.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Most alerts in one POST, as Prometheus's {@code maxBatchSize}. */
  static final int MAX_BATCH = 64;
  /** Timeout of one POST, ms (Prometheus's default Alertmanager timeout). */
  static final long TIMEOUT_MS = 10_000;
  /** First retry delay, ms. */
  static final long MIN_BACKOFF_MS = 500;
  /** Longest retry delay, ms. */
  static final long MAX_BACKOFF_MS = 30_000;

  /** Annotation of an incident found after it ended: its end, RFC 3339. */
  static final String ENDED_AT = "ended_at";

  /**
   * What was last sent for one incident.
   *
   * @param atMs when, ms (the notifier's clock)
   * @param resolved sent resolved, or nothing to end in Alertmanager
   * @param announced sent firing although already resolved (found late)
   * @param alert what was sent, or null when nothing was
   */
  private record Sent(long atMs, Map<String, String> labels, boolean resolved, boolean announced,
      ObjectNode alert) {}

  private final AlertingConfig config;
  private final long validForMs;
  private final Clock clock;
  private final List<Sender> senders = new ArrayList<>();
  /** What was last sent per tenant (the key "" without --multitenancy), then per incident id. */
  private final Map<String, Map<String, Sent>> sent = new HashMap<>();

  /**
   * Starts one sender thread per Alertmanager of {@code config}.
   *
   * @param config the Alertmanagers, external labels, resend delay, queue capacity and external
   *     URL (not null)
   * @param evalIntervalMs the evaluator's interval, ms, &ge; 0 (0: on-demand only)
   * @param clock the wall clock of {@code startsAt}/{@code endsAt} and the resend delay
   * @param registry where the metrics go
   */
  public AlertmanagerNotifier(AlertingConfig config, long evalIntervalMs, Clock clock,
      MeterRegistry registry) {
    this.config = config;
    this.validForMs = 4 * Math.max(config.resendDelayMs(), evalIntervalMs);
    this.clock = clock;
    Gauge.builder("inferlens.notifications.queue.capacity", config, c -> c.queueCapacity())
        .description("Alerts each Alertmanager's queue holds before the oldest are dropped")
        .register(registry);
    for (URI am : config.alertmanagers()) {
      Sender s = new Sender(am, config.queueCapacity(), registry);
      senders.add(s);
      s.thread.start();
    }
  }

  /**
   * Sends what this evaluation changed or what is due again (see the class comment). Never
   * blocks on the network.
   *
   * @param incidents open incidents, then those resolved within the last 15 minutes
   * @param nowMs the evaluator's time, ms (unused: the notifier's clock decides resends)
   */
  @Override
  public void evaluated(List<Diagnosis> incidents, long nowMs) {
    evaluated(null, incidents, nowMs);
  }

  /**
   * @param tenant a tenant's id ({@code --multitenancy})
   * @return a listener for that tenant's evaluator: as {@link #evaluated(List, long)}, its alerts
   *     labelled {@code tenant} and linking to the UI on that tenant, and what it sent kept
   *     apart from other tenants' (an incident missing from one tenant's evaluation ends only
   *     that tenant's alert)
   */
  public IncidentEvaluator.Listener forTenant(String tenant) {
    java.util.Objects.requireNonNull(tenant, "tenant");
    return (incidents, nowMs) -> evaluated(tenant, incidents, nowMs);
  }

  /**
   * As {@link #evaluated(List, long)} for one tenant's incidents.
   *
   * @param tenant the tenant ({@code --multitenancy}), or null without tenants
   * @param incidents that tenant's open incidents, then those resolved within 15 minutes
   * @param nowMs the evaluator's time, ms (unused)
   */
  synchronized void evaluated(String tenant, List<Diagnosis> incidents, long nowMs) {
    String key = tenant == null ? "" : tenant;
    // The first evaluation after a start reports what resolved in the last 15 minutes, which a
    // previous run may have sent already: only later first sightings were found late.
    boolean firstEvaluation = !this.sent.containsKey(key);
    Map<String, Sent> sent = this.sent.computeIfAbsent(key, t -> new HashMap<>());
    long now = clock.millis();
    Map<String, Current> byId = new LinkedHashMap<>();
    for (Diagnosis d : incidents) {
      if (byId.containsKey(d.id())) {
        continue;
      }
      Alerts.Alert a = Alerts.of(d, config.externalUrl(), tenant);
      Sent last = sent.get(d.id());
      boolean announce = d.endMs() != null && (last == null ? !firstEvaluation
          : last.announced() && !last.resolved() && now - last.atMs() < config.resendDelayMs());
      byId.put(d.id(), new Current(d, a, withExternalLabels(a.labels()),
          d.endMs() == null || announce, announce));
    }
    // One alert per label set, as Prometheus's rule keeps one: a resolved copy sent after the
    // firing one would end it in Alertmanager (it replaces or merges into it).
    Map<Map<String, String>, Current> owners = new HashMap<>();
    for (Current c : byId.values()) {
      owners.merge(c.labels(), c, (x, y) -> speaksFor(y, x) ? y : x);
    }
    Set<Map<String, String>> firingLabels = new HashSet<>();
    owners.values().stream().filter(Current::firing).forEach(c -> firingLabels.add(c.labels()));
    // Label sets whose firing alert was another incident's, now resolved: end them now.
    Set<Map<String, String>> endedHere = new HashSet<>();
    for (Current c : byId.values()) {
      Sent last = sent.get(c.d().id());
      if (owners.get(c.labels()) != c && last != null && !last.resolved()
          && last.labels().equals(c.labels()) && !firingLabels.contains(c.labels())) {
        endedHere.add(c.labels());
      }
    }
    List<ObjectNode> out = new ArrayList<>();
    for (Current c : byId.values()) {
      Sent last = sent.get(c.d().id());
      boolean relabelled = last != null && !last.labels().equals(c.labels());
      if (relabelled && !last.resolved() && !firingLabels.contains(last.labels())) {
        out.add(endedAt(last.alert(), now));
      }
      if (owners.get(c.labels()) != c) {
        // Another incident speaks for these labels; this one is done in Alertmanager.
        sent.put(c.d().id(), new Sent(now, c.labels(), true, false, null));
        continue;
      }
      if (last == null || relabelled || last.resolved() == c.firing()
          || endedHere.contains(c.labels()) || now - last.atMs() >= config.resendDelayMs()) {
        long endsAt = c.firing() ? now + validForMs : Math.max(c.d().endMs(), c.d().startMs());
        ObjectNode node = alertJson(c.labels(), c.a(), endsAt);
        if (c.announced()) {
          ((ObjectNode) node.get("annotations")).put(ENDED_AT,
              Instant.ofEpochMilli(Math.max(c.d().endMs(), c.d().startMs())).toString());
        }
        out.add(node);
        sent.put(c.d().id(), new Sent(now, c.labels(), !c.firing(), c.announced(), node));
      }
    }
    for (Iterator<Map.Entry<String, Sent>> it = sent.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Sent> e = it.next();
      if (!byId.containsKey(e.getKey())) {
        if (!e.getValue().resolved() && !firingLabels.contains(e.getValue().labels())) {
          out.add(endedAt(e.getValue().alert(), now));
        }
        it.remove();
      }
    }
    if (!out.isEmpty()) {
      for (Sender s : senders) {
        s.enqueue(out);
      }
    }
  }

  /**
   * One incident in this evaluation.
   *
   * @param firing whether it is sent firing: open, or {@code announced}
   * @param announced found after it had ended, and sent firing for one resend delay
   */
  private record Current(Diagnosis d, Alerts.Alert a, Map<String, String> labels, boolean firing,
      boolean announced) {}

  /** Whether {@code a} rather than {@code b} is the alert of their common label set. */
  private static boolean speaksFor(Current a, Current b) {
    if (a.firing() != b.firing()) {
      return a.firing();
    }
    if (a.d().startMs() != b.d().startMs()) {
      return a.d().startMs() > b.d().startMs();
    }
    return a.d().id().compareTo(b.d().id()) > 0;
  }

  private Map<String, String> withExternalLabels(Map<String, String> labels) {
    if (config.externalLabels().isEmpty()) {
      return labels;
    }
    Map<String, String> m = new LinkedHashMap<>(labels);
    config.externalLabels().forEach(m::putIfAbsent);
    return m;
  }

  private static ObjectNode alertJson(Map<String, String> labels, Alerts.Alert a, long endsAtMs) {
    ObjectNode n = JSON.createObjectNode();
    ObjectNode l = n.putObject("labels");
    labels.forEach(l::put);
    ObjectNode an = n.putObject("annotations");
    a.annotations().forEach(an::put);
    n.put("startsAt", Instant.ofEpochMilli(a.startsAtMs()).toString());
    n.put("endsAt", Instant.ofEpochMilli(endsAtMs).toString());
    n.put("generatorURL", a.generatorUrl());
    return n;
  }

  private static ObjectNode endedAt(ObjectNode alert, long nowMs) {
    ObjectNode copy = alert.deepCopy();
    copy.put("endsAt", Instant.ofEpochMilli(nowMs).toString());
    return copy;
  }

  /** @return alerts waiting in the queues, all Alertmanagers together */
  public int queued() {
    int n = 0;
    for (Sender s : senders) {
      n += s.length();
    }
    return n;
  }

  /** Stops the sender threads; queued alerts are not sent. Idempotent. */
  @Override
  public void close() {
    for (Sender s : senders) {
      s.close();
    }
  }

  /** One Alertmanager: its queue, its thread, its counters. */
  private static final class Sender implements Runnable {
    private final URI url;
    private final String authorization;
    private final String name;
    private final int capacity;
    private final ArrayDeque<ObjectNode> queue = new ArrayDeque<>();
    private final WebClient client;
    private final Counter sentCount;
    private final Counter errors;
    private final Counter droppedFull;
    private final Counter droppedRejected;
    private final Timer latency;
    final Thread thread;
    private boolean closed;

    Sender(URI am, int capacity, MeterRegistry registry) {
      URI post = AlertingConfig.postUrl(am);
      String userInfo = post.getRawUserInfo();
      this.authorization = userInfo == null ? null : "Basic " + Base64.getEncoder().encodeToString(
          java.net.URLDecoder.decode(userInfo, StandardCharsets.UTF_8)
              .getBytes(StandardCharsets.UTF_8));
      this.url = userInfo == null ? post : URI.create(post.getScheme() + "://" + post.getHost()
          + (post.getPort() < 0 ? "" : ":" + post.getPort()) + post.getRawPath());
      this.name = url.toString();
      this.capacity = capacity;
      this.client = WebClient.builder().responseTimeoutMillis(TIMEOUT_MS)
          .writeTimeoutMillis(TIMEOUT_MS).build();
      this.sentCount = Counter.builder("inferlens.notifications.sent").tag("alertmanager", name)
          .description("Alerts delivered to an Alertmanager").register(registry);
      this.errors = Counter.builder("inferlens.notifications.errors").tag("alertmanager", name)
          .description("Alerts in POSTs that failed (retried with backoff)").register(registry);
      this.droppedFull = Counter.builder("inferlens.notifications.dropped")
          .tag("alertmanager", name).tag("reason", "queue_full")
          .description("Alerts dropped unsent: the queue was full, or the Alertmanager refused "
              + "them with a 4xx").register(registry);
      this.droppedRejected = Counter.builder("inferlens.notifications.dropped")
          .tag("alertmanager", name).tag("reason", "rejected")
          .description("Alerts dropped unsent: the queue was full, or the Alertmanager refused "
              + "them with a 4xx").register(registry);
      Gauge.builder("inferlens.notifications.queue.length", this, Sender::length)
          .tag("alertmanager", name).description("Alerts waiting to be sent to an Alertmanager")
          .register(registry);
      this.latency = Timer.builder("inferlens.notifications.latency").tag("alertmanager", name)
          .description("Time of one POST to an Alertmanager").register(registry);
      this.thread = new Thread(this, "inferlens-notifier-" + am.getHost());
      thread.setDaemon(true);
    }

    synchronized int length() {
      return queue.size();
    }

    synchronized void enqueue(List<ObjectNode> alerts) {
      for (ObjectNode a : alerts) {
        if (queue.size() >= capacity) {
          queue.pollFirst();
          droppedFull.increment();
        }
        queue.addLast(a);
      }
      notifyAll();
    }

    private synchronized List<ObjectNode> take() throws InterruptedException {
      while (queue.isEmpty() && !closed) {
        wait();
      }
      List<ObjectNode> batch = new ArrayList<>();
      while (!queue.isEmpty() && batch.size() < MAX_BATCH) {
        batch.add(queue.pollFirst());
      }
      return batch;
    }

    synchronized void close() {
      closed = true;
      notifyAll();
      thread.interrupt();
    }

    private synchronized boolean closed() {
      return closed;
    }

    @Override
    public void run() {
      try {
        while (!closed()) {
          List<ObjectNode> batch = take();
          if (!batch.isEmpty()) {
            deliver(batch);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Posts {@code batch} until delivered, refused for good, or closed. */
    private void deliver(List<ObjectNode> batch) throws InterruptedException {
      ArrayNode body = JSON.createArrayNode();
      batch.forEach(body::add);
      byte[] bytes;
      try {
        bytes = JSON.writeValueAsBytes(body);
      } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
        throw new IllegalStateException("alert JSON", e);
      }
      long backoff = MIN_BACKOFF_MS;
      boolean failing = false;
      while (!closed()) {
        String problem;
        long t0 = System.nanoTime();
        try {
          com.linecorp.armeria.common.RequestHeadersBuilder h = RequestHeaders.builder(HttpMethod.POST, url.toString())
              .contentType(MediaType.JSON_UTF_8);
          if (authorization != null) {
            h.add(com.linecorp.armeria.common.HttpHeaderNames.AUTHORIZATION, authorization);
          }
          AggregatedHttpResponse r = client.execute(HttpRequest.of(h.build(),
              com.linecorp.armeria.common.HttpData.wrap(bytes))).aggregate()
              .get(TIMEOUT_MS + 1000, TimeUnit.MILLISECONDS);
          int code = r.status().code();
          if (code / 100 == 2) {
            sentCount.increment(batch.size());
            if (failing) {
              log.info("Alertmanager {} reachable again; {} alerts delivered", name,
                  batch.size());
            }
            return;
          }
          if (code / 100 == 4 && code != 429) {
            droppedRejected.increment(batch.size());
            log.warn("Alertmanager {} refused {} alerts with {}: {}", name, batch.size(), code,
                r.contentUtf8());
            return;
          }
          problem = "HTTP " + code;
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
            | RuntimeException e) {
          Throwable c = e.getCause() != null ? e.getCause() : e;
          problem = c.getClass().getSimpleName() + ": " + c.getMessage();
        } finally {
          latency.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
        }
        errors.increment(batch.size());
        if (!failing) {
          log.warn("sending {} alerts to Alertmanager {} failed ({}); retrying with backoff up "
              + "to {} s", batch.size(), name, problem, MAX_BACKOFF_MS / 1000);
          failing = true;
        }
        Thread.sleep(backoff);
        backoff = Math.min(MAX_BACKOFF_MS, backoff * 2);
      }
    }
  }
}
