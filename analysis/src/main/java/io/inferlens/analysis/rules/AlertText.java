package io.inferlens.analysis.rules;

import io.inferlens.analysis.diagnose.Cause;
import java.util.List;
import java.util.Map;

/**
 * The annotations of an InferLens alert, shared by the exported Prometheus rules and InferLens's
 * own Alertmanager notifications so both read alike: {@code summary} (one sentence), {@code
 * description} (the latency → queue → resource conditions in words), {@code recommendations}
 * ({@link Cause#recommendations()}, one a line) and {@code runbook_url} (the incident view of the
 * web UI for the cause and target).
 *
 * <p>Rule annotations are Prometheus templates (Go {@code text/template}, Prometheus docs
 * "Templating"): {@link #summary} refers to {@code {{ $value }}}, and every literal text placed in
 * one goes through {@link #literal}, so a label value holding {@code {{} cannot break the
 * template.
 */
public final class AlertText {

  private AlertText() {}

  /**
   * @param cause the cause code, the alert's name
   * @param target the target as a person names it, e.g. {@code vllm 10.0.0.2:8000 Qwen/Qwen3-8B}
   *     (plain text; escaped here)
   * @return one sentence; for the latency causes {@code {{ $value }}} is the breached P95 in
   *     seconds (shown with {@code humanizeDuration}), for UPSTREAM_BACKLOG the lag in messages
   */
  public static String summary(Cause cause, String target) {
    String t = literal(target);
    String latency = "P95 latency {{ $value | humanizeDuration }} above its threshold";
    switch (cause) {
      case CAPACITY_EXHAUSTED:
        return "Capacity exhausted on " + t + ": " + latency
            + " while requests queue and the GPU or KV cache is saturated.";
      case CONCURRENCY_LIMIT:
        return "Requests queue on " + t + " while the GPU has headroom: " + latency + ".";
      case KV_CACHE_PRESSURE:
        return "KV cache full on " + t + ", requests preempted: " + latency + ".";
      case GPU_COMPUTE_BOUND:
        return "GPU compute bound on " + t + ": " + latency + " with the queue normal.";
      case PER_REQUEST_SLOWDOWN:
        return "Each request got slower on " + t + " with no queue and no saturation: " + latency
            + ".";
      case WORKLOAD_SHIFT:
        return "Requests got longer on " + t + ": " + latency
            + " with prompt or generation length above its baseline.";
      case UPSTREAM_BACKLOG:
        return "Upstream Kafka backlog growing for " + t
            + " while inference keeps up: lag {{ $value | humanize }} messages.";
      case MONITORING_GAP:
        return "Scrapes missing for " + t + ".";
      default:
        return cause.name() + " on " + t + ".";
    }
  }

  /**
   * @param conditions the conditions in chain order, one line each, e.g. "Latency breached: TTFT
   *     P95 above 0.75 s (learned normal P95 0.5 s + 50 %)" (plain text; escaped here)
   * @param forDuration how long they must hold, e.g. {@code 5m}
   * @return the lines joined by newlines, ending with how long they must hold
   */
  public static String description(List<String> conditions, String forDuration) {
    StringBuilder sb = new StringBuilder();
    for (String c : conditions) {
      sb.append(literal(c)).append('\n');
    }
    return sb.append("All held for ").append(literal(forDuration)).append('.').toString();
  }

  /**
   * @param cause the cause
   * @return its recommendations, most effective first, joined by newlines (escaped)
   */
  public static String recommendations(Cause cause) {
    return literal(String.join("\n", cause.recommendations()));
  }

  /**
   * @param externalUrl where users reach InferLens, without a trailing slash
   * @param cause the cause
   * @param targetId the target's id ({@code Target.id()}: URL-safe, percent-encoded)
   * @return {@code <externalUrl>/#/incidents?cause=<CAUSE>&target=<id>} (escaped), the id
   *     encoded as a query value ({@link #uriComponent}): the UI's {@code URLSearchParams}
   *     decodes it back to the id, whose incidents the page lists
   */
  public static String runbookUrl(String externalUrl, Cause cause, String targetId) {
    return literal(externalUrl + "/#/incidents?cause=" + cause.name() + "&target="
        + uriComponent(targetId));
  }

  /**
   * @param s any text
   * @return {@code s} as JavaScript's {@code encodeURIComponent} spells it (UTF-8, every
   *     character but {@code A-Z a-z 0-9 - _ . ! ~ * ' ( )} percent-encoded; {@code %} itself
   *     becomes {@code %25}, so an already percent-encoded id survives one decoding)
   */
  public static String uriComponent(String s) {
    return java.net.URLEncoder.encode(s, java.nio.charset.StandardCharsets.UTF_8)
        .replace("+", "%20").replace("%7E", "~").replace("%21", "!").replace("%27", "'")
        .replace("%28", "(").replace("%29", ")").replace("%2A", "*");
  }

  /**
   * The four annotations in their order.
   *
   * @return summary, description, recommendations, runbook_url
   */
  static Map<String, String> annotations(String summary, String description,
      String recommendations, String runbookUrl) {
    java.util.LinkedHashMap<String, String> m = new java.util.LinkedHashMap<>();
    m.put("summary", summary);
    m.put("description", description);
    m.put("recommendations", recommendations);
    m.put("runbook_url", runbookUrl);
    return m;
  }

  /**
   * Plain text made safe inside a Go template: each {@code {{} and {@code }}} becomes an action
   * printing it ({@code {{ "{{" }}}), everything else stays.
   *
   * @param text plain text
   * @return template text printing exactly {@code text}
   */
  public static String literal(String text) {
    StringBuilder sb = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if ((c == '{' || c == '}') && i + 1 < text.length() && text.charAt(i + 1) == c) {
        sb.append("{{ \"").append(c).append(c).append("\" }}");
        i++;
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }
}
