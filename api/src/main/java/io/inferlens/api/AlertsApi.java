package io.inferlens.api;

import com.linecorp.armeria.common.QueryParams;
import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.incident.Incident;
import io.inferlens.analysis.incident.IncidentJournal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The open incidents as Prometheus's alerting API shows alerts, so that Grafana's alert list and
 * Prometheus tooling read them (Prometheus web/api/v1/api.go {@code alerts} and {@code rules},
 * documented in docs/querying/api.md "Alerts" and "Rules").
 *
 * <ul>
 *   <li>{@code GET /api/v1/alerts}: {@code {"alerts":[{labels, annotations, state:"firing",
 *       activeAt, value}]}}, one per open incident; labels and annotations as {@link Alerts}
 *       (without external labels, as Prometheus).
 *   <li>{@code GET /api/v1/rules}: one group {@code inferlens} holding one alerting rule per
 *       cause: {@code name} the cause, {@code query} the condition it stands for (a sentence,
 *       not PromQL: the diagnosis is not one expression), {@code duration} the {@code --for} in
 *       seconds, {@code state} {@code firing} or {@code inactive}, {@code health} {@code ok}
 *       ({@code unknown} before the first evaluation), its {@code alerts}, and the evaluator's
 *       last evaluation time and duration. Filters: {@code type} ({@code alert} or {@code
 *       record}; record rules there are none), {@code rule_name[]}, {@code rule_group[]},
 *       {@code file[]}.
 * </ul>
 *
 * <p>Errors: 400 ({@code bad_data}) for a {@code type} other than alert or record.
 */
final class AlertsApi {

  /** The one rule group's name and file. */
  static final String GROUP = "inferlens";

  /**
   * The evaluator's last run.
   *
   * @param atMs when it ran, ms since the epoch; {@link Long#MIN_VALUE} if never
   * @param seconds how long it took, seconds
   */
  record LastEvaluation(long atMs, double seconds) {}

  private final IncidentJournal journal;
  private final Supplier<String> externalUrl;
  private final long forMs;
  private final long intervalMs;
  private final Supplier<LastEvaluation> last;
  /** The tenant of {@link #journal} with --multitenancy, else null. */
  private final String tenant;

  /**
   * @param journal the incidents
   * @param externalUrl the base of alert links, without a trailing slash (known once bound)
   * @param forMs the {@code --for}, ms
   * @param intervalMs the {@code --eval-interval}, ms
   * @param last the evaluator's last run
   * @param tenant the journal's tenant ({@code --multitenancy}: the alerts' label
   *     {@code tenant} and their links), or null
   */
  AlertsApi(IncidentJournal journal, Supplier<String> externalUrl, long forMs, long intervalMs,
      Supplier<LastEvaluation> last, String tenant) {
    this.tenant = tenant;
    this.journal = journal;
    this.externalUrl = externalUrl;
    this.forMs = forMs;
    this.intervalMs = intervalMs;
    this.last = last;
  }

  /** @param sb where to bind the routes (the server, or one tenant's route table) */
  void bind(Routes sb) {
    sb.service("/api/v1/alerts", JsonEndpoints.get("alerts", p -> alerts()));
    sb.service("/api/v1/rules", JsonEndpoints.get("rules", this::rules));
  }

  private Map<String, Object> alertJson(Diagnosis d) {
    Alerts.Alert a = Alerts.of(d, externalUrl.get(), tenant);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("labels", a.labels());
    m.put("annotations", a.annotations());
    m.put("state", "firing");
    m.put("activeAt", Instant.ofEpochMilli(d.startMs()).toString());
    m.put("value", io.inferlens.analysis.promql.ast.GoFormat.formatExponent(a.activeValue()));
    return m;
  }

  private List<Diagnosis> open() {
    List<Diagnosis> out = new ArrayList<>();
    for (Incident inc : journal.openIncidents()) {
      out.add(inc.diagnosis());
    }
    return out;
  }

  Map<String, Object> alerts() {
    List<Object> list = new ArrayList<>();
    for (Diagnosis d : open()) {
      list.add(alertJson(d));
    }
    return Map.of("alerts", list);
  }

  Map<String, Object> rules(QueryParams p) {
    String type = p.get("type");
    if (type != null && !type.isEmpty() && !type.equals("alert") && !type.equals("record")) {
      throw new IllegalArgumentException("invalid parameter \"type\": \"" + type
          + "\" is not alert or record");
    }
    List<Map<String, Object>> groups = new ArrayList<>();
    if ("record".equals(type) || !matches(p.getAll("rule_group[]"), GROUP)
        || !matches(p.getAll("file[]"), GROUP)) {
      return Map.of("groups", groups);
    }
    Set<String> names = new HashSet<>(p.getAll("rule_name[]"));
    LastEvaluation le = last.get();
    boolean evaluated = le.atMs() != Long.MIN_VALUE;
    String lastEval = evaluated ? Instant.ofEpochMilli(le.atMs()).toString()
        : "0001-01-01T00:00:00Z";
    List<Diagnosis> open = open();
    List<Map<String, Object>> rules = new ArrayList<>();
    for (Cause c : Cause.values()) {
      if (!names.isEmpty() && !names.contains(c.name())) {
        continue;
      }
      List<Object> alerts = new ArrayList<>();
      for (Diagnosis d : open) {
        if (d.cause() == c) {
          alerts.add(alertJson(d));
        }
      }
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("state", alerts.isEmpty() ? "inactive" : "firing");
      r.put("name", c.name());
      r.put("query", Alerts.condition(c));
      r.put("duration", forMs / 1000.0);
      r.put("labels", Map.of("inferlens_cause", c.name()));
      r.put("annotations", Map.of("recommendations", String.join("\n", c.recommendations())));
      r.put("alerts", alerts);
      r.put("health", evaluated ? "ok" : "unknown");
      r.put("lastError", "");
      r.put("evaluationTime", le.seconds());
      r.put("lastEvaluation", lastEval);
      r.put("type", "alerting");
      rules.add(r);
    }
    Map<String, Object> g = new LinkedHashMap<>();
    g.put("name", GROUP);
    g.put("file", GROUP);
    g.put("rules", rules);
    g.put("interval", intervalMs / 1000.0);
    g.put("limit", 0);
    g.put("evaluationTime", le.seconds());
    g.put("lastEvaluation", lastEval);
    groups.add(g);
    return Map.of("groups", groups);
  }

  private static boolean matches(List<String> wanted, String value) {
    return wanted.isEmpty() || wanted.contains(value);
  }
}
