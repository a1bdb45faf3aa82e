package io.inferlens.storage.chunk;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A Java port of the value evolution of the benchmark harness's gen_workload.py ({@code
 * Instance.step}; docs/BENCHMARKS.md, "The harness"), so that the chunk cost bound test runs
 * without Python or a data set. Same
 * series (per instance: 6 vLLM histograms with 15-18 buckets + {@code +Inf}, {@code _sum}, {@code
 * _count}; 7 gauges; the info metric; 7 counters; 17 DCGM fields x 4 GPUs = 200 series), same
 * formulas, 15 s scrapes with a per-target phase and 15 % of scrapes off the grid by up to ±25 ms.
 * The random streams differ from Python's (SplittableRandom instead of Mersenne Twister, and
 * Python's {@code round} half-even done with {@link Math#rint}), so the figures are close to, not
 * equal to, those of the real data sets; {@link ChunkCostReport} on a dump of the real streams is
 * the reference.
 */
public final class BenchWorkload {

  public static final int SERIES_PER_INSTANCE = 200;
  private static final int GPUS = 4;
  private static final double[] TTFT_B = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25,
      0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0};
  private static final double[] TPOT_B = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
      0.75, 1.0, 2.5, 5.0, 7.5};
  private static final double[] E2E_B = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
      30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0};
  private static final double[] TOK_B = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
      10000, 20000, 50000, 100000};

  /** name, buckets, mu, sigma, observations per request ("req") or per token ("tok"). */
  private record Hist(String name, double[] buckets, double mu, double sigma, boolean perToken) {}

  private static final Hist[] HISTS = {
    new Hist("ttft", TTFT_B, Math.log(0.35), 0.9, false),
    new Hist("tpot", TPOT_B, Math.log(0.045), 0.35, true),
    new Hist("e2e", E2E_B, Math.log(9.0), 0.8, false),
    new Hist("queue", E2E_B, Math.log(0.4), 1.3, false),
    new Hist("prompt_tokens", TOK_B, Math.log(900.0), 1.0, false),
    new Hist("generation_tokens", TOK_B, Math.log(220.0), 0.9, false),
  };

  private BenchWorkload() {}

  /**
   * @param instances number of 200-series instances
   * @param samples samples per series (15 s apart)
   * @param seed fixed seed
   */
  public static ChunkCostReport.Dataset generate(int instances, int samples, long seed) {
    List<String> kinds = new ArrayList<>();
    List<long[]> ts = new ArrayList<>();
    List<long[]> vs = new ArrayList<>();
    SplittableRandom jitter = new SplittableRandom(seed + 7);
    long start = 1_796_000_000_000L;
    for (int idx = 0; idx < instances; idx++) {
      Instance inst = new Instance(new SplittableRandom(seed * 1_000_003 + idx));
      long[][] v = new long[SERIES_PER_INSTANCE][samples];
      long[] tv = new long[samples];
      long[] tg = new long[samples];
      long offV = inst.rng.nextInt(15_000);
      long offG = inst.rng.nextInt(15_000);
      for (int step = 0; step < samples; step++) {
        inst.step();
        for (int s = 0; s < SERIES_PER_INSTANCE; s++) {
          v[s][step] = Double.doubleToRawLongBits(inst.values[s]);
        }
        long grid = start + step * 15_000L;
        tv[step] = grid + offV + (jitter.nextDouble() < 0.15 ? jitter.nextInt(-25, 26) : 0);
        tg[step] = grid + offG + (jitter.nextDouble() < 0.15 ? jitter.nextInt(-25, 26) : 0);
      }
      for (int s = 0; s < SERIES_PER_INSTANCE; s++) {
        kinds.add(kindOf(s));
        ts.add(s < Instance.N_VLLM ? tv : tg);
        vs.add(v[s]);
      }
    }
    return new ChunkCostReport.Dataset(
        "java-port-" + instances * SERIES_PER_INSTANCE + "-" + samples, kinds, ts, vs);
  }

  /** gorilla_cost.py's kind names, by series index within an instance. */
  static String kindOf(int s) {
    int i = 0;
    for (Hist h : HISTS) {
      int buckets = h.buckets().length + 1;
      if (s < i + buckets) {
        return "vllm histogram _bucket";
      }
      if (s == i + buckets) {
        return "vllm histogram _sum";
      }
      if (s == i + buckets + 1) {
        return "vllm histogram _count";
      }
      i += buckets + 2;
    }
    if (s < i + 7) {
      return "gauge (vllm/process)";
    }
    if (s == i + 7) {
      return "info (constant 1)";
    }
    if (s < Instance.N_VLLM) {
      return "counter (vllm/process)";
    }
    int field = (s - Instance.N_VLLM) % 17;
    return field == 5 || field == 6 ? "dcgm counter" : "dcgm gauge";
  }

  private static final class Instance {
    static final int N_VLLM = 132;
    final SplittableRandom rng;
    final double[] values = new double[SERIES_PER_INSTANCE];
    final int numBlocks;
    final double baseRate;
    double rateMult = 1;
    final long[][] histCounts = new long[HISTS.length][];
    final double[] histSum = new double[HISTS.length];
    long promptTok;
    long genTok;
    long preempt;
    final long[] success = new long[3];
    double cpuS;
    long rss;
    long running;
    long waiting;
    double hits;
    double queries;
    final long[] temp = new long[GPUS];
    final long[] mtemp = new long[GPUS];
    final long[] energy = new long[GPUS];
    final long[] fbUsed = new long[GPUS];

    Instance(SplittableRandom rng) {
      this.rng = rng;
      numBlocks = new int[] {14592, 16384, 20736, 24576}[rng.nextInt(4)];
      baseRate = uniform(0.3, 2.0);
      for (int h = 0; h < HISTS.length; h++) {
        histCounts[h] = new long[HISTS[h].buckets().length + 1];
      }
      cpuS = uniform(100, 5000);
      rss = rng.nextLong(6_000_000_000L, 9_000_000_000L);
      hits = uniform(1e5, 1e6);
      queries = hits / uniform(0.2, 0.6);
      for (int g = 0; g < GPUS; g++) {
        temp[g] = rng.nextInt(38, 60);
        mtemp[g] = rng.nextInt(40, 62);
        energy[g] = rng.nextLong(1_000_000_000L, 100_000_000_000L);
        fbUsed[g] = rng.nextInt(72000, 74000);
      }
    }

    private double uniform(double a, double b) {
      return a + (b - a) * rng.nextDouble();
    }

    private double gauss(double mu, double sigma) {
      return mu + sigma * rng.nextGaussian();
    }

    private static double erfCdf(double x, double mu, double sigma) {
      return 0.5 * (1.0 + erf((Math.log(x) - mu) / (sigma * Math.sqrt(2))));
    }

    /** Abramowitz-Stegun 7.1.26, |error| < 1.5e-7: enough for bucket shares. */
    private static double erf(double x) {
      double t = 1.0 / (1.0 + 0.3275911 * Math.abs(x));
      double y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
          + 0.254829592) * t * Math.exp(-x * x);
      return x >= 0 ? y : -y;
    }

    void step() {
      double[] v = values;
      rateMult = Math.min(3.0, Math.max(0.2, rateMult * Math.exp(gauss(0, 0.05))));
      double lam = baseRate * rateMult * 15.0;
      long n = Math.max(0, (long) Math.rint(gauss(lam, Math.sqrt(lam))));
      long prompt = 0;
      long gen = 0;
      for (long r = 0; r < n; r++) {
        prompt += (long) Math.exp(gauss(Math.log(900), 1.0)) + 1;
      }
      for (long r = 0; r < n; r++) {
        gen += (long) Math.exp(gauss(Math.log(220), 0.9)) + 1;
      }
      int i = 0;
      for (int h = 0; h < HISTS.length; h++) {
        Hist hist = HISTS[h];
        long[] counts = histCounts[h];
        boolean tokens = hist.name().contains("tokens");
        double muT = hist.mu() + gauss(0, 0.08)
            + 0.3 * (rateMult - 1.0) * (hist.perToken() || !tokens ? 1 : 0);
        long obs = hist.perToken() ? gen : n;
        if (obs <= 32) {
          double s = 0;
          for (long o = 0; o < obs; o++) {
            double x = Math.exp(gauss(muT, hist.sigma()));
            if (tokens) {
              x = (double) ((long) x + 1);
            }
            s += x;
            for (int b = 0; b < hist.buckets().length; b++) {
              if (x <= hist.buckets()[b]) {
                counts[b]++;
              }
            }
          }
          counts[counts.length - 1] += obs;
          histSum[h] += s;
        } else {
          for (int b = 0; b < hist.buckets().length; b++) {
            counts[b] += (long) Math.rint(obs * erfCdf(hist.buckets()[b], muT, hist.sigma()));
          }
          counts[counts.length - 1] += obs;
          double meanObs = Math.exp(muT + hist.sigma() * hist.sigma() / 2);
          histSum[h] += obs * meanObs * (1 + gauss(0, 0.02));
        }
        for (long c : counts) {
          v[i++] = c;
        }
        v[i] = histSum[h];
        v[i + 1] = counts[counts.length - 1];
        i += 2;
      }
      double targetRunning = lam / 15.0 * 9.0;
      running = Math.max(0, Math.min(256,
          (long) Math.rint(running + 0.3 * (targetRunning - running) + gauss(0, 2))));
      waiting = Math.max(0, (long) Math.rint(
          waiting * 0.5 + (rateMult > 1.8 ? -Math.log(1 - rng.nextDouble()) * 8 : 0)));
      long used = Math.min(numBlocks,
          (long) (numBlocks * Math.min(0.98, running / 200.0 + uniform(0.0, 0.05))));
      queries += n * 60;
      hits += n * 60 * uniform(0.2, 0.6);
      rss += rng.nextLong(-4096 * 64, 4096 * 80);
      v[i] = running;
      v[i + 1] = waiting;
      v[i + 2] = 0.0;
      v[i + 3] = (double) used / numBlocks;
      v[i + 4] = 0.0;
      v[i + 5] = hits / queries;
      v[i + 6] = rss;
      v[i + 7] = 1.0;
      i += 8;
      promptTok += prompt;
      genTok += gen;
      if (rng.nextDouble() < 0.02 * rateMult) {
        preempt += rng.nextInt(1, 4);
      }
      long ab = 0;
      for (long r = 0; r < n; r++) {
        ab += rng.nextDouble() < 0.02 ? 1 : 0;
      }
      long ln = 0;
      for (long r = 0; r < n - ab; r++) {
        ln += rng.nextDouble() < 0.15 ? 1 : 0;
      }
      success[0] += n - ab - ln;
      success[1] += ln;
      success[2] += ab;
      cpuS = Math.rint((cpuS + 15 * uniform(1.05, 1.3)) * 100) / 100;
      v[i] = promptTok;
      v[i + 1] = genTok;
      v[i + 2] = preempt;
      v[i + 3] = success[0];
      v[i + 4] = success[1];
      v[i + 5] = success[2];
      v[i + 6] = cpuS;
      i += 7;
      double busy = Math.min(1.0, running / 64.0);
      for (int g = 0; g < GPUS; g++) {
        long util = Math.max(0, Math.min(100, (long) Math.rint(100 * busy + gauss(0, 6))));
        double power = Math.rint(Math.min(700.0, Math.max(70.0, 110 + 560 * busy + gauss(0, 25)))
            * 1000) / 1000;
        int[] step = {-1, 0, 0, 0, 1};
        temp[g] = Math.max(30, Math.min(85, temp[g] + step[rng.nextInt(5)]
            + (busy > 0.7 && rng.nextDouble() < 0.2 ? 1 : 0)));
        mtemp[g] = Math.max(30, Math.min(90, mtemp[g] + step[rng.nextInt(5)]));
        energy[g] += (long) (power * 15 * 1000);
        if (rng.nextDouble() < 0.01) {
          fbUsed[g] += rng.nextInt(-64, 65);
        }
        double sm = rng.nextDouble() < 0.9 ? 1980 : new double[] {1755, 1830, 1905}[rng.nextInt(3)];
        double gr = Math.min(1.0, Math.max(0.0, busy * 0.95 + gauss(0, 0.03)));
        v[i] = sm;
        v[i + 1] = 2619.0;
        v[i + 2] = mtemp[g];
        v[i + 3] = temp[g];
        v[i + 4] = power;
        v[i + 5] = energy[g];
        v[i + 6] = 0.0;
        v[i + 7] = util;
        v[i + 8] = Math.max(0, Math.min(100, (long) (util * 0.45 + gauss(0, 3))));
        v[i + 9] = 0.0;
        v[i + 10] = 0.0;
        v[i + 11] = 0.0;
        v[i + 12] = 81559 - fbUsed[g];
        v[i + 13] = fbUsed[g];
        v[i + 14] = gr;
        v[i + 15] = Math.min(1.0, Math.max(0.0, gr * 0.42 + gauss(0, 0.02)));
        v[i + 16] = Math.min(1.0, Math.max(0.0, gr * 0.6 + gauss(0, 0.03)));
        i += 17;
      }
      if (i != SERIES_PER_INSTANCE) {
        throw new IllegalStateException("bug: " + i + " series filled");
      }
    }
  }
}
