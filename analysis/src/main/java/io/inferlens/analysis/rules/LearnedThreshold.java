package io.inferlens.analysis.rules;

import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.analysis.diagnose.Diagnoser;
import io.inferlens.analysis.diagnose.Indicator;
import java.util.EnumMap;
import java.util.Map;

/**
 * The threshold an exported rule compares an indicator with: today's, i.e. the newest the
 * analysis computed (docs/DESIGN.md section 3, "threshold"): an explicit SLO ({@code --slo})
 * when configured, else the learned baseline (P95 of the smoothed indicator over normal history)
 * times the headroom (1.5, "normal P95 + 50 %"). Static defaults, which the analysis uses until
 * a baseline exists, are never exported: a rule should alert on what is abnormal for this
 * target, and a default is a guess.
 *
 * @param indicator the indicator
 * @param value the threshold, in the indicator's unit (seconds for latencies)
 * @param source where it comes from
 * @param baseline the learned baseline, in the indicator's unit, NaN when none was learned (an SLO
 *     may stand without one)
 */
public record LearnedThreshold(Indicator indicator, double value, Source source,
    double baseline) {

  /** Where a threshold comes from. */
  public enum Source {
    /** An explicit {@code --slo}. */
    SLO,
    /** The learned baseline times the headroom (or, for token lengths, the shift ratio). */
    BASELINE
  }

  /**
   * Today's thresholds of one target: for TTFT, TPOT/ITL and E2E P95 the SLO or
   * {@code thresholds} at the newest step with a learned baseline (headroom × baseline where
   * that step has no threshold); for queue time P95 the SLO only (its learned baseline is near
   * zero on a healthy engine, so the classifier counts it only against an SLO); for prompt and
   * generation length {@code workloadShiftRatio × baseline} (the classifier's workload-shift
   * test).
   *
   * @param result the target's analysis result, per-step {@code baselines} and {@code
   *     thresholds} by indicator
   * @param config the configuration the analysis ran with (SLOs, headroom, shift ratio)
   * @return thresholds by indicator, only where one exists; an indicator without baseline and
   *     without SLO is absent
   */
  public static Map<Indicator, LearnedThreshold> of(Diagnoser.Result result,
      AnalysisConfig config) {
    Map<Indicator, LearnedThreshold> out = new EnumMap<>(Indicator.class);
    for (Indicator ind : new Indicator[] {Indicator.TTFT_P95, Indicator.TPOT_P95,
        Indicator.E2E_P95, Indicator.QUEUE_TIME_P95, Indicator.PROMPT_TOKENS,
        Indicator.GENERATION_TOKENS}) {
      double[] base = result.baselines().get(ind);
      double[] thr = result.thresholds().get(ind);
      int i = newest(base);
      double baseline = i < 0 ? Double.NaN : base[i];
      Double slo = config.slos().get(ind);
      boolean tokens = ind == Indicator.PROMPT_TOKENS || ind == Indicator.GENERATION_TOKENS;
      if (slo != null && !tokens) {
        out.put(ind, new LearnedThreshold(ind, slo, Source.SLO, baseline));
      } else if (i >= 0 && ind != Indicator.QUEUE_TIME_P95) {
        double t = tokens ? config.workloadShiftRatio() * baseline
            : thr != null && !Double.isNaN(thr[i]) ? thr[i]
            : config.baselineHeadroom() * baseline;
        out.put(ind, new LearnedThreshold(ind, t, Source.BASELINE, baseline));
      }
    }
    return out;
  }

  /** @return the index of the newest non-NaN value, −1 when there is none */
  private static int newest(double[] v) {
    if (v == null) {
      return -1;
    }
    for (int i = v.length - 1; i >= 0; i--) {
      if (!Double.isNaN(v[i])) {
        return i;
      }
    }
    return -1;
  }
}
