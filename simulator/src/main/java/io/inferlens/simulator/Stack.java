package io.inferlens.simulator;

import java.util.Locale;

/**
 * The serving stacks the simulator can imitate: which exposition renders the shared
 * {@link SimulationModel} as that stack's {@code /metrics}, in the exact names, label sets, types
 * and HELP/TYPE lines of the repository's fixture for it ({@code fixtures/README.md}).
 */
public enum Stack {

  /** vLLM 0.6 V0 engine ({@code fixtures/vllm-0.6-v0.prom}): V0 names, {@code model_name} only. */
  VLLM_0_6("vllm-0.6", "vllm", 1, 1,
      "vLLM 0.6 V0: gpu_cache_usage_perc, time_per_output_token_seconds, model_name only, "
          + "multiprocess rendering", VllmV0Exposition::render),
  /** vLLM 0.10 V1 ({@code fixtures/vllm-0.10-v1.prom}): new names and their deprecated aliases. */
  VLLM_0_10("vllm-0.10", "vllm", 1, 64,
      "vLLM 0.10 V1: kv_cache_usage_perc and its deprecated alias gpu_cache_usage_perc, "
          + "python_/process_/http_ series", VllmV1Exposition::render010),
  /** vLLM 0.13 V1 with data-parallel engines ({@code fixtures/vllm-0.13-v1.prom}). */
  VLLM_0_13("vllm-0.13", "vllm", 2, 64,
      "vLLM 0.13 V1, data parallel: engine=\"0\"..\"N-1\", deprecated names removed",
      VllmV1Exposition::render013),
  /** SGLang ~0.5 ({@code fixtures/sglang.prom}): tokenizer and scheduler series. */
  SGLANG("sglang", "sglang", 1, 1,
      "SGLang 0.5: sglang:token_usage, num_queue_reqs, tokenizer {model_name} and scheduler "
          + "{engine_type,model_name,pp_rank,tp_rank} series", SglangExposition::render),
  /** Hugging Face TGI 3.x router ({@code fixtures/tgi.prom}): no model label, no TTFT. */
  TGI("tgi", "tgi", 1, 1,
      "TGI 3.x router: tgi_queue_size, tgi_request_duration, counters without _total, no model "
          + "label, no TTFT", TgiExposition::render);

  /** Renders one stack's {@code /metrics}; the caller holds the model's lock. */
  interface Renderer {
    String render(SimulationModel m, String modelName, double createdEpochSeconds);
  }

  private final String id;
  private final String job;
  private final int defaultEngines;
  private final int maxEngines;
  private final String description;
  private final Renderer renderer;

  Stack(String id, String job, int defaultEngines, int maxEngines, String description,
      Renderer renderer) {
    this.id = id;
    this.job = job;
    this.defaultEngines = defaultEngines;
    this.maxEngines = maxEngines;
    this.description = description;
    this.renderer = renderer;
  }

  /** @return the command-line name, e.g. {@code vllm-0.13} */
  public String id() {
    return id;
  }

  /** @return the Prometheus job name its scrape usually has: {@code vllm}, {@code sglang}, {@code tgi} */
  public String job() {
    return job;
  }

  /** @return engines simulated when {@code --engines} is not given (as the stack's fixture) */
  public int defaultEngines() {
    return defaultEngines;
  }

  /**
   * @return the most engines one server of this stack exposes: 1 where the series carry no
   *     engine label (vLLM V0, SGLang, TGI), else 64
   */
  public int maxEngines() {
    return maxEngines;
  }

  /** @return one line saying what the exposition looks like */
  public String description() {
    return description;
  }

  /**
   * Renders the model as this stack's {@code /metrics} (text format 0.0.4).
   *
   * @param m the model (caller holds its lock); its engine count at most {@link #maxEngines()}
   * @param modelName value of the {@code model_name} label (unused by TGI, which has none)
   * @param createdEpochSeconds Unix time (seconds) the server started, for {@code _created}
   *     gauges and start-time series
   * @return the exposition text
   * @throws IllegalArgumentException if the model has more engines than the stack can label
   */
  public String render(SimulationModel m, String modelName, double createdEpochSeconds) {
    if (m.engines().size() > maxEngines) {
      throw new IllegalArgumentException(id + " exposes at most " + maxEngines
          + " engine(s) per server, the model has " + m.engines().size());
    }
    return renderer.render(m, modelName, createdEpochSeconds);
  }

  /**
   * Looks a stack up by its command-line name.
   *
   * @param name e.g. {@code vllm-0.6} (case-insensitive)
   * @return the stack
   * @throws IllegalArgumentException naming {@code --stack} and the known stacks if there is none
   */
  public static Stack byId(String name) {
    for (Stack s : values()) {
      if (s.id.equals(name.toLowerCase(Locale.ROOT))) {
        return s;
      }
    }
    StringBuilder known = new StringBuilder();
    for (Stack s : values()) {
      known.append(known.length() == 0 ? "" : ", ").append(s.id);
    }
    throw new IllegalArgumentException("--stack \"" + name + "\" is unknown; known: " + known);
  }
}
