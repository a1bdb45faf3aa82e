package io.inferlens.simulator;

import java.util.Arrays;
import java.util.TreeSet;

/**
 * Histogram bucket bounds of every simulated stack, and their unions. The {@link SimulationModel}
 * keeps each of its histograms at the union of the bounds that any stack exposes for that
 * quantity, so one run can be rendered exactly for any stack: a cumulative count at a bound that
 * is one of the histogram's own bounds is exact ({@link Histogram#cumulativeAt}).
 *
 * <p>Sources, as in {@code fixtures/tools/gen_vllm.py} and {@code gen_others.py} of the
 * repository: vLLM V0 {@code vllm/engine/metrics.py} (TTFT ≤ 10 s, TPOT ≤ 2.5 s, latency ≤ 60 s,
 * 1-2-5 token buckets up to {@code max_model_len}, cudagraph-size iteration buckets), vLLM V1
 * {@code vllm/v1/metrics/loggers.py} (TTFT ≤ 2560 s, ITL ≤ 80 s, latency ≤ 7680 s, iteration
 * 1…16384), SGLang {@code python/sglang/srt/metrics/collector.py}, TGI
 * {@code router/src/server.rs} (durations {@code 0.0001·1.5^k}, k = 1..35; input lengths in
 * steps of {@code max_input_tokens / 100}, generated tokens of {@code max_total_tokens / 100}),
 * prometheus-fastapi-instrumentator {@code metrics.default()} (HTTP durations). All durations
 * are seconds, token bounds are tokens.
 */
public final class Buckets {

  private Buckets() {}

  /** vLLM V0 {@code time_to_first_token_seconds}. */
  public static final double[] V0_TTFT = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25,
      0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0};
  /** vLLM V0 {@code time_per_output_token_seconds}. */
  public static final double[] V0_TPOT = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5,
      0.75, 1.0, 2.5};
  /** vLLM V0 request latencies (e2e, queue, inference, prefill, decode). */
  public static final double[] V0_LATENCY = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0,
      20.0, 30.0, 40.0, 50.0, 60.0};
  /** vLLM V0 {@code iteration_tokens_total}: the CUDA-graph batch sizes 1, 2, 4, 8, 16, … 256. */
  public static final double[] V0_ITERATION = v0Iteration();
  /** vLLM V1 {@code time_to_first_token_seconds}. */
  public static final double[] V1_TTFT = concat(V0_TTFT, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0);
  /** vLLM V1 {@code inter_token_latency_seconds} and per-request TPOT. */
  public static final double[] V1_ITL = concat(V0_TPOT, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0);
  /** vLLM V1 request latencies. */
  public static final double[] V1_LATENCY =
      concat(V0_LATENCY, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0);
  /** vLLM V1 {@code iteration_tokens_total}. */
  public static final double[] V1_ITERATION = {1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096,
      8192, 16384};
  /** vLLM token histograms: 1-2-5 up to 20000 (both fixtures' {@code max_model_len} is above). */
  public static final double[] VLLM_TOKENS = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
      10000, 20000};
  /** vLLM {@code request_params_n}. */
  public static final double[] VLLM_PARAMS_N = {1, 2, 5, 10, 20};
  /** Instrumentator {@code http_request_duration_highr_seconds}. */
  public static final double[] HTTP_HIGHR = {0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0,
      1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 7.5, 10.0, 30.0, 60.0};
  /** Instrumentator {@code http_request_duration_seconds}. */
  public static final double[] HTTP_LOWR = {0.1, 0.5, 1.0};
  /** SGLang {@code time_to_first_token_seconds}. */
  public static final double[] SGLANG_TTFT = {0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 2.0, 4.0, 6.0, 8.0,
      10.0, 20.0, 40.0, 60.0, 80.0, 100.0, 200.0, 400.0};
  /** SGLang {@code inter_token_latency_seconds}. */
  public static final double[] SGLANG_ITL = {0.002, 0.004, 0.006, 0.008, 0.01, 0.015, 0.02, 0.025,
      0.03, 0.035, 0.04, 0.06, 0.08, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 2.0, 4.0, 6.0, 8.0};
  /** SGLang {@code e2e_request_latency_seconds}. */
  public static final double[] SGLANG_E2E = concat(SGLANG_TTFT, 600.0, 1200.0, 1800.0, 2400.0);
  /** SGLang {@code queue_time_seconds} (starts at 0: a request scheduled at once). */
  public static final double[] SGLANG_QUEUE = {0.0, 0.1, 0.2, 0.5, 1.0, 2.0, 3.0, 4.0, 5.0, 10.0,
      15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0, 200.0, 300.0, 400.0, 500.0,
      600.0, 700.0, 800.0, 900.0, 1000.0, 1200.0, 1400.0, 1600.0, 1800.0, 2000.0, 2500.0, 3000.0};
  /** TGI durations: {@code 0.0001 · 1.5^k}, k = 1..35, by repeated multiplication as in Rust. */
  public static final double[] TGI_DURATION = tgiDurations();
  /** TGI {@code tgi_request_input_length} at {@code --max-input-tokens 8000}: 80, 160, … 8000. */
  public static final double[] TGI_INPUT = linear(80, 100);
  /** TGI {@code tgi_request_generated_tokens} at {@code --max-total-tokens 10000}: 100 … 10000. */
  public static final double[] TGI_GENERATED = linear(100, 100);

  /** Union for TTFT. */
  static final double[] TTFT = union(V1_TTFT, SGLANG_TTFT);
  /** Union for inter-token latency. */
  static final double[] ITL = union(V1_ITL, SGLANG_ITL);
  /** Union for per-request time per output token. */
  static final double[] REQUEST_TPOT = union(V1_ITL, TGI_DURATION);
  /** Union for end-to-end latency (HTTP durations are e2e observations too). */
  static final double[] E2E = union(V1_LATENCY, SGLANG_E2E, TGI_DURATION, HTTP_HIGHR);
  /** Union for queue time. */
  static final double[] QUEUE = union(V1_LATENCY, SGLANG_QUEUE, TGI_DURATION);
  /** Union for inference, prefill and decode time. */
  static final double[] PHASE = union(V1_LATENCY, TGI_DURATION);
  /** Union for prompt lengths. */
  static final double[] PROMPT = union(VLLM_TOKENS, TGI_INPUT);
  /** Union for generated lengths. */
  static final double[] GENERATED = union(VLLM_TOKENS, TGI_GENERATED);
  /** Union for tokens per engine iteration. */
  static final double[] ITERATION = union(V0_ITERATION, V1_ITERATION);

  private static double[] v0Iteration() {
    double[] out = new double[3 + 32];
    out[0] = 1;
    out[1] = 2;
    out[2] = 4;
    for (int i = 0; i < 32; i++) {
      out[3 + i] = 8 * (i + 1);
    }
    return out;
  }

  private static double[] tgiDurations() {
    double[] out = new double[35];
    double v = 0.0001;
    for (int i = 0; i < out.length; i++) {
      v *= 1.5;
      out[i] = v;
    }
    return out;
  }

  private static double[] linear(double step, int n) {
    double[] out = new double[n];
    for (int i = 0; i < n; i++) {
      out[i] = step * (i + 1);
    }
    return out;
  }

  private static double[] concat(double[] a, double... more) {
    double[] out = Arrays.copyOf(a, a.length + more.length);
    System.arraycopy(more, 0, out, a.length, more.length);
    return out;
  }

  /**
   * @param lists bound lists
   * @return every distinct bound of the lists, increasing
   */
  static double[] union(double[]... lists) {
    TreeSet<Double> all = new TreeSet<>();
    for (double[] l : lists) {
      for (double d : l) {
        all.add(d);
      }
    }
    return all.stream().mapToDouble(Double::doubleValue).toArray();
  }
}
