package io.inferlens.analysis.incident;

import io.inferlens.storage.LabelSet;
import io.inferlens.storage.SeriesWrite;
import io.inferlens.storage.TimeSeriesStore;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongToDoubleFunction;

/**
 * One vLLM engine and its GPU scraped every 15 s, written straight into a store in pieces, so a
 * test can advance time and write only what a scraper would have sent by then: cumulative E2E
 * histogram, waiting and running requests, KV-cache usage, DCGM GPU utilisation.
 */
final class SimulatedEngine {
  static final long STEP = 15_000;
  static final double[] LE = {0.5, 1, 2, 4, 6, 8, 10, 15, 20, 30, 60};

  private final String host;
  private final String model;
  private final double[] cumulative = new double[LE.length + 3];
  LongToDoubleFunction e2e = t -> 2.0;
  LongToDoubleFunction waiting = t -> 0;
  LongToDoubleFunction gpu = t -> 50;
  LongToDoubleFunction kv = t -> 0.3;

  SimulatedEngine(String host, String model) {
    this.host = host;
    this.model = model;
  }

  /** Writes the scrapes at {@code from, from + 15 s, …} before {@code to}. */
  void write(TimeSeriesStore store, long from, long to) throws Exception {
    int n = (int) ((to - from + STEP - 1) / STEP);
    if (n <= 0) {
      return;
    }
    long[] ts = new long[n];
    double[][] buckets = new double[LE.length + 1][n];
    double[] count = new double[n];
    double[] sum = new double[n];
    double[] wait = new double[n];
    double[] run = new double[n];
    double[] kvs = new double[n];
    double[] gpus = new double[n];
    for (int i = 0; i < n; i++) {
      long t = from + i * STEP;
      ts[i] = t;
      double lat = e2e.applyAsDouble(t);
      cumulative[LE.length + 1] += 30;
      cumulative[LE.length + 2] += 30 * lat;
      for (int b = 0; b <= LE.length; b++) {
        if (b == LE.length || lat <= LE[b]) {
          cumulative[b] += 30;
        }
        buckets[b][i] = cumulative[b];
      }
      count[i] = cumulative[LE.length + 1];
      sum[i] = cumulative[LE.length + 2];
      wait[i] = waiting.applyAsDouble(t);
      run[i] = 40;
      kvs[i] = kv.applyAsDouble(t);
      gpus[i] = gpu.applyAsDouble(t);
    }
    String inst = host + ":8000";
    List<SeriesWrite> w = new ArrayList<>();
    for (int b = 0; b <= LE.length; b++) {
      String le = b == LE.length ? "+Inf" : Double.toString(LE[b]);
      w.add(series(ts, buckets[b], "__name__", "vllm:e2e_request_latency_seconds_bucket", "job",
          "vllm", "instance", inst, "model_name", model, "engine", "0", "le", le));
    }
    w.add(series(ts, count, "__name__", "vllm:e2e_request_latency_seconds_count", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0"));
    w.add(series(ts, sum, "__name__", "vllm:e2e_request_latency_seconds_sum", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0"));
    w.add(series(ts, count, "__name__", "vllm:request_success_total", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0", "finished_reason", "stop"));
    w.add(series(ts, wait, "__name__", "vllm:num_requests_waiting", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0"));
    w.add(series(ts, run, "__name__", "vllm:num_requests_running", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0"));
    w.add(series(ts, kvs, "__name__", "vllm:kv_cache_usage_perc", "job", "vllm",
        "instance", inst, "model_name", model, "engine", "0"));
    w.add(series(ts, gpus, "__name__", "DCGM_FI_DEV_GPU_UTIL", "job", "dcgm",
        "instance", host + ":9400", "gpu", "0", "Hostname", host));
    if (store.append(w).rejectedCount() != 0) {
      throw new AssertionError("samples rejected");
    }
  }

  private static SeriesWrite series(long[] ts, double[] values, String... labels) {
    long[] bits = new long[values.length];
    for (int i = 0; i < bits.length; i++) {
      bits[i] = Double.doubleToRawLongBits(values[i]);
    }
    return new SeriesWrite(LabelSet.of(labels), ts, bits, ts.length);
  }
}
