package io.inferlens.api;

import com.linecorp.armeria.common.QueryParams;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.diagnose.Indicator;
import io.inferlens.analysis.target.Target;
import io.inferlens.storage.StorageException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Small multiples for the web UI's overview: a few indicators of every target in one request, at
 * a coarse step, with none of the analysis behind {@code /api/v1/dashboard} (no baseline lookback,
 * smoothing, thresholds or diagnoses: {@link DiagnosisEngine#sparklines}). A page of 100 targets
 * is one request instead of 100 analyses.
 *
 * <p>{@code GET /api/v1/sparklines?signal=e2e_p95,waiting,…&start=&end=&points=&target=ID…} →
 * {@code {"step":180,"timestamps":[ms…],"signals":[{"signal","unit"}…],"targets":[{"id",
 * "labels":{…},"values":{"e2e_p95":[…]|null,…}}…]}}:
 *
 * <ul>
 *   <li>{@code signal}: indicator keys as for {@code /api/v1/dashboard}, repeated or
 *       comma-separated, at most {@value #MAX_SIGNALS}
 *   <li>{@code points}: points per sparkline, {@value #MIN_POINTS}–{@value #MAX_POINTS}, default
 *       {@value #DEFAULT_POINTS}; the step is the smallest multiple of the analysis step (15 s by
 *       default) that fits them in the range, and steps lie on multiples of it
 *   <li>{@code target}: target ids (repeatable); absent, every target with samples in the range
 *   <li>values are in the indicator's unit, null where there is none; a target without series
 *       for an indicator has null instead of a list
 * </ul>
 *
 * <p>{@code start}/{@code end} default to the last 6 hours. Errors: 400 {@code bad_data} (unknown
 * target or signal, points out of range, bad time), 405 for non-GET, 503 when the store fails.
 */
public final class SparklinesApi {

  static final int DEFAULT_POINTS = 120;
  static final int MIN_POINTS = 2;
  static final int MAX_POINTS = 1_000;
  static final int MAX_SIGNALS = 10;

  private final DiagnosisEngine engine;
  private final Clock clock;

  /**
   * @param engine the analysis engine
   * @param clock the present, for default ranges
   */
  public SparklinesApi(DiagnosisEngine engine, Clock clock) {
    this.engine = engine;
    this.clock = clock;
  }

  /** @param sb where to bind the route (the server, or one tenant's route table) */
  public void bind(Routes sb) {
    sb.service("/api/v1/sparklines", JsonEndpoints.get("sparklines read", this::sparklines));
  }

  private Object sparklines(QueryParams p) throws StorageException {
    TimeParams t = TimeParams.parse(p.get("start"), p.get("end"), clock);
    List<Indicator> indicators = AnalysisApi.indicators(p.getAll("signal"));
    if (indicators.isEmpty()) {
      throw new IllegalArgumentException("missing parameter signal, e.g. e2e_p95,waiting");
    }
    if (indicators.size() > MAX_SIGNALS) {
      throw new IllegalArgumentException("parameter signal names " + indicators.size()
          + " indicators, over the limit of " + MAX_SIGNALS);
    }
    int points;
    try {
      points = Integer.parseInt(p.get("points", Integer.toString(DEFAULT_POINTS)));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("parameter points must be an integer from " + MIN_POINTS
          + " to " + MAX_POINTS + ", got " + p.get("points"));
    }
    if (points < MIN_POINTS || points > MAX_POINTS) {
      throw new IllegalArgumentException("parameter points must be from " + MIN_POINTS + " to "
          + MAX_POINTS + ", got " + points);
    }
    long base = engine.config().stepMs();
    // The smallest multiple of the analysis step that puts at most `points` steps in the range.
    long per = Math.max(1, Math.floorDiv(t.endMs() - t.startMs() + points - 2, points - 1));
    long step = Math.max(base, Math.floorDiv(per + base - 1, base) * base);
    long first = Math.floorDiv(t.startMs() + step - 1, step) * step;
    List<Target> targets;
    List<String> wanted = p.getAll("target");
    List<Target> all = engine.targets(t.startMs(), t.endMs());
    if (wanted.isEmpty()) {
      targets = all;
    } else {
      targets = new ArrayList<>();
      Set<String> seen = new HashSet<>();
      for (String id : wanted) {
        Target target = AnalysisApi.findTarget(all, id, t);
        if (seen.add(target.id())) {
          targets.add(target);
        }
      }
    }
    List<Long> ts = new ArrayList<>();
    for (long s = first; s <= t.endMs(); s += step) {
      ts.add(s);
    }
    List<Map<String, Object>> signals = new ArrayList<>();
    for (Indicator ind : indicators) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("signal", ind.key());
      m.put("unit", ind.unit());
      signals.add(m);
    }
    // Targets in parallel (the common pool and this thread): each is a few range queries.
    List<Map<String, Object>> rows;
    try {
      rows = targets.parallelStream().map(target -> {
        try {
          return row(target, indicators, first, t.endMs(), step);
        } catch (StorageException e) {
          throw new java.io.UncheckedIOException(new java.io.IOException(e));
        }
      }).toList();
    } catch (java.io.UncheckedIOException e) {
      throw (StorageException) e.getCause().getCause();
    }
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("step", step / 1000.0);
    data.put("timestamps", ts);
    data.put("signals", signals);
    data.put("targets", rows);
    return data;
  }

  private Map<String, Object> row(Target target, List<Indicator> indicators, long first,
      long endMs, long step) throws StorageException {
    Map<String, Object> values = new LinkedHashMap<>();
    if (first <= endMs) {
      Map<Indicator, double[]> v = engine.sparklines(target, indicators, first, endMs, step);
      for (Indicator ind : indicators) {
        double[] x = v.get(ind);
        values.put(ind.key(), x == null ? null : list(x));
      }
    } else {
      for (Indicator ind : indicators) {
        values.put(ind.key(), List.of());
      }
    }
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("id", target.id());
    row.put("labels", target.labels());
    row.put("values", values);
    return row;
  }

  private static List<Double> list(double[] v) {
    List<Double> out = new ArrayList<>(v.length);
    for (double x : v) {
      out.add(Double.isNaN(x) || Double.isInfinite(x) ? null : x);
    }
    return out;
  }
}
