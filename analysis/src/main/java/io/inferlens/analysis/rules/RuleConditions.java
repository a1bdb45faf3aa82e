package io.inferlens.analysis.rules;

import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.diagnose.Indicator;
import io.inferlens.analysis.diagnose.IndicatorEvaluator;
import io.inferlens.analysis.diagnose.IndicatorQueries;
import io.inferlens.analysis.promql.ast.Printer;
import io.inferlens.analysis.target.ResolvedSignal;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * The classifier's conditions (docs/DESIGN.md section 3, Diagnoser's rules) for one target, as
 * PromQL over the target's own indicator formulas ({@link IndicatorQueries}, the same text the
 * evidence rows carry) with today's thresholds written in as numbers:
 *
 * <ul>
 *   <li>latency breached: any of TTFT, TPOT/ITL, E2E P95 above its threshold;
 *   <li>queue backed up: waiting ≥ {@code waitingBacklog} (1) and ≥ {@code waitingPerRunning}
 *       (0.1) × running, or queue time P95 above its SLO;
 *   <li>GPU saturated: utilisation ≥ 90 %; KV saturated: usage ≥ 0.90;
 *   <li>KV pressure: KV saturated and preemptions above {@code preemptionRatePerSecond}, and,
 *       while the queue is backed up, at least {@code preemptionsPerRequest} × the request rate;
 *   <li>workload shift: prompt or generation length above {@code workloadShiftRatio} × baseline;
 *   <li>upstream backlog: Kafka lag ≥ {@code upstreamMinLag} (1000) and rising, {@code deriv}
 *       over the rate window &gt; 0 (the classifier compares with the lag {@code for} ago).
 * </ul>
 *
 * A condition whose signals the target does not expose is null; {@link #comments()} says why.
 * Binary operators between the indicators' one-series results match with {@code on()}.
 */
final class RuleConditions {

  /** Indicators whose thresholds enter the latency condition, in the classifier's order. */
  static final Indicator[] LATENCY = {Indicator.TTFT_P95, Indicator.TPOT_P95, Indicator.E2E_P95};

  final Condition latency;
  final Condition backlog;
  final Condition gpu;
  final Condition kv;
  final Condition saturated;
  final Condition kvPressure;
  final Condition shift;
  final Condition upstream;
  private final List<String> comments = new ArrayList<>();

  /**
   * @param a the target's analysis
   * @param config the configuration it ran with
   * @param thresholds today's thresholds ({@link LearnedThreshold#of})
   * @param windowMs the rate window of the expressions, milliseconds
   */
  RuleConditions(DiagnosisEngine.TargetAnalysis a, AnalysisConfig config,
      Map<Indicator, LearnedThreshold> thresholds, long windowMs) {
    Map<Indicator, String> q = queries(a, config, windowMs);
    latency = latency(q, thresholds, config);
    String w = q.get(Indicator.WAITING);
    String r = q.get(Indicator.RUNNING);
    String qt = q.get(Indicator.QUEUE_TIME_P95);
    LearnedThreshold qtSlo = thresholds.get(Indicator.QUEUE_TIME_P95);
    if (w != null) {
      String waiting = "(" + w + " >= " + num(config.waitingBacklog()) + ")";
      String words = "at least " + num(config.waitingBacklog())
          + (config.waitingBacklog() == 1 ? " request" : " requests") + " waiting";
      if (r != null) {
        waiting = "(" + waiting + " and on() (" + w + " >= " + num(config.waitingPerRunning())
            + " * (" + r + ")))";
        words += " and waiting at least " + pct(config.waitingPerRunning())
            + " of the running batch";
      }
      if (qt != null && qtSlo != null) {
        waiting = "(" + waiting + " or on() (" + qt + " > " + num(qtSlo.value()) + "))";
        words += ", or queue time P95 above " + num(qtSlo.value()) + " s (SLO)";
      }
      backlog = new Condition("Queue backed up", "Queue not backed up", waiting, words);
    } else {
      backlog = null;
      comments.add("no queue condition: the target exposes no waiting-requests gauge, so"
          + " CAPACITY_EXHAUSTED and CONCURRENCY_LIMIT are not written");
    }
    String g = q.get(Indicator.GPU_UTIL);
    gpu = g == null ? null : new Condition("GPU saturated", "GPU not saturated",
        "(" + g + " >= " + num(config.gpuUtilSaturatedPercent()) + ")",
        "GPU utilisation at least " + num(config.gpuUtilSaturatedPercent()) + " %");
    String k = q.get(Indicator.KV_CACHE_USAGE);
    kv = k == null ? null : new Condition("KV cache saturated", "KV cache not saturated",
        "(" + k + " >= " + num(config.kvSaturatedRatio()) + ")",
        "KV-cache usage at least " + pct(config.kvSaturatedRatio()));
    if (gpu != null && kv != null) {
      saturated = new Condition("GPU or KV cache saturated",
          "Neither GPU nor KV cache saturated",
          "(" + gpu.promql() + " or on() " + kv.promql() + ")", gpu.words() + " or " + kv.words());
    } else {
      saturated = gpu != null ? gpu : kv;
    }
    if (saturated == null) {
      comments.add("no resource condition: the target exposes neither GPU utilisation (DCGM)"
          + " nor KV-cache usage");
    }
    String p = q.get(Indicator.PREEMPTIONS);
    if (kv != null && p != null) {
      String req = q.get(Indicator.REQUEST_RATE);
      String expr = "(" + kv.promql() + " and on() (" + p + " > "
          + num(config.preemptionRatePerSecond()) + ")";
      String words = kv.words() + " with preemptions above " + num(config.preemptionRatePerSecond())
          + "/s";
      if (req != null && backlog != null) {
        // The per-request quota only separates KV pressure from exhausted capacity under a
        // queue: without one, any preemption at a full cache is KV pressure.
        expr += " and on() ((" + p + " >= " + num(config.preemptionsPerRequest()) + " * (" + req
            + ")) or on() (vector(1) unless on() " + backlog.promql() + "))";
        words += " and, while the queue is backed up, at least one per "
            + num(1 / config.preemptionsPerRequest()) + " finished requests";
      }
      kvPressure = new Condition("KV-cache pressure", "No KV-cache pressure", expr + ")", words);
    } else {
      kvPressure = null;
      comments.add("no KV_CACHE_PRESSURE rule: the target exposes no "
          + (kv == null ? "KV-cache usage" : "preemption counter"));
    }
    shift = shift(q, thresholds, config);
    String lagQuery = q.get(Indicator.UPSTREAM_BACKLOG);
    if (lagQuery != null) {
      long res = Math.max(1000, windowMs / 10 / 1000 * 1000);
      upstream = new Condition("Upstream backlog rising", "Upstream backlog not rising",
          "((" + lagQuery + " >= " + num(config.upstreamMinLag()) + ") and on() (deriv(("
              + lagQuery + ")[" + Printer.duration(windowMs) + ":" + Printer.duration(res)
              + "]) > 0))",
          "Kafka consumer lag at least " + num(config.upstreamMinLag())
              + " messages and rising over " + Printer.duration(windowMs));
    } else {
      upstream = null;
    }
  }

  /** @return why conditions are missing, one line each */
  List<String> comments() {
    return List.copyOf(comments);
  }

  private Condition latency(Map<Indicator, String> q, Map<Indicator, LearnedThreshold> thr,
      AnalysisConfig config) {
    List<String> parts = new ArrayList<>();
    List<String> words = new ArrayList<>();
    for (Indicator ind : LATENCY) {
      String query = q.get(ind);
      if (query == null) {
        continue;
      }
      LearnedThreshold t = thr.get(ind);
      if (t == null) {
        comments.add("no " + name(ind) + " rule condition: no baseline learned yet (less than "
            + Printer.duration(config.baselineMinHistoryMs()) + " of normal history) and no --slo "
            + ind.key());
        continue;
      }
      parts.add("(" + query + " > " + num(t.value()) + ")");
      words.add(name(ind) + " above " + num(t.value()) + " s ("
          + (t.source() == LearnedThreshold.Source.SLO ? "SLO"
          : "learned normal P95 " + num(t.baseline()) + " s + "
              + num(Math.round((config.baselineHeadroom() - 1) * 1000) / 10.0) + " %") + ")");
    }
    if (parts.isEmpty()) {
      comments.add("no latency rules: no latency indicator has a threshold yet");
      return null;
    }
    String expr = parts.size() == 1 ? parts.get(0)
        : "(\n  " + String.join("\n  or\n  ", parts) + "\n)";
    return new Condition("Latency breached", "Latency within its thresholds", expr,
        String.join(", or ", words));
  }

  private static Condition shift(Map<Indicator, String> q, Map<Indicator, LearnedThreshold> thr,
      AnalysisConfig config) {
    List<String> parts = new ArrayList<>();
    List<String> words = new ArrayList<>();
    for (Indicator ind : new Indicator[] {Indicator.PROMPT_TOKENS, Indicator.GENERATION_TOKENS}) {
      String query = q.get(ind);
      LearnedThreshold t = thr.get(ind);
      if (query == null || t == null || !(t.baseline() > 0)) {
        continue;
      }
      parts.add("(" + query + " > " + num(t.value()) + ")");
      words.add((ind == Indicator.PROMPT_TOKENS ? "prompt" : "generation")
          + " length above " + num(t.value()) + " tokens (" + num(config.workloadShiftRatio())
          + " × its learned " + num(t.baseline()) + ")");
    }
    if (parts.isEmpty()) {
      return null;
    }
    return new Condition("Requests longer", "Requests not longer",
        parts.size() == 1 ? parts.get(0) : "(" + String.join(" or on() ", parts) + ")",
        String.join(" or ", words));
  }

  /**
   * The PromQL of each indicator the target exposes: the frame's text (the evidence's
   * {@code promql}) at the server's rate window, the same formula at another window otherwise.
   */
  private static Map<Indicator, String> queries(DiagnosisEngine.TargetAnalysis a,
      AnalysisConfig config, long windowMs) {
    Map<Indicator, String> out = new EnumMap<>(Indicator.class);
    for (Map.Entry<Signal, ResolvedSignal> e : a.signals().entrySet()) {
      for (Indicator ind : IndicatorEvaluator.indicators(e.getKey())) {
        String text = windowMs == config.rateWindowMs() ? a.frame().query(ind) : null;
        out.put(ind, text != null ? text : IndicatorQueries.text(e.getValue(), ind, windowMs));
      }
    }
    return out;
  }

  /** @return the indicator as a person names it, e.g. "TPOT/ITL P95" */
  static String name(Indicator ind) {
    switch (ind) {
      case TTFT_P95: return "TTFT P95";
      case TPOT_P95: return "TPOT/ITL P95";
      case E2E_P95: return "E2E P95";
      case QUEUE_TIME_P95: return "queue time P95";
      default: return ind.key();
    }
  }

  /**
   * @param v a finite number
   * @return it with at most 4 significant digits, without exponent or trailing zeros, as a
   *     PromQL number literal and for text ({@code 0.75}, {@code 12000}, {@code 0.00012})
   */
  static String num(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return new BigDecimal(v).round(new MathContext(4)).stripTrailingZeros().toPlainString();
  }

  private static String pct(double ratio) {
    return num(ratio * 100) + " %";
  }
}
