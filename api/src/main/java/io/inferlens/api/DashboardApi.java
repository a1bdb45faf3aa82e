package io.inferlens.api;

import com.linecorp.armeria.common.QueryParams;
import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.diagnose.Indicator;
import io.inferlens.analysis.incident.DiagnosisHistory;
import io.inferlens.analysis.incident.Incident;
import io.inferlens.analysis.incident.IncidentJournal;
import io.inferlens.analysis.smoothing.Smoothing;
import io.inferlens.analysis.target.Target;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.StorageException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Several indicators of one target from a single analysis, for the web UI's charts (a page of
 * charts would otherwise analyse the target once per chart with {@code /api/v1/signals}).
 *
 * <p>{@code GET /api/v1/dashboard?target=ID&signal=e2e_p95,waiting,…&start=&end=&step=&smoothing=&n=}
 * → {@code {"target":{…},"id":…,"step":15,"timestamps":[ms…],"signals":[{"signal","unit","raw",
 * "smoothed","threshold","baseline","basis"}…],"diagnoses":[…]}}:
 *
 * <ul>
 *   <li>{@code signal}: indicator keys ({@code e2e_p95}, {@code waiting}, {@code gpu_util}, …),
 *       repeated or comma-separated; an indicator the target has no series for has empty
 *       {@code raw}
 *   <li>{@code step}: seconds or a duration ({@code 30s}); default the analysis step, widened so
 *       the range has at most {@value #MAX_POINTS} points
 *   <li>{@code smoothing} ({@code ema} default, {@code sma}, {@code none}) and {@code n} (10)
 *       apply to latency indicators (unit {@code s}) only; others return {@code smoothed} equal
 *       to {@code raw}. {@code threshold}/{@code baseline} are null for indicators without one;
 *       {@code basis} says per step where the threshold came from ({@code slo}, {@code
 *       baseline}, {@code static} before a baseline exists, null without one)
 *   <li>values are in the indicator's unit ({@code s}, {@code requests}, {@code ratio} 0–1,
 *       {@code %} 0–100, {@code 1/s}, {@code tokens}); null where there is no value
 *   <li>{@code diagnoses}: this target's incidents overlapping the range, in
 *       {@code /api/v1/diagnoses}'s shape and from the same source (the always-on evaluator's
 *       journal; evaluated at the analysis step on request without it), plus its sender's
 *       REMOTE_WRITE_STOPPED incidents, so the target page, the incident list and the alerts
 *       agree
 * </ul>
 *
 * <p>{@code start}/{@code end} default to the last 6 hours. Errors: 400 {@code bad_data} (unknown
 * target or signal, bad step or time), 405 for non-GET, 503 when the store fails.
 */
public final class DashboardApi {

  /** Most points per response; a longer range gets a coarser step. */
  static final int MAX_POINTS = 2_000;

  private final DiagnosisEngine engine;
  private final Clock clock;
  private final DiagnosisHistory history;
  private final IncidentJournal journal;

  /**
   * Diagnosed periods evaluated on request (no always-on evaluator).
   *
   * @param engine the analysis engine
   * @param clock the present, for default ranges
   */
  public DashboardApi(DiagnosisEngine engine, Clock clock) {
    this(engine, clock, null, null);
  }

  /**
   * @param engine the analysis engine
   * @param clock the present, for default ranges
   * @param history the evaluator's incidents (as {@code /api/v1/diagnoses} reads them), or null
   *     to evaluate the periods on request
   * @param journal the evaluator's journal, for the sender's REMOTE_WRITE_STOPPED incidents
   *     shown on each of its targets, or null
   */
  public DashboardApi(DiagnosisEngine engine, Clock clock,
      DiagnosisHistory history,
      IncidentJournal journal) {
    this.engine = engine;
    this.clock = clock;
    this.history = history;
    this.journal = journal;
  }

  /**
   * This target's incidents over the range, from the same source as {@code /api/v1/diagnoses}
   * and the incident list, so the target page, the list and the alerts tell one story; plus the
   * sender's silences (REMOTE_WRITE_STOPPED over labels the target carries).
   */
  private List<Diagnosis> journaled(Target target, long startMs, long endMs)
      throws StorageException {
    List<Matcher> sel = new ArrayList<>();
    for (Map.Entry<String, String> e : target.labels().entrySet()) {
      sel.add(Matcher.eq(e.getKey(), e.getValue()));
    }
    List<Diagnosis> out = new ArrayList<>();
    for (Diagnosis d : history.diagnoses(startMs, endMs, List.of(sel))) {
      if (d.target().equals(target.labels())) {
        out.add(d);
      }
    }
    if (journal != null) {
      for (Incident inc : journal.list(startMs, endMs,
          d -> d.cause() == Cause.REMOTE_WRITE_STOPPED
              && target.labels().entrySet().containsAll(d.target().entrySet()))) {
        out.add(inc.diagnosis());
      }
    }
    out.sort((x, y) -> Long.compare(x.startMs(), y.startMs()));
    return out;
  }

  /** @param sb where to bind the route (the server, or one tenant's route table) */
  public void bind(Routes sb) {
    sb.service("/api/v1/dashboard", JsonEndpoints.get("dashboard read", this::dashboard));
  }

  private long step(QueryParams p, TimeParams t) {
    return TimeParams.stepMs(p.get("step"), t.endMs() - t.startMs(), engine.config().stepMs(),
        MAX_POINTS);
  }

  /**
   * Where each step's threshold came from, as {@code Evidence.basis} names it: {@code slo},
   * {@code baseline} (learned), {@code static} (the default limit before a baseline exists), or
   * null where there is no threshold. The UI fits its axes to the data rather than to a static
   * default far above it.
   */
  private static List<String> basis(double[] thr, double[] base, boolean slo, int from, int len) {
    List<String> out = new ArrayList<>(len);
    for (int i = from; i < from + len; i++) {
      out.add(i >= thr.length || Double.isNaN(thr[i]) ? null : slo ? "slo"
          : base != null && i < base.length && !Double.isNaN(base[i]) ? "baseline" : "static");
    }
    return out;
  }

  private Object dashboard(QueryParams p) throws StorageException {
    TimeParams t = TimeParams.parse(p.get("start"), p.get("end"), clock);
    Target target = AnalysisApi.findTarget(engine, p.get("target"), t);
    List<Indicator> indicators = AnalysisApi.indicators(p.getAll("signal"));
    if (indicators.isEmpty()) {
      throw new IllegalArgumentException("missing parameter signal, e.g. e2e_p95,waiting");
    }
    String smoothing = p.get("smoothing", engine.config().smoothing());
    if (!smoothing.equals("ema") && !smoothing.equals("sma") && !smoothing.equals("none")) {
      throw new IllegalArgumentException(
          "parameter smoothing must be sma, ema or none, got " + smoothing);
    }
    int n;
    try {
      n = Integer.parseInt(p.get("n", Integer.toString(engine.config().smoothingN())));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("parameter n must be an integer ≥ 1, got " + p.get("n"));
    }
    if (n < 1) {
      throw new IllegalArgumentException("parameter n must be ≥ 1, got " + n);
    }
    long step = step(p, t);
    DiagnosisEngine.TargetAnalysis a = engine.analyze(target, t.startMs(), t.endMs(), step);
    int from = a.reportFromStep();
    int len = a.frame().steps() - from;
    List<Long> ts = new ArrayList<>(len);
    for (int i = 0; i < len; i++) {
      ts.add(a.frame().timeMs(from + i));
    }
    List<Map<String, Object>> out = new ArrayList<>();
    for (Indicator ind : indicators) {
      double[] raw = a.frame().get(ind);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("signal", ind.key());
      m.put("unit", ind.unit());
      if (raw == null) {
        m.put("raw", List.of());
        m.put("smoothed", List.of());
        m.put("threshold", null);
        m.put("baseline", null);
        m.put("basis", null);
        out.add(m);
        continue;
      }
      double[] smoothed = raw;
      if (ind.isLatency()) {
        smoothed = switch (smoothing) {
          case "sma" -> Smoothing.sma(raw, n);
          case "ema" -> Smoothing.ema(raw, n);
          default -> raw;
        };
      }
      m.put("raw", slice(raw, from, len));
      m.put("smoothed", slice(smoothed, from, len));
      double[] thr = a.result().thresholds().get(ind);
      double[] base = a.result().baselines().get(ind);
      m.put("threshold", thr == null ? null : slice(thr, from, len));
      m.put("baseline", base == null ? null : slice(base, from, len));
      m.put("basis", thr == null ? null
          : basis(thr, base, engine.config().slos().containsKey(ind), from, len));
      out.add(m);
    }
    List<Map<String, Object>> diagnoses = new ArrayList<>();
    // Diagnosed periods always at the analysis step: a chart's coarser step must not change them.
    List<Diagnosis> periods = history != null ? journaled(target, t.startMs(), t.endMs())
        : step == engine.config().stepMs() ? a.result().diagnoses()
        : engine.analyze(target, t.startMs(), t.endMs(), 0).result().diagnoses();
    for (Diagnosis d : periods) {
      diagnoses.add(AnalysisApi.toJson(d));
    }
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("target", target.labels());
    data.put("id", target.id());
    data.put("step", step / 1000.0);
    data.put("smoothing", smoothing);
    data.put("n", n);
    data.put("timestamps", ts);
    data.put("signals", out);
    data.put("diagnoses", diagnoses);
    return data;
  }

  private static List<Double> slice(double[] v, int from, int len) {
    List<Double> out = new ArrayList<>(len);
    for (int i = 0; i < len; i++) {
      double x = v[from + i];
      out.add(Double.isNaN(x) || Double.isInfinite(x) ? null : x);
    }
    return out;
  }


}
