package io.inferlens.api;

import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.ChainLayer;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.Evidence;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * An incident as an alert: the labels, annotations and links that the Alertmanager notifier
 * posts and that {@code GET /api/v1/alerts} and {@code /api/v1/rules} show, so that the three and
 * the exported rules ({@code analysis.rules.AlertRules}) name an incident alike.
 *
 * <p>Labels: {@code alertname} (the cause code), {@code severity} ({@code critical} or
 * {@code warning}, as the diagnosis), the target's non-empty grouping labels, and
 * {@code inferlens_cause} (the cause again, as the exported rules carry it). Annotations:
 * {@code summary}, {@code description} (the latency → queue → resource chain, one line per
 * layer), {@code recommendations} (one per line, most effective first), {@code runbook_url}
 * (the incidents page on this incident, filtered to its cause and target). External labels are not here: the
 * notifier adds them, as Prometheus's notifier does (notifier/notifier.go), so that the query
 * API shows the alert as the rule produced it.
 */
final class Alerts {

  private Alerts() {}

  /**
   * One alert.
   *
   * @param labels identity of the alert in Alertmanager, in the order above
   * @param annotations summary, description, recommendations, runbook_url
   * @param startsAtMs when the condition started holding, ms since the epoch
   * @param activeValue the headline value (the first breached evidence), in its unit
   * @param generatorUrl the incident's page in the UI
   */
  record Alert(Map<String, String> labels, Map<String, String> annotations, long startsAtMs,
      double activeValue, String generatorUrl) {}

  /**
   * @param d the diagnosis (open or resolved)
   * @param externalUrl where users reach InferLens, without a trailing slash
   * @return the alert
   */
  static Alert of(Diagnosis d, String externalUrl) {
    return of(d, externalUrl, null);
  }

  /**
   * @param d the diagnosis (open or resolved)
   * @param externalUrl where users reach InferLens, without a trailing slash
   * @param tenant the tenant whose incident it is ({@code --multitenancy}), or null: it becomes
   *     the label {@code tenant}, over any target label of that name, and the links open the UI
   *     on that tenant ({@code ?tenant=} / {@code &tenant=})
   * @return the alert
   */
  static Alert of(Diagnosis d, String externalUrl, String tenant) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("alertname", d.cause().name());
    labels.put("severity", d.severity());
    d.target().forEach((k, v) -> {
      if (v != null && !v.isEmpty() && !labels.containsKey(k)) {
        labels.put(k, v);
      }
    });
    labels.put("inferlens_cause", d.cause().name());
    if (tenant != null) {
      labels.put("tenant", tenant);
    }
    Map<String, String> ann = new LinkedHashMap<>();
    ann.put("summary", d.summary());
    ann.put("description", description(d));
    StringBuilder rec = new StringBuilder();
    for (String r : d.recommendations()) {
      rec.append(rec.length() == 0 ? "" : "\n").append(r);
    }
    ann.put("recommendations", rec.toString());
    ann.put("runbook_url", runbookUrl(externalUrl, d, tenant));
    return new Alert(labels, ann, d.startMs(), headline(d),
        incidentUrl(externalUrl, d.id(), tenant));
  }

  /**
   * @param externalUrl where users reach InferLens, without a trailing slash
   * @param id the incident id
   * @return {@code <externalUrl>/#/incidents/<id percent-encoded>}, the incident page (the
   *     encoding of JavaScript's {@code encodeURIComponent} for the id's characters)
   */
  static String incidentUrl(String externalUrl, String id) {
    return externalUrl + "/#/incidents/"
        + URLEncoder.encode(id, StandardCharsets.UTF_8).replace("+", "%20").replace("%7E", "~");
  }

  /**
   * @param externalUrl where users reach InferLens, without a trailing slash
   * @param id the incident id
   * @param tenant the incident's tenant, or null
   * @return {@link #incidentUrl(String, String)}, followed by {@code ?tenant=<tenant
   *     percent-encoded>} when a tenant is given
   */
  static String incidentUrl(String externalUrl, String id, String tenant) {
    return incidentUrl(externalUrl, id) + (tenant == null ? "" : "?tenant=" + component(tenant));
  }

  /**
   * @param externalUrl where users reach InferLens, without a trailing slash
   * @param d the incident
   * @param tenant its tenant, or null
   * @return {@code <externalUrl>/#/incidents?cause=<CAUSE>&target=<target id>&id=<incident
   *     id>[&tenant=<tenant>]}, each value encoded as JavaScript's {@code encodeURIComponent}
   *     does: the UI's {@code URLSearchParams} decodes them to the ids themselves (which are
   *     percent-encoded already), so the list opens on that incident, filtered to its cause
   *     and target
   */
  static String runbookUrl(String externalUrl, Diagnosis d, String tenant) {
    return externalUrl + "/#/incidents?cause=" + d.cause().name() + "&target="
        + component(targetId(d)) + "&id=" + component(d.id())
        + (tenant == null ? "" : "&tenant=" + component(tenant));
  }

  /** {@code s} as JavaScript's {@code encodeURIComponent} spells it. */
  private static String component(String s) {
    return io.inferlens.analysis.rules.AlertText.uriComponent(s);
  }

  /**
   * @param d a diagnosis
   * @return its target's id: the incident id without its {@code /cause/startMs} suffix
   */
  static String targetId(Diagnosis d) {
    String id = d.id();
    int last = id.lastIndexOf('/');
    int cause = last <= 0 ? -1 : id.lastIndexOf('/', last - 1);
    return cause < 0 ? id : id.substring(0, cause);
  }

  /** The chain, one line per layer: "latency breached: ttft_p95 2.5 s (threshold 1 s, …)". */
  static String description(Diagnosis d) {
    StringBuilder sb = new StringBuilder();
    for (ChainLayer layer : d.chain()) {
      if (sb.length() > 0) {
        sb.append('\n');
      }
      sb.append(layer.layer()).append(' ').append(layer.verdict());
      String sep = ": ";
      for (Evidence e : layer.evidence()) {
        sb.append(sep).append(e.signal()).append(' ').append(number(e.value())).append(' ')
            .append(e.unit());
        if (e.threshold() != null) {
          sb.append(" (threshold ").append(number(e.threshold()));
          if (e.basis() != null) {
            sb.append(", ").append(e.basis());
          }
          sb.append(')');
        }
        sep = ", ";
      }
    }
    return sb.toString();
  }

  /** The first evidence of a breached or saturated layer, else the first evidence, else NaN. */
  private static double headline(Diagnosis d) {
    for (ChainLayer layer : d.chain()) {
      if (!layer.evidence().isEmpty() && !"normal".equals(layer.verdict())
          && !"unknown".equals(layer.verdict())) {
        return layer.evidence().get(0).value();
      }
    }
    for (ChainLayer layer : d.chain()) {
      if (!layer.evidence().isEmpty()) {
        return layer.evidence().get(0).value();
      }
    }
    return Double.NaN;
  }

  private static String number(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return String.format(Locale.ROOT, "%.3g", v);
  }

  /**
   * @param cause a cause
   * @return the condition it stands for, as {@code /api/v1/rules} shows a rule's query
   *     (docs/DESIGN.md section 3)
   */
  static String condition(Cause cause) {
    switch (cause) {
      case CAPACITY_EXHAUSTED:
        return "latency breached and requests waiting and GPU or KV cache saturated";
      case CONCURRENCY_LIMIT:
        return "TTFT breached and requests waiting and no resource saturated";
      case KV_CACHE_PRESSURE:
        return "KV cache >= 90 % and preemptions rising and TPOT/ITL or TTFT breached";
      case GPU_COMPUTE_BOUND:
        return "latency breached and GPU utilisation saturated and queue normal";
      case PER_REQUEST_SLOWDOWN:
        return "latency breached and queue empty and no resource saturated";
      case WORKLOAD_SHIFT:
        return "latency breached, queue empty, prompt or generation length above baseline";
      case UPSTREAM_BACKLOG:
        return "Kafka consumer lag rising while engine latency is within threshold";
      case MONITORING_GAP:
        return "expected samples missing for more than 2 scrape intervals";
      case VERSION_REGRESSION:
        return "a new model or version label slower than the previous one at comparable load";
      case REMOTE_WRITE_STOPPED:
        return "every target of a sender silent at once past the grace";
      case CARDINALITY_EXPLOSION:
        return "a metric gained at least 1000 active series in 10 minutes while its series per"
            + " target (or on its busiest target) rose 3-fold";
      default:
        return cause.name().toLowerCase(Locale.ROOT);
    }
  }
}
