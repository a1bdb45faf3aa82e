package io.inferlens.analysis.diagnose;

/**
 * A second model of a vLLM V0 engine under KV-cache pressure, independent of the simulator's
 * discrete-event one: a fluid model, per 15 s step, of a V0 engine that serves a steady arrival
 * rate and whose KV demand is raised past the cache's size (longer generations), as a user
 * measured it on vLLM 0.6 (KV 0.97–0.98, preemptions 0 → ~0.15/s, TPOT ×3–4, ITL P95
 * 0.05 → 0.26 s, waiting mostly 0).
 *
 * <p>Per step, with λ the arrival rate (requests/s), G the mean generation (tokens), P the mean
 * prompt (tokens), ITL the inter-token latency (s):
 *
 * <ul>
 *   <li>running requests by Little's law: {@code λ × G × ITL};
 *   <li>KV demand, as a share of the cache: {@code running × (P + G / 2) / capacity}; usage is
 *       the demand up to the fill a block allocator reaches (0.975, ±0.005 of jitter);
 *   <li>a demand {@code d > 1} evicts the share {@code 1 − 1/d} of the requests once each: V0's
 *       recompute preemption rate is {@code λ × (1 − 1/d)} (0 at {@code d ≤ 1}), seen through
 *       {@code rate(vllm:num_preemptions_total[5m])}, i.e. a 20-step moving mean;
 *   <li>ITL is taken as measured rather than derived: {@code itl0} (0.03 s) in the first hour,
 *       × {@code slowdown} once the change is complete (the user saw ×3–4); P95 = 1.6 × ITL;
 *   <li>waiting: V0 puts a preempted request back at the head of the queue and reschedules it as
 *       soon as blocks free, so the gauge reads 1 at one scrape in eight and 0 otherwise.
 * </ul>
 *
 * The demand ramps from {@code healthyDemand} to {@code pressureDemand} over the first 10
 * minutes of the second hour, by the generation length alone (request rate unchanged), so the
 * preemption rate per finished request is {@code 1 − 1/d} whatever λ is.
 */
final class V0KvTraffic {

  /** KV cache size, tokens: 16689 blocks of 16 (fixtures/vllm-0.6-v0.prom). */
  static final double CAPACITY_TOKENS = 16689 * 16;
  /** Mean prompt, tokens. */
  static final double PROMPT = 600;
  /** ITL of an idle engine, seconds. */
  static final double ITL0 = 0.03;

  private V0KvTraffic() {}

  /**
   * @param requestRate arrivals = finished requests per second, &gt; 0
   * @param healthyDemand KV demand / capacity in the first hour, e.g. 0.6
   * @param pressureDemand KV demand / capacity once the change is complete, e.g. 1.02
   * @param slowdown ITL once the change is complete / ITL before, e.g. 3.5
   * @param gpu whether a DCGM GPU utilisation series is joined (percent, below saturation)
   * @return two hours of 15 s steps, the change starting at the second hour
   */
  static IndicatorFrame frame(double requestRate, double healthyDemand, double pressureDemand,
      double slowdown, boolean gpu) {
    int steps = 2 * DiagnoserTest.HOUR;
    IndicatorFrame f = new IndicatorFrame(DiagnoserTest.T0, DiagnoserTest.STEP, steps);
    double[] kv = new double[steps];
    double[] preRaw = new double[steps];
    double[] pre = new double[steps];
    double[] itl = new double[steps];
    double[] ttft = new double[steps];
    double[] e2e = new double[steps];
    double[] running = new double[steps];
    double[] waiting = new double[steps];
    double[] rate = new double[steps];
    double[] gen = new double[steps];
    double[] prompt = new double[steps];
    double[] util = new double[steps];
    for (int i = 0; i < steps; i++) {
      double ramp = Math.max(0, Math.min(1, (i - DiagnoserTest.HOUR) / 40.0));
      double d = healthyDemand + (pressureDemand - healthyDemand) * ramp;
      double jitter = 0.005 * Math.sin(1.7 * i);
      double usage = Math.min(d, 0.975) + jitter;
      double evicted = d > 1 ? 1 - 1 / d : 0;
      preRaw[i] = requestRate * evicted;
      double t = ITL0 * (1 + (slowdown - 1) * ramp) * (1 + 0.03 * Math.sin(0.9 * i));
      // The generation length that gives demand d at this rate and ITL (Little's law).
      double g = solveGeneration(requestRate, t, d);
      kv[i] = usage;
      itl[i] = t;
      gen[i] = g;
      prompt[i] = PROMPT * (1 + 0.02 * Math.sin(1.3 * i));
      running[i] = requestRate * g * t;
      ttft[i] = 0.25 + PROMPT / 20_000 + 2 * evicted;
      e2e[i] = ttft[i] + 1.6 * g * t;
      waiting[i] = i % 8 == 3 && evicted > 0 ? 1 : 0;
      rate[i] = requestRate;
      util[i] = 70 + 10 * usage;
    }
    for (int i = 0; i < steps; i++) {
      double s = 0;
      int n = 0;
      for (int k = Math.max(0, i - 19); k <= i; k++) {
        s += preRaw[k];
        n++;
      }
      pre[i] = s / n;
    }
    f.put(Indicator.KV_CACHE_USAGE, kv);
    f.put(Indicator.PREEMPTIONS, pre);
    f.put(Indicator.TPOT_P95, scale(itl, 1.6));
    f.put(Indicator.TTFT_P95, ttft);
    f.put(Indicator.E2E_P95, e2e);
    f.put(Indicator.RUNNING, running);
    f.put(Indicator.WAITING, waiting);
    f.put(Indicator.REQUEST_RATE, rate);
    f.put(Indicator.GENERATION_TOKENS, gen);
    f.put(Indicator.PROMPT_TOKENS, prompt);
    if (gpu) {
      f.put(Indicator.GPU_UTIL, util);
    }
    return f;
  }

  /** G with {@code λ × G × itl × (P + G/2) = d × capacity}, the positive root. */
  private static double solveGeneration(double lambda, double itl, double d) {
    double a = lambda * itl / 2;
    double b = lambda * itl * PROMPT;
    double c = -d * CAPACITY_TOKENS;
    return (-b + Math.sqrt(b * b - 4 * a * c)) / (2 * a);
  }

  private static double[] scale(double[] v, double k) {
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i] * k;
    }
    return out;
  }
}
