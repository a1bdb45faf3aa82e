package io.inferlens.analysis.diagnose;

import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.target.ResolvedSignal;
import io.inferlens.storage.Resolution;
import io.inferlens.storage.StorageException;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * A target's baseline history read from the store's 5-minute rollups ({@link RollupEvaluator})
 * instead of raw samples: the part of the baseline lookback before the range
 * {@link DiagnosisEngine#analyze} evaluates step by step. 14 days are 4,032 intervals per
 * indicator instead of 80,640 steps of 15 s, each step reading a rate window of raw samples.
 *
 * <p>Each interval's value is placed at the interval's end: a latency quantile over the
 * interval's bucket increases (the rate window's worth of intervals when it is longer, see
 * {@link #applies}) is what a step-wise {@code histogram_quantile} over a 5-minute
 * {@code rate} reads at that time, except that rollups do not extrapolate (which scales every
 * bucket of a histogram alike, so leaves quantiles as they are) and include the rise from the
 * previous interval's last sample (one scrape more of the window). The upstream backlog is the
 * interval's last value (the instant value at its end).
 *
 * <p>Stateless; thread safe as the store.
 */
final class RollupHistory {

  /** The rollups read: the finest kept, so one point stands for twenty 15 s steps. */
  static final Resolution RESOLUTION = Resolution.FIVE_MINUTES;

  /**
   * What the history carries: the baselined indicators (latency P95s and token lengths), the
   * upstream backlog (a rising backlog keeps a point out of the baselines) and the request rate
   * (version comparisons at comparable load read the whole lookback).
   */
  static final Set<Indicator> INDICATORS = EnumSet.of(Indicator.TTFT_P95, Indicator.TPOT_P95,
      Indicator.E2E_P95, Indicator.QUEUE_TIME_P95, Indicator.PROMPT_TOKENS,
      Indicator.GENERATION_TOKENS, Indicator.UPSTREAM_BACKLOG, Indicator.REQUEST_RATE);

  private RollupHistory() {}

  /**
   * Whether rollups can stand in for raw history under a configuration: the rate window must be
   * a whole number of 5-minute intervals (else the rollup signal is a different one: a 10 s
   * window's quantile varies far more than a 5 m one's, so its P95 would be underestimated) and
   * the step must divide 5 minutes (so each interval stands for a whole number of steps).
   *
   * @param config the analysis configuration
   * @param stepMs the evaluation step, milliseconds, &gt; 0
   * @return true when {@link #evaluate} may be used
   */
  static boolean applies(AnalysisConfig config, long stepMs) {
    long iv = RESOLUTION.intervalMs();
    return config.rateWindowMs() % iv == 0 && iv % stepMs == 0;
  }

  /**
   * @param rollups reads the rollups
   * @param signals the target's resolved signals; indicators of missing ones stay absent
   * @param config rate window (intervals per window = rate window / 5 min)
   * @param fromMs history start, milliseconds: the first interval is the one holding it
   * @param toMs history end, milliseconds, a multiple of 5 minutes: the last interval ends here
   * @return one point per interval at its end time ({@code stepMs} 5 minutes), NaN where an
   *     interval has no data; null when no whole interval lies in {@code [fromMs, toMs]}
   * @throws IllegalArgumentException if toMs is not a multiple of 5 minutes
   * @throws StorageException if the store fails
   */
  static IndicatorFrame evaluate(RollupEvaluator rollups, Map<Signal, ResolvedSignal> signals,
      AnalysisConfig config, long fromMs, long toMs) throws StorageException {
    long iv = RESOLUTION.intervalMs();
    if (Math.floorMod(toMs, iv) != 0) {
      throw new IllegalArgumentException("history end " + toMs + " ms is not a multiple of "
          + iv + " ms");
    }
    long firstStart = Math.floorDiv(fromMs, iv) * iv;
    long lastStart = toMs - iv;
    if (lastStart < firstStart) {
      return null;
    }
    int steps = (int) ((lastStart - firstStart) / iv) + 1;
    IndicatorFrame frame = new IndicatorFrame(firstStart + iv, iv, steps);
    int windowIntervals = (int) (config.rateWindowMs() / iv);
    for (Map.Entry<Signal, ResolvedSignal> e : signals.entrySet()) {
      for (Indicator ind : IndicatorEvaluator.indicators(e.getKey())) {
        if (!INDICATORS.contains(ind)) {
          continue;
        }
        RollupEvaluator.IntervalValues v = rollups.evaluate(e.getValue(), ind, firstStart,
            lastStart, RESOLUTION, windowIntervals, RollupEvaluator.GaugeReading.LAST);
        double[] values = new double[steps];
        Arrays.fill(values, Double.NaN);
        for (int k = 0; k < v.startsMs().length; k++) {
          values[(int) ((v.startsMs()[k] - firstStart) / iv)] = v.values()[k];
        }
        frame.put(ind, values);
      }
    }
    return frame;
  }
}
