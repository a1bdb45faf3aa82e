package io.inferlens.analysis.bench;

import io.inferlens.storage.AppendResult;
import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.TimeSeriesStore;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Generates the series one vLLM V1 target (engine 0) and its host's dcgm-exporter (2 GPUs) export,
 * scraped every 15 s, and appends them to a store the way remote write delivers them: batches of a
 * few thousand samples, in time order.
 *
 * <p>Series per target (145): vLLM gauges {@code num_requests_waiting}, {@code num_requests_running},
 * {@code kv_cache_usage_perc}; counters {@code num_preemptions_total},
 * {@code request_success_total} × 4 {@code finished_reason}, {@code prompt_tokens_total},
 * {@code generation_tokens_total}; histograms ({@code _bucket} with the bounds of the vLLM 0.13
 * fixture, {@code _sum}, {@code _count}) {@code time_to_first_token_seconds} (23 buckets),
 * {@code inter_token_latency_seconds} (20), {@code e2e_request_latency_seconds} (22),
 * {@code request_queue_time_seconds} (22), {@code request_prompt_tokens} and
 * {@code request_generation_tokens} (1-2-5 buckets up to 20,000 plus +Inf: 15 each); DCGM
 * {@code DCGM_FI_DEV_GPU_UTIL}, {@code DCGM_FI_DEV_FB_USED}, {@code DCGM_FI_DEV_FB_FREE} for
 * {@code gpu="0"} and {@code "1"}.
 *
 * <p>Values: a diurnal request rate (3 to 9 requests/s) with noise; latencies log-normal around
 * a median that follows the load; the histogram buckets are the cumulative counts of that
 * distribution (consistent: monotone in {@code le} and in time, {@code +Inf == _count}). During a
 * degraded period E2E latency, queue time and waiting requests rise sharply and the GPUs sit at
 * 99 %. Deterministic for a seed.
 */
public final class BenchData {

  /** Scrape interval, ms. */
  public static final long SCRAPE_MS = 15_000;
  /** Scrapes per append call per target: 20 × 145 = 2,900 samples. */
  static final int SCRAPES_PER_BATCH = 20;
  static final String MODEL = "Qwen/Qwen3-32B-FP8";

  static final double[] TTFT_LE = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5,
      0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0};
  static final double[] ITL_LE = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75,
      1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0};
  static final double[] REQUEST_LE = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0,
      30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
  static final double[] TOKENS_LE = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000,
      20000};
  static final String[] REASONS = {"stop", "length", "abort", "error"};
  static final double[] REASON_SHARE = {0.95, 0.045, 0.005, 0.0};
  /** GPU memory, MiB (H100 80 GB). */
  static final double FB_TOTAL_MIB = 81_559;

  /** A degraded period [fromMs, toMs). */
  public record Degraded(long fromMs, long toMs) {
    boolean contains(long t) {
      return t >= fromMs && t < toMs;
    }
  }

  /** What was written. */
  public record Stats(int targets, long series, long samples, long appendCalls, long nanos) {
    /** @return samples appended per second of wall time (generation included) */
    public double samplesPerSecond() {
      return samples / (nanos / 1e9);
    }

    @Override
    public String toString() {
      return String.format(java.util.Locale.ROOT,
          "%d targets, %d series, %,d samples in %,d append calls, %.1f s, %,.0f samples/s",
          targets, series, samples, appendCalls, nanos / 1e9, samplesPerSecond());
    }
  }

  /** One histogram: its series and running state. */
  private static final class Hist {
    final double[] le;
    final LabelSet[] buckets;
    final LabelSet sum;
    final LabelSet count;
    final double[] cum; // cumulative counts per bucket incl. +Inf
    double total;
    double sumValue;

    Hist(String name, double[] le, String[] base) {
      this.le = le;
      this.buckets = new LabelSet[le.length + 1];
      for (int i = 0; i <= le.length; i++) {
        buckets[i] = labels(base, "__name__", name + "_bucket", "le",
            i == le.length ? "+Inf" : formatLe(le[i]));
      }
      this.sum = labels(base, "__name__", name + "_sum");
      this.count = labels(base, "__name__", name + "_count");
      this.cum = new double[le.length + 1];
    }

    /** Adds n observations, log-normal with the given median and sigma (of ln). */
    void observe(double n, double median, double sigma) {
      double mu = Math.log(median);
      for (int i = 0; i < le.length; i++) {
        cum[i] += Math.rint(n * normalCdf((Math.log(le[i]) - mu) / sigma));
      }
      cum[le.length] += n;
      total += n;
      sumValue += n * median * Math.exp(sigma * sigma / 2);
    }

    int seriesCount() {
      return buckets.length + 2;
    }
  }

  private final int hostIndex;
  private final SplittableRandom random;
  private final Degraded degraded;
  private final String[] vllmBase;
  private final LabelSet waiting;
  private final LabelSet running;
  private final LabelSet kvUsage;
  private final LabelSet preemptions;
  private final LabelSet[] success = new LabelSet[REASONS.length];
  private final LabelSet promptTokens;
  private final LabelSet generationTokens;
  private final Hist ttft;
  private final Hist itl;
  private final Hist e2e;
  private final Hist queue;
  private final Hist promptHist;
  private final Hist generationHist;
  private final LabelSet[] gpuUtil = new LabelSet[2];
  private final LabelSet[] fbUsed = new LabelSet[2];
  private final LabelSet[] fbFree = new LabelSet[2];

  private double preemptionCount;
  private final double[] successCount = new double[REASONS.length];
  private double promptTokenCount;
  private double generationTokenCount;
  private double backlog;

  /** Column buffers per series for one batch. */
  private final List<LabelSet> order = new ArrayList<>();
  private long[][] ts;
  private long[][] bits;

  /**
   * @param hostIndex the N of host-N
   * @param seed random seed
   * @param degraded the degraded period, or null
   */
  public BenchData(int hostIndex, long seed, Degraded degraded) {
    this.hostIndex = hostIndex;
    this.random = new SplittableRandom(seed * 1_000_003L + hostIndex);
    this.degraded = degraded;
    String host = "host-" + hostIndex;
    vllmBase = new String[] {"engine", "0", "instance", host + ":8000", "job", "vllm",
        "model_name", MODEL};
    waiting = reg(labels(vllmBase, "__name__", "vllm:num_requests_waiting"));
    running = reg(labels(vllmBase, "__name__", "vllm:num_requests_running"));
    kvUsage = reg(labels(vllmBase, "__name__", "vllm:kv_cache_usage_perc"));
    preemptions = reg(labels(vllmBase, "__name__", "vllm:num_preemptions_total"));
    for (int r = 0; r < REASONS.length; r++) {
      success[r] = reg(labels(vllmBase, "__name__", "vllm:request_success_total",
          "finished_reason", REASONS[r]));
    }
    promptTokens = reg(labels(vllmBase, "__name__", "vllm:prompt_tokens_total"));
    generationTokens = reg(labels(vllmBase, "__name__", "vllm:generation_tokens_total"));
    ttft = reg(new Hist("vllm:time_to_first_token_seconds", TTFT_LE, vllmBase));
    itl = reg(new Hist("vllm:inter_token_latency_seconds", ITL_LE, vllmBase));
    e2e = reg(new Hist("vllm:e2e_request_latency_seconds", REQUEST_LE, vllmBase));
    queue = reg(new Hist("vllm:request_queue_time_seconds", REQUEST_LE, vllmBase));
    promptHist = reg(new Hist("vllm:request_prompt_tokens", TOKENS_LE, vllmBase));
    generationHist = reg(new Hist("vllm:request_generation_tokens", TOKENS_LE, vllmBase));
    for (int g = 0; g < 2; g++) {
      String[] dcgm = {"DCGM_FI_DRIVER_VERSION", "570.172.08", "Hostname", host, "UUID",
          String.format("GPU-%08x-0000-4000-8000-%012x", hostIndex, g), "device", "nvidia" + g,
          "gpu", Integer.toString(g), "instance", host + ":9400", "job", "dcgm", "modelName",
          "NVIDIA H100 80GB HBM3"};
      gpuUtil[g] = reg(labels(dcgm, "__name__", "DCGM_FI_DEV_GPU_UTIL"));
      fbUsed[g] = reg(labels(dcgm, "__name__", "DCGM_FI_DEV_FB_USED"));
      fbFree[g] = reg(labels(dcgm, "__name__", "DCGM_FI_DEV_FB_FREE"));
    }
    ts = new long[order.size()][SCRAPES_PER_BATCH];
    bits = new long[order.size()][SCRAPES_PER_BATCH];
  }

  /** @return series per target */
  public int seriesCount() {
    return order.size();
  }

  private LabelSet reg(LabelSet l) {
    order.add(l);
    return l;
  }

  private Hist reg(Hist h) {
    for (LabelSet b : h.buckets) {
      order.add(b);
    }
    order.add(h.sum);
    order.add(h.count);
    return h;
  }

  /**
   * Appends scrapes at {@code fromMs, fromMs + 15 s, ...} up to and including {@code toMs} of
   * several targets to the store, {@link #SCRAPES_PER_BATCH} scrapes of one target per call.
   *
   * @return what was written
   */
  public static Stats write(TimeSeriesStore store, List<BenchData> targets, long fromMs, long toMs)
      throws StorageException {
    long t0 = System.nanoTime();
    long samples = 0;
    long calls = 0;
    long series = 0;
    for (BenchData d : targets) {
      series += d.seriesCount();
    }
    for (long t = fromMs; t <= toMs; t += SCRAPES_PER_BATCH * SCRAPE_MS) {
      for (BenchData d : targets) {
        List<SeriesWrite> batch = d.batch(t, toMs);
        AppendResult r = store.append(batch);
        if (r.rejectedCount() > 0) {
          throw new IllegalStateException("store rejected " + r.rejectedCount() + " samples: "
              + r.rejections());
        }
        samples += r.samplesAppended();
        calls++;
      }
    }
    return new Stats(targets.size(), series, samples, calls, System.nanoTime() - t0);
  }

  /** Up to {@link #SCRAPES_PER_BATCH} scrapes from {@code fromMs}, none after {@code lastMs}. */
  List<SeriesWrite> batch(long fromMs, long lastMs) {
    int n = 0;
    for (long t = fromMs; n < SCRAPES_PER_BATCH && t <= lastMs; t += SCRAPE_MS, n++) {
      scrape(t, n);
    }
    List<SeriesWrite> out = new ArrayList<>(order.size());
    for (int s = 0; s < order.size(); s++) {
      out.add(new SeriesWrite(order.get(s), ts[s], bits[s], n));
    }
    return out;
  }

  private int col;
  private int row;

  private void put(double v) {
    ts[col][row] = current;
    bits[col][row] = Double.doubleToRawLongBits(v);
    col++;
  }

  private long current;

  private void putHist(Hist h) {
    for (double c : h.cum) {
      put(c);
    }
    put(h.sumValue);
    put(h.total);
  }

  /** One scrape at t into row n of the buffers, in {@link #order}. */
  private void scrape(long t, int n) {
    current = t;
    row = n;
    col = 0;
    boolean bad = degraded != null && degraded.contains(t);
    double day = (t % 86_400_000L) / 86_400_000.0;
    double load = 0.5 + 0.5 * Math.sin(2 * Math.PI * (day - 0.25 + hostIndex * 0.01)); // 0..1
    double rate = (3 + 6 * load) * (0.9 + 0.2 * random.nextDouble()); // requests/s
    double requests = Math.rint(rate * SCRAPE_MS / 1000.0);
    double busy = 0.45 + 0.4 * load + 0.05 * random.nextDouble();
    double runningNow = Math.rint(8 + 40 * load + 4 * random.nextDouble());
    double waitingNow;
    double kv;
    double util;
    double e2eMedian;
    double queueMedian;
    double ttftMedian;
    if (bad) {
      backlog = Math.min(200, backlog + 3 + 2 * random.nextDouble());
      waitingNow = Math.rint(backlog);
      kv = 0.97 + 0.02 * random.nextDouble();
      util = 99;
      e2eMedian = 25 + 5 * random.nextDouble();
      queueMedian = 12 + 3 * random.nextDouble();
      ttftMedian = 6 + random.nextDouble();
      requests = Math.rint(requests * 0.6);
    } else {
      backlog = Math.max(0, backlog * 0.5);
      waitingNow = random.nextDouble() < 0.1 ? Math.rint(backlog + random.nextInt(3)) : 0;
      kv = Math.min(0.95, 0.15 + 0.55 * load + 0.05 * random.nextDouble());
      util = Math.rint(100 * busy);
      e2eMedian = 2.5 + 1.5 * load + 0.3 * random.nextDouble();
      queueMedian = 0.02 + 0.05 * load;
      ttftMedian = 0.12 + 0.08 * load;
    }
    double itlMedian = 0.022 + 0.01 * load + (bad ? 0.02 : 0);
    double promptMean = 900 + 200 * random.nextDouble();
    double generationMean = 180 + 60 * random.nextDouble();

    put(waitingNow);
    put(runningNow);
    put(kv);
    if (bad || random.nextDouble() < 0.002) {
      preemptionCount += bad ? 1 + random.nextInt(5) : 1;
    }
    put(preemptionCount);
    double left = requests;
    for (int r = 0; r < REASONS.length; r++) {
      double k = r == REASONS.length - 1 ? left : Math.min(left, Math.rint(requests * REASON_SHARE[r]));
      successCount[r] += k;
      left -= k;
      put(successCount[r]);
    }
    promptTokenCount += Math.rint(requests * promptMean);
    generationTokenCount += Math.rint(requests * generationMean);
    put(promptTokenCount);
    put(generationTokenCount);
    ttft.observe(requests, ttftMedian, 0.5);
    putHist(ttft);
    itl.observe(Math.rint(requests * generationMean), itlMedian, 0.35);
    putHist(itl);
    e2e.observe(requests, e2eMedian, 0.45);
    putHist(e2e);
    queue.observe(requests, queueMedian, 0.8);
    putHist(queue);
    promptHist.observe(requests, promptMean, 0.9);
    putHist(promptHist);
    generationHist.observe(requests, generationMean, 0.7);
    putHist(generationHist);
    for (int g = 0; g < 2; g++) {
      put(bad ? 99 : Math.max(0, Math.min(100, util + random.nextInt(5) - 2)));
      double used = Math.rint(FB_TOTAL_MIB * (0.88 + 0.02 * kv));
      put(used);
      put(FB_TOTAL_MIB - used);
    }
    if (col != order.size()) {
      throw new IllegalStateException("wrote " + col + " of " + order.size() + " series");
    }
  }

  static LabelSet labels(String[] base, String... more) {
    String[] all = new String[base.length + more.length];
    System.arraycopy(base, 0, all, 0, base.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return LabelSet.of(all);
  }

  /** Prometheus' float formatting for le: 0.001, 1.0, 20000.0. */
  static String formatLe(double v) {
    return Double.toString(v);
  }

  /** Standard normal CDF (Abramowitz-Stegun 7.1.26 via erf), error below 1.5e-7. */
  static double normalCdf(double z) {
    double x = Math.abs(z) / Math.sqrt(2);
    double t = 1 / (1 + 0.3275911 * x);
    double y = 1 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
        + 0.254829592) * t * Math.exp(-x * x);
    return z >= 0 ? 0.5 * (1 + y) : 0.5 * (1 - y);
  }
}
