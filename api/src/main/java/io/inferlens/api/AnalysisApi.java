package io.inferlens.api;

import com.linecorp.armeria.common.QueryParams;
import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.diagnose.ChainLayer;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.diagnose.Evidence;
import io.inferlens.analysis.diagnose.Indicator;
import io.inferlens.analysis.smoothing.Smoothing;
import io.inferlens.analysis.target.ResolvedSignal;
import io.inferlens.analysis.target.Target;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.StorageException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The analysis REST API (docs/DESIGN.md section 4), JSON in the Prometheus envelope:
 *
 * <ul>
 *   <li>{@code GET /api/v1/diagnoses?start=&end=&match[]=} → {@code {"diagnoses":[…]}}, times RFC
 *       3339, {@code end} null while a period is still open; {@code match[]} selectors filter
 *       targets by their labels
 *   <li>{@code GET /api/v1/targets?start=&end=} → each target's id, labels and the metric chosen
 *       for each signal
 *   <li>{@code GET /api/v1/signals?target=&signal=&start=&end=&step=&smoothing=sma|ema|none&n=}
 *       → timestamps (ms), raw and smoothed values, threshold and baseline per step (null where
 *       none); {@code signal} is an indicator such as {@code e2e_p95} or a signal such as
 *       {@code e2e} (its P95)
 *   <li>{@code GET /api/v1/baselines?target=&start=&end=} → per target and latency indicator the
 *       threshold in force at {@code end}, the learned baseline and where the threshold comes from
 *       ({@code slo}, {@code baseline} or {@code default})
 * </ul>
 *
 * <p>{@code start}/{@code end} default to the last 6 hours. Errors: 400 with
 * {@code {"status":"error","errorType":"bad_data","error":"…"}}.
 */
public final class AnalysisApi {

  /** Most points a signal response carries; a longer range gets a coarser step. */
  private static final int MAX_POINTS = 2_000;

  private final DiagnosisEngine engine;
  private final io.inferlens.analysis.incident.DiagnosisHistory history;
  private final Clock clock;

  /**
   * @param engine the analysis engine
   * @param history the journal with on-demand evaluation of what it does not cover, or null
   *     when the evaluator is off (every request is then evaluated on demand)
   * @param clock the present, for default ranges
   */
  public AnalysisApi(DiagnosisEngine engine,
      io.inferlens.analysis.incident.DiagnosisHistory history, Clock clock) {
    this.engine = engine;
    this.history = history;
    this.clock = clock;
  }

  /** @param sb where to bind the routes (the server, or one tenant's route table) */
  public void bind(Routes sb) {
    sb.service("/api/v1/diagnoses", JsonEndpoints.get("analysis read", this::diagnoses));
    sb.service("/api/v1/targets", JsonEndpoints.get("analysis read", this::targets));
    sb.service("/api/v1/signals", JsonEndpoints.get("analysis read", this::signals));
    sb.service("/api/v1/baselines", JsonEndpoints.get("analysis read", this::baselines));
  }



  private Object diagnoses(QueryParams p) throws StorageException {
    TimeParams t = TimeParams.parse(p.get("start"), p.get("end"), clock);
    List<List<Matcher>> selectors = new ArrayList<>();
    for (String s : p.getAll("match[]")) {
      selectors.add(SelectorParser.parseAny(s));
    }
    List<Map<String, Object>> list = new ArrayList<>();
    List<Diagnosis> found = history != null
        ? history.diagnoses(t.startMs(), t.endMs(), selectors)
        : engine.diagnoses(t.startMs(), t.endMs(), selectors);
    for (Diagnosis d : found) {
      list.add(toJson(d));
    }
    return Map.of("diagnoses", list);
  }

  static Map<String, Object> toJson(Diagnosis d) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", d.id());
    m.put("cause", d.cause().name());
    m.put("severity", d.severity());
    m.put("target", d.target());
    m.put("start", Instant.ofEpochMilli(d.startMs()).toString());
    m.put("end", d.endMs() == null ? null : Instant.ofEpochMilli(d.endMs()).toString());
    m.put("stale", d.stale());
    m.put("summary", d.summary());
    List<Map<String, Object>> chain = new ArrayList<>();
    for (ChainLayer l : d.chain()) {
      Map<String, Object> lm = new LinkedHashMap<>();
      lm.put("layer", l.layer());
      lm.put("verdict", l.verdict());
      List<Map<String, Object>> ev = new ArrayList<>();
      for (Evidence e : l.evidence()) {
        Map<String, Object> em = new LinkedHashMap<>();
        em.put("signal", e.signal());
        em.put("value", finite(e.value()));
        em.put("threshold", e.threshold());
        em.put("baseline", e.baseline());
        em.put("basis", e.basis());
        em.put("unit", e.unit());
        em.put("window", e.window());
        em.put("low", finite(e.low()));
        em.put("high", finite(e.high()));
        em.put("promql", e.promql());
        ev.add(em);
      }
      lm.put("evidence", ev);
      chain.add(lm);
    }
    m.put("chain", chain);
    m.put("recommendations", d.recommendations());
    return m;
  }

  private Object targets(QueryParams p) throws StorageException {
    TimeParams t = TimeParams.parse(p.get("start"), p.get("end"), clock);
    List<Map<String, Object>> list = new ArrayList<>();
    for (Target target : engine.targets(t.startMs(), t.endMs())) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", target.id());
      m.put("labels", target.labels());
      list.add(m);
    }
    return Map.of("targets", list);
  }

  private Target target(QueryParams p, TimeParams t) throws StorageException {
    return findTarget(engine, p.get("target"), t);
  }

  /**
   * Finds a target by the id {@code /api/v1/targets} gives. The id's label values are
   * percent-encoded ({@code vllm~host%3A8000~Qwen%2FQwen3}); pasted into a URL unencoded, the
   * server receives them decoded once, so that form is accepted too.
   *
   * @param engine the engine whose targets to search
   * @param id the {@code target} parameter
   * @param t the range the target must have samples in
   * @return the target
   * @throws IllegalArgumentException when the parameter is missing or no target matches, naming
   *     the id and the range
   * @throws StorageException if the store fails
   */
  static Target findTarget(DiagnosisEngine engine, String id, TimeParams t)
      throws StorageException {
    return findTarget(id == null || id.isEmpty() ? List.of()
        : engine.targets(t.startMs(), t.endMs()), id, t);
  }

  /** As {@link #findTarget(DiagnosisEngine, String, TimeParams)} among targets already found. */
  static Target findTarget(List<Target> targets, String id, TimeParams t) {
    if (id == null || id.isEmpty()) {
      throw new IllegalArgumentException(
          "missing parameter target (a target id from /api/v1/targets)");
    }
    for (Target target : targets) {
      if (target.id().equals(id) || decoded(target.id()).equals(id)) {
        return target;
      }
    }
    throw new IllegalArgumentException("no target with id \"" + id + "\" has samples between "
        + Instant.ofEpochMilli(t.startMs()) + " and " + Instant.ofEpochMilli(t.endMs())
        + " (ids are listed by /api/v1/targets; URL-encode them, e.g. curl --data-urlencode)");
  }

  private static String decoded(String id) {
    return java.net.URLDecoder.decode(id.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * @param values {@code signal} parameters, each one indicator key or several comma-separated
   * @return the indicators in order of first mention, each once; empty when none is named
   * @throws IllegalArgumentException naming an unknown key
   */
  static List<Indicator> indicators(List<String> values) {
    List<Indicator> out = new ArrayList<>();
    for (String s : values) {
      for (String part : s.split(",")) {
        if (!part.isBlank()) {
          Indicator ind = indicator(part.strip());
          if (!out.contains(ind)) {
            out.add(ind);
          }
        }
      }
    }
    return out;
  }

  static Indicator indicator(String name) {
    if (name == null || name.isEmpty()) {
      throw new IllegalArgumentException("missing parameter signal, e.g. e2e_p95 or waiting");
    }
    String key = name.toLowerCase(Locale.ROOT);
    for (Indicator i : Indicator.values()) {
      if (i.key().equals(key) || i.key().equals(key + "_p95")) {
        return i;
      }
    }
    return Indicator.fromKey(key);
  }

  private long step(QueryParams p, TimeParams t) {
    return TimeParams.stepMs(p.get("step"), t.endMs() - t.startMs(), engine.config().stepMs(),
        MAX_POINTS);
  }

  private Object signals(QueryParams p) throws StorageException {
    TimeParams t = TimeParams.parse(p.get("start"), p.get("end"), clock);
    Target target = target(p, t);
    Indicator ind = indicator(p.get("signal"));
    String smoothing = p.get("smoothing", engine.config().smoothing());
    int n = Integer.parseInt(p.get("n", Integer.toString(engine.config().smoothingN())));
    if (n < 1) {
      throw new IllegalArgumentException("parameter n must be ≥ 1, got " + n);
    }
    long step = step(p, t);
    DiagnosisEngine.TargetAnalysis a = engine.analyze(target, t.startMs(), t.endMs(), step);
    double[] raw = a.frame().get(ind);
    int from = a.reportFromStep();
    int len = a.frame().steps() - from;
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("target", target.labels());
    m.put("signal", ind.key());
    m.put("unit", ind.unit());
    m.put("metric", metricFor(a, ind));
    m.put("step", step / 1000.0);
    List<Long> ts = new ArrayList<>(len);
    for (int i = 0; i < len; i++) {
      ts.add(a.frame().timeMs(from + i));
    }
    m.put("timestamps", ts);
    if (raw == null) {
      m.put("raw", List.of());
      m.put("smoothed", List.of());
      m.put("smoothing", smoothing);
      return m;
    }
    double[] smoothed;
    switch (smoothing) {
      case "sma": smoothed = Smoothing.sma(raw, n); break;
      case "ema": smoothed = Smoothing.ema(raw, n); break;
      case "none": smoothed = raw; break;
      default: throw new IllegalArgumentException(
          "parameter smoothing must be sma, ema or none, got " + smoothing);
    }
    m.put("smoothing", smoothing);
    m.put("n", n);
    m.put("raw", slice(raw, from, len));
    m.put("smoothed", slice(smoothed, from, len));
    double[] thr = a.result().thresholds().get(ind);
    double[] base = a.result().baselines().get(ind);
    m.put("threshold", thr == null ? null : slice(thr, from, len));
    m.put("baseline", base == null ? null : slice(base, from, len));
    return m;
  }

  private static String metricFor(DiagnosisEngine.TargetAnalysis a, Indicator ind) {
    for (Map.Entry<Signal, ResolvedSignal> e : a.signals().entrySet()) {
      if (ind.key().startsWith(e.getKey().name().toLowerCase(Locale.ROOT))) {
        return e.getValue().metricName();
      }
    }
    return null;
  }

  private Object baselines(QueryParams p) throws StorageException {
    TimeParams t = TimeParams.parse(p.get("start"), p.get("end"), clock);
    List<Target> targets = p.get("target") == null ? engine.targets(t.startMs(), t.endMs())
        : List.of(target(p, t));
    List<Map<String, Object>> out = new ArrayList<>();
    for (Target target : targets) {
      DiagnosisEngine.TargetAnalysis a = engine.analyze(target, t.startMs(), t.endMs(), 0);
      int last = a.frame().steps() - 1;
      List<Map<String, Object>> inds = new ArrayList<>();
      for (Map.Entry<Indicator, double[]> e : a.result().thresholds().entrySet()) {
        Indicator ind = e.getKey();
        double thr = e.getValue()[last];
        double base = a.result().baselines().get(ind)[last];
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("signal", ind.key());
        m.put("unit", ind.unit());
        m.put("threshold", finite(thr));
        m.put("baseline", finite(base));
        m.put("source", engine.config().slos().containsKey(ind) ? "slo"
            : !Double.isNaN(base) ? "baseline" : Double.isNaN(thr) ? "none" : "default");
        inds.add(m);
      }
      Map<String, Object> tm = new LinkedHashMap<>();
      tm.put("target", target.labels());
      tm.put("id", target.id());
      tm.put("baselines", inds);
      out.add(tm);
    }
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("lookback", io.inferlens.analysis.diagnose.Diagnoser.duration(
        engine.config().baselineLookbackMs()));
    data.put("headroom", engine.config().baselineHeadroom());
    data.put("targets", out);
    return data;
  }

  private static List<Double> slice(double[] v, int from, int len) {
    List<Double> out = new ArrayList<>(len);
    for (int i = 0; i < len; i++) {
      out.add(finite(v[from + i]));
    }
    return out;
  }

  private static Double finite(double v) {
    return Double.isNaN(v) || Double.isInfinite(v) ? null : v;
  }


}
