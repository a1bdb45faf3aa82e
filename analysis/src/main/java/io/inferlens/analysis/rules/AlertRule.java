package io.inferlens.analysis.rules;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * One Prometheus alerting rule (Prometheus docs, "Alerting rules": {@code alert}, {@code expr},
 * {@code for}, {@code labels}, {@code annotations}).
 *
 * @param alert the alert name: a cause code such as {@code CAPACITY_EXHAUSTED}
 * @param expr the PromQL expression, possibly over several lines; it gives at most one series
 *     (without labels) per evaluation
 * @param forDuration the rule's {@code for} as Prometheus duration text, e.g. {@code 5m}
 * @param labels label name → value, in writing order (severity, the target's grouping labels,
 *     {@code inferlens_cause}); unmodifiable
 * @param annotations {@code summary}, {@code description}, {@code recommendations},
 *     {@code runbook_url}, in that order, as Prometheus templates; unmodifiable
 */
public record AlertRule(String alert, String expr, String forDuration, Map<String, String> labels,
    Map<String, String> annotations) {

  /** Copies the maps, keeping their order. */
  public AlertRule {
    labels = Collections.unmodifiableMap(new LinkedHashMap<>(labels));
    annotations = Collections.unmodifiableMap(new LinkedHashMap<>(annotations));
  }
}
