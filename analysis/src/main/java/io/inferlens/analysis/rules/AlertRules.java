package io.inferlens.analysis.rules;

import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.diagnose.Indicator;
import io.inferlens.analysis.promql.ast.Printer;
import io.inferlens.analysis.promql.parse.Parser;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * One target's Prometheus alerting rules, with today's thresholds: one rule per cause the
 * target's signals can show, named after the cause code, whose expression is the latency breach
 * paired with the queue and resource conditions of the classifier (docs/DESIGN.md section 3,
 * {@link RuleConditions}). The rules exclude one another as the classifier's rule order does:
 *
 * <ul>
 *   <li>{@code KV_CACHE_PRESSURE}: latency {@code and on()} KV pressure;
 *   <li>{@code CAPACITY_EXHAUSTED}: latency {@code and on()} backlog {@code and on()} GPU or KV
 *       saturated, {@code unless on()} KV pressure;
 *   <li>{@code CONCURRENCY_LIMIT}: latency {@code and on()} backlog {@code unless on()}
 *       saturated;
 *   <li>{@code GPU_COMPUTE_BOUND}: latency {@code and on()} GPU saturated {@code unless on()}
 *       backlog, KV pressure;
 *   <li>{@code WORKLOAD_SHIFT}: latency {@code and on()} longer requests {@code unless on()}
 *       backlog, GPU saturated, KV pressure;
 *   <li>{@code PER_REQUEST_SLOWDOWN}: latency {@code unless on()} backlog, GPU saturated, KV
 *       pressure, longer requests;
 *   <li>{@code UPSTREAM_BACKLOG}: Kafka lag high and rising {@code unless on()} latency.
 * </ul>
 *
 * A latency rule's value is the first breached P95 (TTFT, TPOT/ITL, E2E) in seconds; the
 * upstream rule's the lag in messages. Labels: {@code severity} ({@code critical} for
 * CAPACITY_EXHAUSTED, else {@code warning}), the target's non-empty grouping labels,
 * {@code inferlens_cause}. MONITORING_GAP and VERSION_REGRESSION are not exported: they compare
 * scrape timing and model versions, which a per-step rule cannot.
 *
 * <p>Stateless and thread safe.
 */
public final class AlertRules {

  private AlertRules() {}

  /**
   * @param a the target's analysis ({@link DiagnosisEngine#analyze}), whose newest baselines
   *     are today's
   * @param config the configuration the analysis ran with
   * @param options {@code for}, rate window and the runbook base URL
   * @return the group {@code inferlens-<target id>}; it holds no rule when the target has no
   *     threshold yet and no upstream lag, the comments saying why
   * @throws IllegalStateException if an expression built here does not parse as PromQL (a bug)
   */
  public static RuleGroup forTarget(DiagnosisEngine.TargetAnalysis a, AnalysisConfig config,
      RuleOptions options) {
    Map<Indicator, LearnedThreshold> thresholds = LearnedThreshold.of(a.result(), config);
    RuleConditions c = new RuleConditions(a, config, thresholds, options.windowMs());
    List<AlertRule> rules = new ArrayList<>();
    Builder b = new Builder(a, options);
    Condition lat = c.latency;
    if (lat != null) {
      if (c.kvPressure != null) {
        rules.add(b.rule(Cause.KV_CACHE_PRESSURE, lat, List.of(c.kvPressure), List.of()));
      }
      if (c.backlog != null && c.saturated != null) {
        rules.add(b.rule(Cause.CAPACITY_EXHAUSTED, lat, List.of(c.backlog, c.saturated),
            present(c.kvPressure)));
      }
      if (c.backlog != null) {
        rules.add(b.rule(Cause.CONCURRENCY_LIMIT, lat, List.of(c.backlog),
            present(c.saturated)));
      }
      if (c.gpu != null) {
        rules.add(b.rule(Cause.GPU_COMPUTE_BOUND, lat, List.of(c.gpu),
            present(c.backlog, c.kvPressure)));
      }
      if (c.shift != null) {
        rules.add(b.rule(Cause.WORKLOAD_SHIFT, lat, List.of(c.shift),
            present(c.backlog, c.gpu, c.kvPressure)));
      }
      rules.add(b.rule(Cause.PER_REQUEST_SLOWDOWN, lat, List.of(),
          present(c.backlog, c.gpu, c.kvPressure, c.shift)));
    }
    if (c.upstream != null) {
      rules.add(b.rule(Cause.UPSTREAM_BACKLOG, c.upstream, List.of(), present(lat)));
    }
    List<String> comments = new ArrayList<>(new LinkedHashSet<>(c.comments()));
    return new RuleGroup("inferlens-" + a.target().id(), comments, rules);
  }

  private static List<Condition> present(Condition... cs) {
    List<Condition> out = new ArrayList<>();
    for (Condition x : cs) {
      if (x != null) {
        out.add(x);
      }
    }
    return out;
  }

  /** Writes rules of one target. */
  private static final class Builder {
    private final DiagnosisEngine.TargetAnalysis a;
    private final RuleOptions options;
    private final String targetText;

    Builder(DiagnosisEngine.TargetAnalysis a, RuleOptions options) {
      this.a = a;
      this.options = options;
      List<String> values = new ArrayList<>();
      for (String v : a.target().labels().values()) {
        if (!v.isEmpty()) {
          values.add(v);
        }
      }
      this.targetText = String.join(" ", values);
    }

    /**
     * {@code first and on() with[0] and on() … unless on() without[0] unless on() …}: and and
     * unless are left-associative at one precedence, so each clause narrows the one before.
     */
    AlertRule rule(Cause cause, Condition first, List<Condition> with, List<Condition> without) {
      StringBuilder expr = new StringBuilder(first.promql());
      List<String> words = new ArrayList<>();
      words.add(first.state() + ": " + first.words() + ".");
      for (Condition x : with) {
        expr.append("\nand on() ").append(x.promql());
        words.add(x.state() + ": " + x.words() + ".");
      }
      for (Condition x : without) {
        expr.append("\nunless on() ").append(x.promql());
        words.add(x.negated() + " (that is, not: " + x.words() + ").");
      }
      String text = expr.toString();
      try {
        Parser.parse(text);
      } catch (RuntimeException e) {
        throw new IllegalStateException("exported rule " + cause + " for " + a.target().id()
            + " is not valid PromQL (" + e.getMessage() + "): " + text, e);
      }
      Map<String, String> labels = new LinkedHashMap<>();
      labels.put("severity", cause == Cause.CAPACITY_EXHAUSTED ? "critical" : "warning");
      a.target().labels().forEach((k, v) -> {
        if (!v.isEmpty()) {
          // Rule label values are templates too (Prometheus docs, "Alerting rules").
          labels.put(k, AlertText.literal(v));
        }
      });
      labels.put("inferlens_cause", cause.name());
      String forText = Printer.duration(options.forMs());
      return new AlertRule(cause.name(), text, forText, labels, AlertText.annotations(
          AlertText.summary(cause, targetText), AlertText.description(words, forText),
          AlertText.recommendations(cause),
          AlertText.runbookUrl(options.externalUrl(), cause, a.target().id())));
    }
  }
}
