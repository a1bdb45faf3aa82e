package io.inferlens.ingest.bench;

import io.inferlens.proto.prometheus.Remote.WriteRequest;
import io.inferlens.proto.prometheus.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A remote write request shaped like the LLM-serving workload of the benchmark harness's
 * gen_workload.py (docs/BENCHMARKS.md, "The harness"): per instance (one vLLM pod with 4 GPUs)
 * 132 vLLM series
 * (6 classic histograms with {@code le} buckets, {@code _sum}, {@code _count}; 7 gauges; an info
 * metric; 7 counters) and 68 DCGM exporter series (17 fields x 4 GPUs), labels sorted as
 * Prometheus sends them, one sample per series on a 15 s scrape grid, as cut by Prometheus'
 * queue manager into requests of 2,000 TimeSeries x 1 sample (max_samples_per_send).
 *
 * <p>Values follow the generator's shapes loosely: integral bucket counts and counters, gauges
 * with full-mantissa fractions (KV-cache usage), watts with 3 decimals. Deterministic for a seed.
 */
final class VllmWorkload {

  static final int SERIES_PER_INSTANCE = 200;
  static final long SCRAPE_INTERVAL_MS = 15_000;

  private static final String[][] MODELS = {
    {"meta-llama/Llama-3.1-70B-Instruct", "llama-3-1-70b"},
    {"Qwen/Qwen2.5-72B-Instruct", "qwen2-5-72b"},
    {"mistralai/Mixtral-8x22B-Instruct-v0.1", "mixtral-8x22b"},
    {"meta-llama/Llama-3.3-70B-Instruct", "llama-3-3-70b"},
  };
  private static final double[] TTFT_B = {0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25,
      0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0};
  private static final double[] TPOT_B = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4,
      0.5, 0.75, 1.0, 2.5, 5.0, 7.5};
  private static final double[] E2E_B = {0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0,
      20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0};
  private static final double[] TOK_B = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000,
      10000, 20000, 50000, 100000};
  private static final Object[][] HISTS = {
    {"vllm:time_to_first_token_seconds", TTFT_B},
    {"vllm:time_per_output_token_seconds", TPOT_B},
    {"vllm:e2e_request_latency_seconds", E2E_B},
    {"vllm:request_queue_time_seconds", E2E_B},
    {"vllm:request_prompt_tokens", TOK_B},
    {"vllm:request_generation_tokens", TOK_B},
  };
  private static final String[] GAUGES = {"vllm:num_requests_running",
      "vllm:num_requests_waiting", "vllm:num_requests_swapped", "vllm:gpu_cache_usage_perc",
      "vllm:cpu_cache_usage_perc", "vllm:gpu_prefix_cache_hit_rate",
      "process_resident_memory_bytes"};
  private static final String[] COUNTERS = {"vllm:prompt_tokens_total",
      "vllm:generation_tokens_total", "vllm:num_preemptions_total", "vllm:request_success_total",
      "process_cpu_seconds_total"};
  private static final String[] DCGM = {"DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK",
      "DCGM_FI_DEV_MEMORY_TEMP", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_POWER_USAGE",
      "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "DCGM_FI_DEV_PCIE_REPLAY_COUNTER",
      "DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL", "DCGM_FI_DEV_ENC_UTIL",
      "DCGM_FI_DEV_DEC_UTIL", "DCGM_FI_DEV_XID_ERRORS", "DCGM_FI_DEV_FB_FREE",
      "DCGM_FI_DEV_FB_USED", "DCGM_FI_PROF_GR_ENGINE_ACTIVE", "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
      "DCGM_FI_PROF_DRAM_ACTIVE"};

  private VllmWorkload() {}

  /**
   * @param seed random seed
   * @param samples number of TimeSeries (one sample each) in the request
   * @param gridMs the 15 s scrape grid point the samples belong to, in ms
   * @return the request, series of consecutive instances in series order
   */
  static WriteRequest request(long seed, int samples, long gridMs) {
    Random rng = new Random(seed);
    WriteRequest.Builder req = WriteRequest.newBuilder();
    for (int idx = 0; req.getTimeseriesCount() < samples; idx++) {
      List<List<String[]>> labelsets = instanceLabelSets(idx, rng);
      long vllmTs = gridMs + jitter(rng);
      long dcgmTs = gridMs + jitter(rng);
      for (int s = 0; s < labelsets.size() && req.getTimeseriesCount() < samples; s++) {
        Types.TimeSeries.Builder ts = Types.TimeSeries.newBuilder();
        for (String[] l : labelsets.get(s)) {
          ts.addLabels(Types.Label.newBuilder().setName(l[0]).setValue(l[1]));
        }
        ts.addSamples(Types.Sample.newBuilder()
            .setTimestamp(s < 132 ? vllmTs : dcgmTs).setValue(value(rng, s)));
        req.addTimeseries(ts);
      }
    }
    return req.build();
  }

  /** 85 % of scrapes on the grid, the rest off by up to ±25 ms (generator defaults). */
  private static long jitter(Random rng) {
    return rng.nextDouble() < 0.85 ? 0 : rng.nextInt(51) - 25;
  }

  private static double value(Random rng, int s) {
    switch (rng.nextInt(4)) {
      case 0: return rng.nextInt(100_000); // bucket counts, counters
      case 1: return rng.nextInt(20_736) / 20_736.0; // KV-cache usage: full mantissa
      case 2: return Math.round(rng.nextDouble() * 700_000) / 1000.0; // watts, 3 decimals
      default: return s % 7 == 0 ? 0.0 : rng.nextDouble() * 1e4;
    }
  }

  private static List<List<String[]>> instanceLabelSets(int idx, Random rng) {
    String[] model = MODELS[idx % MODELS.length];
    String ip = "10." + (40 + idx / 65000) + "." + ((idx / 250) % 256) + "." + (2 + idx % 250);
    String node = String.format("gpu-node-%04d", idx);
    String pod = "vllm-" + model[1] + "-" + hex(rng, 10) + "-" + hex(rng, 5);
    String[][] common = {{"container", "vllm"}, {"engine", "0"}, {"instance", ip + ":8000"},
        {"job", "vllm"}, {"model_name", model[0]}, {"namespace", "llm-serving"}, {"pod", pod}};
    List<List<String[]>> out = new ArrayList<>();
    for (Object[] h : HISTS) {
      String fam = (String) h[0];
      for (double le : (double[]) h[1]) {
        out.add(sorted(common, "__name__", fam + "_bucket", "le", Double.toString(le)));
      }
      out.add(sorted(common, "__name__", fam + "_bucket", "le", "+Inf"));
      out.add(sorted(common, "__name__", fam + "_sum"));
      out.add(sorted(common, "__name__", fam + "_count"));
    }
    for (String g : GAUGES) {
      out.add(sorted(common, "__name__", g));
    }
    out.add(sorted(common, "__name__", "vllm:cache_config_info", "block_size", "16",
        "cache_dtype", "auto", "enable_prefix_caching", "True", "gpu_memory_utilization", "0.9",
        "num_gpu_blocks", "20736", "num_cpu_blocks", "2048", "swap_space_bytes", "4294967296"));
    for (String c : COUNTERS) {
      if (c.equals("vllm:request_success_total")) {
        for (String fr : new String[] {"stop", "length", "abort"}) {
          out.add(sorted(common, "__name__", c, "finished_reason", fr));
        }
      } else {
        out.add(sorted(common, "__name__", c));
      }
    }
    if (out.size() != 132) {
      throw new IllegalStateException("bug: " + out.size() + " vLLM series, expected 132");
    }
    for (int g = 0; g < 4; g++) {
      String uuid = "GPU-" + hex(rng, 8) + "-" + hex(rng, 4) + "-" + hex(rng, 4) + "-"
          + hex(rng, 4) + "-" + hex(rng, 12);
      String[][] gl = {{"DCGM_FI_DRIVER_VERSION", "550.90.07"}, {"Hostname", node},
          {"UUID", uuid}, {"container", "vllm"}, {"device", "nvidia" + g}, {"gpu", "" + g},
          {"instance", ip.replaceFirst("10\\.", "10.1") + ":9400"}, {"job", "dcgm-exporter"},
          {"modelName", "NVIDIA H100 80GB HBM3"}, {"namespace", "llm-serving"},
          {"pci_bus_id", String.format("00000000:%02X:00.0", 0x18 + 0x1A * g)}, {"pod", pod}};
      for (String d : DCGM) {
        out.add(sorted(gl, "__name__", d));
      }
    }
    if (out.size() != SERIES_PER_INSTANCE) {
      throw new IllegalStateException("bug: " + out.size() + " series per instance");
    }
    return out;
  }

  private static List<String[]> sorted(String[][] common, String... extra) {
    List<String[]> ls = new ArrayList<>();
    for (String[] c : common) {
      ls.add(c);
    }
    for (int i = 0; i < extra.length; i += 2) {
      ls.add(new String[] {extra[i], extra[i + 1]});
    }
    ls.sort((a, b) -> a[0].compareTo(b[0])); // ASCII names: String order = byte order
    return ls;
  }

  private static String hex(Random rng, int n) {
    StringBuilder sb = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      sb.append("0123456789abcdef".charAt(rng.nextInt(16)));
    }
    return sb.toString();
  }
}
