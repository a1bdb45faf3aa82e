package io.inferlens.api;

import com.linecorp.armeria.common.QueryParams;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.diagnose.Indicator;
import io.inferlens.analysis.diagnose.RollupEvaluator;
import io.inferlens.analysis.target.Target;
import io.inferlens.storage.Resolution;
import io.inferlens.storage.StorageException;
import java.time.Clock;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Long-range latency trends for the web UI's Trends view, JSON in the Prometheus envelope.
 *
 * <ul>
 *   <li>{@code GET /api/v1/trends?target=ID&signal=e2e_p95[,ttft_p95…]&start=&end=} → for each
 *       requested indicator ({@code signal} may repeat or be comma-separated; default
 *       {@code e2e_p95,ttft_p95,tpot_p95}):
 *       <ul>
 *         <li>{@code days}: one entry per UTC day of the range that has data,
 *             {@code {"day":"2026-11-02","p95":3.1,"points":24}} — the 95th percentile (linear
 *             interpolation between order statistics) of the indicator's rollup-interval values
 *             that day, in the indicator's {@code unit}; {@code points} is how many intervals
 *             had a value
 *         <li>{@code weekOverWeek}: {@code {"thisWeek":…,"lastWeek":…,"change":…}} — the median of
 *             the daily P95 over the last 7 UTC days of the range (ending with {@code end}'s day)
 *             and over the 7 days before; {@code change} = thisWeek / lastWeek − 1 (0.12 = 12 %
 *             slower); any of them null when a week has no data
 *       </ul>
 *       plus {@code step} (seconds) and {@code resolution}: {@code "1h"} for ranges over 7 days,
 *       else {@code "5m"} ({@code DiagnosisEngine.trendResolution}). Each value comes from the
 *       store's rollups of that resolution ({@code RollupEvaluator}): a latency quantile is
 *       {@code histogram_quantile} over the buckets' increases in that interval, so the day's
 *       P95 is taken over 24 hourly (or 288 five-minute) non-overlapping windows. Recent
 *       intervals whose rollups are not written yet are computed from raw samples by the store.
 *   <li>{@code GET /api/v1/trends/versions?instance=HOST:PORT&start=&end=} → the model versions an
 *       instance served in the range (one target per {@code model_name}), oldest first, each with
 *       {@code first}/{@code last} (RFC 3339, first and last step with data) and the median over
 *       its steps of {@code e2e_p95}, {@code ttft_p95}, {@code tpot_p95} (seconds) and
 *       {@code request_rate} (1/s), null where the target has no such series.
 * </ul>
 *
 * <p>{@code start}/{@code end}: RFC 3339 or Unix seconds; {@code end} defaults to now and
 * {@code start} to 30 days before {@code end} (the default retention). {@code /trends} reads
 * rollups, so its cost grows with the number of rollup intervals, and ranges beyond the raw
 * retention still answer (5-minute rollups are kept 90 days by default). {@code /trends/versions}
 * uses the analysis engine at its own step, from its cache where warm.
 *
 * <p>Errors: 400 {@code bad_data} for a missing or unknown target/instance, an unknown signal or a
 * malformed time; 405 for methods other than GET; 503 when the store fails.
 */
public final class TrendsApi {

  /**
   * Most evaluation steps of a {@code /trends/versions} request (the daily trend reads rollups and
   * has no step of its own); a longer range gets a coarser step. 400,000 steps keep the analysis
   * step (15 s) for ranges up to ~69 days, so versions read the engine's cached chunks (the same
   * ones diagnoses and the warm-up fill) instead of evaluating raw samples at a step of their own.
   */
  static final int MAX_POINTS = DiagnosisEngine.MAX_STEPS;
  /** Default range: 30 days, in milliseconds. */
  static final long DEFAULT_RANGE_MS = 30 * 86_400_000L;
  static final long DAY_MS = 86_400_000L;
  static final List<Indicator> DEFAULT_SIGNALS =
      List.of(Indicator.E2E_P95, Indicator.TTFT_P95, Indicator.TPOT_P95);

  private final DiagnosisEngine engine;
  private final Clock clock;

  /**
   * @param engine the analysis engine
   * @param clock the present, for default ranges
   */
  public TrendsApi(DiagnosisEngine engine, Clock clock) {
    this.engine = engine;
    this.clock = clock;
  }

  /** @param sb where to bind the routes (the server, or one tenant's route table) */
  public void bind(Routes sb) {
    sb.service("/api/v1/trends", JsonEndpoints.get("trend read", this::trends));
    sb.service("/api/v1/trends/versions", JsonEndpoints.get("trend read", this::versions));
  }



  private TimeParams range(QueryParams p) {
    String start = p.get("start");
    String end = p.get("end");
    long endMs = end == null || end.isEmpty() ? clock.millis() : TimeParams.parseTimeMs("end", end);
    long startMs = start == null || start.isEmpty() ? endMs - DEFAULT_RANGE_MS
        : TimeParams.parseTimeMs("start", start);
    if (endMs < startMs) {
      throw new IllegalArgumentException(
          "parameter end (" + endMs + " ms) is before start (" + startMs + " ms)");
    }
    return new TimeParams(startMs, endMs);
  }

  /**
   * The analysis step of {@code /trends/versions}, widened to a multiple of itself keeping the
   * range at most {@link #MAX_POINTS} steps, milliseconds.
   */
  long stepFor(TimeParams t) {
    long base = engine.config().stepMs();
    long span = t.endMs() - t.startMs();
    long k = Math.max(1, (span / MAX_POINTS + base - 1) / base);
    while (span / (k * base) > MAX_POINTS) {
      k++;
    }
    return k * base;
  }

  private Object trends(QueryParams p) throws StorageException {
    TimeParams t = range(p);
    long lookup = System.nanoTime();
    Target target = AnalysisApi.findTarget(engine, p.get("target"), t);
    long lookupMs = (System.nanoTime() - lookup) / 1_000_000;
    List<Indicator> indicators = AnalysisApi.indicators(p.getAll("signal"));
    if (indicators.isEmpty()) {
      indicators.addAll(DEFAULT_SIGNALS);
    }
    long began = System.nanoTime();
    LocalDate endDay = LocalDate.ofInstant(Instant.ofEpochMilli(t.endMs()), ZoneOffset.UTC);
    List<Map<String, Object>> out = new ArrayList<>();
    Resolution res = DiagnosisEngine.trendResolution(t.endMs() - t.startMs());
    Map<Indicator, RollupEvaluator.IntervalValues> values = engine.trend(target, indicators,
        t.startMs(), t.endMs(), res);
    for (Indicator ind : indicators) {
      RollupEvaluator.IntervalValues v = values.get(ind);
      TreeMap<LocalDate, List<Double>> byDay = new TreeMap<>();
      for (int i = 0; i < v.startsMs().length; i++) {
        double x = v.values()[i];
        if (!Double.isNaN(x) && !Double.isInfinite(x)) {
          LocalDate day = LocalDate.ofInstant(Instant.ofEpochMilli(v.startsMs()[i]),
              ZoneOffset.UTC);
          byDay.computeIfAbsent(day, d -> new ArrayList<>()).add(x);
        }
      }
      List<Map<String, Object>> days = new ArrayList<>();
      List<Double> thisWeek = new ArrayList<>();
      List<Double> lastWeek = new ArrayList<>();
      for (Map.Entry<LocalDate, List<Double>> e : byDay.entrySet()) {
        double p95 = quantile(e.getValue(), 0.95);
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("day", e.getKey().toString());
        d.put("p95", p95);
        d.put("points", e.getValue().size());
        days.add(d);
        long ago = endDay.toEpochDay() - e.getKey().toEpochDay();
        if (ago < 7) {
          thisWeek.add(p95);
        } else if (ago < 14) {
          lastWeek.add(p95);
        }
      }
      Double tw = thisWeek.isEmpty() ? null : quantile(thisWeek, 0.5);
      Double lw = lastWeek.isEmpty() ? null : quantile(lastWeek, 0.5);
      Map<String, Object> wow = new LinkedHashMap<>();
      wow.put("thisWeek", tw);
      wow.put("lastWeek", lw);
      wow.put("change", tw == null || lw == null || lw == 0 ? null : tw / lw - 1);
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("signal", ind.key());
      m.put("unit", ind.unit());
      m.put("days", days);
      m.put("weekOverWeek", wow);
      out.add(m);
    }
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("target", target.labels());
    data.put("id", target.id());
    data.put("start", Instant.ofEpochMilli(t.startMs()).toString());
    data.put("end", Instant.ofEpochMilli(t.endMs()).toString());
    data.put("step", res.intervalMs() / 1000.0);
    data.put("resolution", res == Resolution.ONE_HOUR ? "1h" : "5m");
    data.put("targetsMs", lookupMs);
    data.put("analyzeMs", (System.nanoTime() - began) / 1_000_000);
    data.put("signals", out);
    return data;
  }

  private Object versions(QueryParams p) throws StorageException {
    TimeParams t = range(p);
    String instance = p.get("instance");
    if (instance == null || instance.isEmpty()) {
      throw new IllegalArgumentException("missing parameter instance (host:port of a target)");
    }
    long step = stepFor(t);
    List<Map<String, Object>> out = new ArrayList<>();
    for (Target target : engine.targets(t.startMs(), t.endMs())) {
      if (!target.get("instance").equals(instance)) {
        continue;
      }
      DiagnosisEngine.TargetAnalysis a = engine.analyze(target, t.startMs(), t.endMs(), step);
      int from = a.reportFromStep();
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("model_name", target.get("model_name"));
      m.put("id", target.id());
      m.put("target", target.labels());
      long first = Long.MAX_VALUE;
      long last = Long.MIN_VALUE;
      for (Indicator ind : List.of(Indicator.E2E_P95, Indicator.TTFT_P95, Indicator.TPOT_P95,
          Indicator.REQUEST_RATE)) {
        double[] v = a.frame().get(ind);
        List<Double> vals = new ArrayList<>();
        if (v != null) {
          for (int i = from; i < a.frame().steps(); i++) {
            if (!Double.isNaN(v[i]) && !Double.isInfinite(v[i])) {
              vals.add(v[i]);
              first = Math.min(first, a.frame().timeMs(i));
              last = Math.max(last, a.frame().timeMs(i));
            }
          }
        }
        m.put(ind.key(), vals.isEmpty() ? null : quantile(vals, 0.5));
      }
      m.put("first", first == Long.MAX_VALUE ? null : Instant.ofEpochMilli(first).toString());
      m.put("last", last == Long.MIN_VALUE ? null : Instant.ofEpochMilli(last).toString());
      out.add(m);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("no target with instance \"" + instance
          + "\" has samples between " + Instant.ofEpochMilli(t.startMs()) + " and "
          + Instant.ofEpochMilli(t.endMs()));
    }
    out.sort((x, y) -> String.valueOf(x.get("first")).compareTo(String.valueOf(y.get("first"))));
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("instance", instance);
    data.put("start", Instant.ofEpochMilli(t.startMs()).toString());
    data.put("end", Instant.ofEpochMilli(t.endMs()).toString());
    data.put("step", step / 1000.0);
    data.put("versions", out);
    return data;
  }

  /**
   * @param values at least one finite value
   * @param q quantile in [0, 1]
   * @return the q-quantile with linear interpolation between order statistics (as numpy's default)
   */
  static double quantile(List<Double> values, double q) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
    Arrays.sort(v);
    double pos = q * (v.length - 1);
    int lo = (int) Math.floor(pos);
    int hi = Math.min(v.length - 1, lo + 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - lo);
  }


}
