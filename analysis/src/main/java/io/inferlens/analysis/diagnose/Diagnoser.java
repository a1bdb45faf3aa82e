package io.inferlens.analysis.diagnose;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Turns one target's {@link IndicatorFrame} into diagnoses in one pass: feeds its steps, oldest
 * first, through a {@link DiagnosisStream} (smoothing, baselines learned along time, layer by
 * layer flags, classification, periods that held for {@link AnalysisConfig#forMs()}), which is
 * also what the always-on evaluator keeps per target, so on-demand and always-on diagnoses agree.
 * The rules are those of {@link DiagnosisStream}.
 *
 * <p>Stateless and thread safe.
 */
public final class Diagnoser {

  private final AnalysisConfig config;

  /** @param config thresholds and time scales */
  public Diagnoser(AnalysisConfig config) {
    this.config = config;
  }

  /**
   * What {@link #diagnose} computed along the way, for the signals and baselines endpoints.
   *
   * @param smoothed smoothed indicators, same steps as the frame
   * @param thresholds per-step thresholds of baselined indicators (NaN where none)
   * @param baselines per-step learned baseline (P95 of normal history; NaN until enough history)
   * @param diagnoses diagnosed periods overlapping the reported range, oldest first
   * @param historySmoothed the coarse history's indicators smoothed, same points as the history
   *     frame given to {@link #diagnose(IndicatorFrame, IndicatorFrame, int, String, Map)};
   *     empty without one
   * @param stream the stream after the frame's last step, to continue with newer steps
   */
  public record Result(Map<Indicator, double[]> smoothed, Map<Indicator, double[]> thresholds,
      Map<Indicator, double[]> baselines, List<Diagnosis> diagnoses,
      Map<Indicator, double[]> historySmoothed, DiagnosisStream stream) {}

  /**
   * @param frame the target's raw indicators; steps before {@code reportFromStep} serve only as
   *     baseline history
   * @param reportFromStep first step whose diagnoses are reported, 0 ≤ it ≤ steps
   * @param targetId stable target id, for diagnosis ids
   * @param targetLabels the target's grouping labels, copied into each diagnosis
   * @return smoothed series, thresholds and diagnoses; a period still holding at the frame's last
   *     step is open ({@code end} null)
   */
  public Result diagnose(IndicatorFrame frame, int reportFromStep, String targetId,
      Map<String, String> targetLabels) {
    return diagnose(null, frame, reportFromStep, targetId, targetLabels);
  }

  /**
   * As {@link #diagnose(IndicatorFrame, int, String, Map)}, with older history at a coarser step
   * before the frame (the engine passes 5-minute rollup intervals, each value placed at its
   * interval's end, where a step-wise evaluation over the same window would read it).
   *
   * <p>History points only teach baselines, as {@link DiagnosisStream#history} describes: the
   * classification of a coarse point as a problem is decided per point instead of per step (so a
   * breach shorter than a point that does not lift the point's value stays in the baseline, and a
   * breached point's normal steps stay out). History has no monitoring gaps: silence is missing
   * data.
   *
   * <p>A problem period that runs from the history into the frame's first step is reported
   * from the earliest point of the unbroken run of problem points that ends with the history's
   * last point (accurate to one history step); its cause, evidence and severity come from the
   * frame's steps alone.
   *
   * @param history indicators before the frame at a coarser step, or null (or no steps) for none;
   *     its step a whole multiple of the frame's, its last point at or before the frame's start
   * @param frame the target's raw indicators; steps before {@code reportFromStep} serve only as
   *     baseline history
   * @param reportFromStep first step whose diagnoses are reported, 0 ≤ it ≤ steps
   * @param targetId stable target id, for diagnosis ids
   * @param targetLabels the target's grouping labels, copied into each diagnosis
   * @return smoothed series, thresholds and diagnoses; thresholds and baselines for the frame's
   *     steps only
   * @throws IllegalArgumentException if the history's step is not a whole multiple of the
   *     frame's, or its last point is after the frame's start
   */
  public Result diagnose(IndicatorFrame history, IndicatorFrame frame, int reportFromStep,
      String targetId, Map<String, String> targetLabels) {
    int hn = history == null ? 0 : history.steps();
    if (hn > 0 && (history.stepMs() % frame.stepMs() != 0
        || history.timeMs(hn - 1) > frame.startMs())) {
      throw new IllegalArgumentException("history of " + hn + " points every "
          + history.stepMs() + " ms ending at " + history.timeMs(hn - 1)
          + " ms does not fit before a frame of " + frame.stepMs() + " ms steps starting at "
          + frame.startMs() + " ms");
    }
    int n = frame.steps();
    Map<Indicator, String> queries = new EnumMap<>(Indicator.class);
    for (Indicator ind : frame.all().keySet()) {
      if (frame.query(ind) != null) {
        queries.put(ind, frame.query(ind));
      }
    }
    DiagnosisStream stream = new DiagnosisStream(config, frame.stepMs(), targetId, targetLabels,
        frame.all().keySet(), queries);
    stream.reportFrom(reportFromStep >= n ? Long.MAX_VALUE : frame.timeMs(reportFromStep));
    double[] raw = new double[Indicator.values().length];
    Map<Indicator, double[]> past = new EnumMap<>(Indicator.class);
    if (hn > 0) {
      for (Indicator ind : history.all().keySet()) {
        past.put(ind, nan(hn));
      }
      for (int p = 0; p < hn; p++) {
        fill(raw, history, p);
        stream.history(history.timeMs(p), history.stepMs(), raw);
        for (Map.Entry<Indicator, double[]> e : past.entrySet()) {
          e.getValue()[p] = stream.historySmoothed()[e.getKey().ordinal()];
        }
      }
    }
    Map<Indicator, double[]> smooth = new EnumMap<>(Indicator.class);
    for (Indicator ind : frame.all().keySet()) {
      smooth.put(ind, nan(n));
    }
    Map<Indicator, double[]> thresholds = new EnumMap<>(Indicator.class);
    Map<Indicator, double[]> baselines = new EnumMap<>(Indicator.class);
    for (Indicator ind : DiagnosisStream.BASELINED) {
      if (smooth.containsKey(ind)) {
        thresholds.put(ind, nan(n));
        baselines.put(ind, nan(n));
      }
    }
    List<Diagnosis> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      fill(raw, frame, i);
      stream.step(frame.timeMs(i), raw, frame.isGap(i));
      for (Map.Entry<Indicator, double[]> e : smooth.entrySet()) {
        e.getValue()[i] = stream.smoothed(e.getKey());
      }
      for (Map.Entry<Indicator, double[]> e : thresholds.entrySet()) {
        e.getValue()[i] = stream.threshold(e.getKey());
        baselines.get(e.getKey())[i] = stream.baseline(e.getKey());
      }
      if (i % 4096 == 4095) {
        out.addAll(stream.drainClosed());
      }
    }
    out.addAll(stream.drainClosed());
    out.addAll(stream.open());
    out.sort((a, b) -> Long.compare(a.startMs(), b.startMs()));
    return new Result(smooth, thresholds, baselines, out, past, stream);
  }

  private static void fill(double[] raw, IndicatorFrame f, int i) {
    Arrays.fill(raw, Double.NaN);
    for (Map.Entry<Indicator, double[]> e : f.all().entrySet()) {
      raw[e.getKey().ordinal()] = e.getValue()[i];
    }
  }

  private static double[] nan(int n) {
    double[] a = new double[n];
    Arrays.fill(a, Double.NaN);
    return a;
  }

  /**
   * @param ms a duration in milliseconds
   * @return Prometheus duration text such as {@code 5m}, {@code 30s}, {@code 1h}
   */
  public static String duration(long ms) {
    if (ms % 3_600_000 == 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
