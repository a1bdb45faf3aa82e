package io.inferlens.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders a {@link SimulationModel} as Prometheus text exposition (format 0.0.4) in the exact shape
 * of the repository's fixtures ({@code fixtures/}): vLLM 0.13 V1 ({@code vllm-0.13-v1.prom}: family
 * order, HELP texts, {@code engine}/{@code model_name} label order with {@code le} and
 * {@code finished_reason} sorted in, V1 bucket boundaries, {@code _created} gauges after each
 * counter and histogram, prometheus_client number format), dcgm-exporter 4.x
 * ({@code dcgm-exporter.prom}: label order, {@code %d}/{@code %f} values) and kafka_exporter
 * ({@code kafka-exporter.prom}: families and series sorted as Go does, Go number format). Names
 * follow vllm/v1/metrics/loggers.py. Callers hold the model's lock while rendering.
 */
public final class Exposition {

  /** Total framebuffer of the simulated GPU (NVIDIA H100 80GB HBM3), MiB. */
  public static final long FB_TOTAL_MIB = 81559;
  /** Framebuffer reserved by the driver, MiB. */
  public static final long FB_RESERVED_MIB = 529;
  /** Framebuffer used by vLLM: preallocated at {@code --gpu-memory-utilization 0.9}, MiB. */
  public static final long FB_USED_BASE_MIB = 74203;

  private static final String SLEEP_HELP = "Engine sleep state; awake = 0 means engine is "
      + "sleeping; awake = 1 means engine is awake; weights_offloaded = 1 means sleep level 1; "
      + "discard_all = 1 means sleep level 2.";

  private Exposition() {}

  /**
   * Renders vLLM's {@code /metrics}.
   *
   * @param m the model (caller holds its lock)
   * @param modelName value of the {@code model_name} label, e.g. {@code Qwen/Qwen3-32B-FP8}
   * @param createdEpochSeconds Unix time (seconds) the counters were created, for {@code _created}
   * @return the exposition text
   */
  public static String vllm(SimulationModel m, String modelName, double createdEpochSeconds) {
    StringBuilder sb = new StringBuilder(48 * 1024);
    List<SimulationModel.Engine> es = m.engines();
    String mn = PromFormat.escape(modelName);
    Created created = new Created(createdEpochSeconds);

    gauge(sb, "vllm:num_requests_running", "Number of requests in model execution batches.", es, mn,
        e -> e.running());
    gauge(sb, "vllm:num_requests_waiting", "Number of requests waiting to be processed.", es, mn,
        e -> e.waiting());
    sb.append("# HELP vllm:engine_sleep_state ").append(SLEEP_HELP).append('\n');
    sb.append("# TYPE vllm:engine_sleep_state gauge\n");
    for (String state : new String[] {"awake", "weights_offloaded", "discard_all"}) {
      for (SimulationModel.Engine e : es) {
        sb.append("vllm:engine_sleep_state{engine=\"").append(e.label).append("\",model_name=\"")
            .append(mn).append("\",sleep_state=\"").append(state).append("\"} ")
            .append(PromFormat.pyFloat(state.equals("awake") ? 1 : 0)).append('\n');
      }
    }
    gauge(sb, "vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage.", es, mn,
        SimulationModel.Engine::kvUsage);
    counter(sb, created, "vllm:prefix_cache_queries",
        "Prefix cache queries, in terms of number of queried tokens.", es, mn,
        e -> e.prefixQueries);
    counter(sb, created, "vllm:prefix_cache_hits",
        "Prefix cache hits, in terms of number of cached tokens.", es, mn, e -> e.prefixHits);
    counter(sb, created, "vllm:external_prefix_cache_queries",
        "External prefix cache queries from KV connector cross-instance cache sharing, in terms of "
            + "number of queried tokens.", es, mn, e -> 0);
    counter(sb, created, "vllm:external_prefix_cache_hits",
        "External prefix cache hits from KV connector cross-instance cache sharing, in terms of "
            + "number of cached tokens.", es, mn, e -> 0);
    counter(sb, created, "vllm:mm_cache_queries",
        "Multi-modal cache queries, in terms of number of queried items.", es, mn, e -> 0);
    counter(sb, created, "vllm:mm_cache_hits",
        "Multi-modal cache hits, in terms of number of cached items.", es, mn, e -> 0);
    counter(sb, created, "vllm:num_preemptions",
        "Cumulative number of preemption from the engine.", es, mn, e -> e.preemptions);
    counter(sb, created, "vllm:prompt_tokens", "Number of prefill tokens processed.", es, mn,
        e -> e.promptTokens);
    counter(sb, created, "vllm:generation_tokens", "Number of generation tokens processed.", es, mn,
        e -> e.generationTokens);

    String successHelp = "Count of successfully processed requests.";
    sb.append("# HELP vllm:request_success_total ").append(successHelp).append('\n');
    sb.append("# TYPE vllm:request_success_total counter\n");
    for (int r = 0; r < SimulationModel.FINISH_REASONS.length; r++) {
      for (SimulationModel.Engine e : es) {
        sb.append("vllm:request_success_total{engine=\"").append(e.label)
            .append("\",finished_reason=\"").append(SimulationModel.FINISH_REASONS[r])
            .append("\",model_name=\"").append(mn).append("\"} ")
            .append(PromFormat.pyFloat(e.finished[r])).append('\n');
      }
    }
    sb.append("# HELP vllm:request_success_created ").append(successHelp).append('\n');
    sb.append("# TYPE vllm:request_success_created gauge\n");
    for (String reason : SimulationModel.FINISH_REASONS) {
      for (SimulationModel.Engine e : es) {
        sb.append("vllm:request_success_created{engine=\"").append(e.label)
            .append("\",finished_reason=\"").append(reason).append("\",model_name=\"").append(mn)
            .append("\"} ").append(PromFormat.pyFloat(created.next())).append('\n');
      }
    }

    histogram(sb, created, "vllm:time_to_first_token_seconds",
        "Histogram of time to first token in seconds.", es, mn, e -> e.ttft);
    histogram(sb, created, "vllm:inter_token_latency_seconds",
        "Histogram of inter-token latency in seconds.", es, mn, e -> e.itl);
    histogram(sb, created, "vllm:request_time_per_output_token_seconds",
        "Histogram of time_per_output_token_seconds per request.", es, mn, e -> e.requestTpot);
    histogram(sb, created, "vllm:e2e_request_latency_seconds",
        "Histogram of e2e request latency in seconds.", es, mn, e -> e.e2e);
    histogram(sb, created, "vllm:request_queue_time_seconds",
        "Histogram of time spent in WAITING phase for request.", es, mn, e -> e.queueTime);

    sb.append("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n");
    sb.append("# TYPE vllm:cache_config_info gauge\n");
    for (SimulationModel.Engine e : es) {
      sb.append("vllm:cache_config_info{block_size=\"").append(SimulationModel.BLOCK_SIZE)
          .append("\",cache_dtype=\"auto\",enable_prefix_caching=\"True\",engine=\"")
          .append(e.label).append("\",gpu_memory_utilization=\"0.9\",is_attention_free=\"False\","
              + "num_gpu_blocks=\"").append(SimulationModel.NUM_GPU_BLOCKS)
          .append("\",num_gpu_blocks_override=\"None\",sliding_window=\"None\"} 1.0\n");
    }
    return sb.toString();
  }

  /** Hands out {@code _created} values: the start time plus a few microseconds per series. */
  private static final class Created {
    private final double base;
    private int n;

    Created(double base) {
      this.base = base;
    }

    double next() {
      return base + 1.76e-5 * n++;
    }
  }

  private interface EngineValue {
    double get(SimulationModel.Engine e);
  }

  private interface EngineHistogram {
    Histogram get(SimulationModel.Engine e);
  }

  private static void series(StringBuilder sb, String name, String engine, String mn, double v) {
    sb.append(name).append("{engine=\"").append(engine).append("\",model_name=\"").append(mn)
        .append("\"} ").append(PromFormat.pyFloat(v)).append('\n');
  }

  private static void gauge(StringBuilder sb, String name, String help,
      List<SimulationModel.Engine> es, String mn, EngineValue v) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(" gauge\n");
    for (SimulationModel.Engine e : es) {
      series(sb, name, e.label, mn, v.get(e));
    }
  }

  private static void counter(StringBuilder sb, Created created, String base, String help,
      List<SimulationModel.Engine> es, String mn, EngineValue v) {
    sb.append("# HELP ").append(base).append("_total ").append(help).append('\n');
    sb.append("# TYPE ").append(base).append("_total counter\n");
    for (SimulationModel.Engine e : es) {
      series(sb, base + "_total", e.label, mn, v.get(e));
    }
    createdFamily(sb, created, base + "_created", help, es, mn);
  }

  private static void createdFamily(StringBuilder sb, Created created, String name, String help,
      List<SimulationModel.Engine> es, String mn) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(" gauge\n");
    for (SimulationModel.Engine e : es) {
      series(sb, name, e.label, mn, created.next());
    }
  }

  private static void histogram(StringBuilder sb, Created created, String name, String help,
      List<SimulationModel.Engine> es, String mn, EngineHistogram h) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(" histogram\n");
    for (SimulationModel.Engine e : es) {
      Histogram hist = h.get(e);
      double[] bounds = hist.bounds();
      long[] cum = hist.cumulative();
      for (int i = 0; i <= bounds.length; i++) {
        String le = i < bounds.length ? PromFormat.pyFloat(bounds[i]) : "+Inf";
        sb.append(name).append("_bucket{engine=\"").append(e.label).append("\",le=\"").append(le)
            .append("\",model_name=\"").append(mn).append("\"} ")
            .append(PromFormat.pyFloat(cum[i])).append('\n');
      }
      series(sb, name + "_count", e.label, mn, hist.count());
      series(sb, name + "_sum", e.label, mn, hist.sum());
    }
    createdFamily(sb, created, name + "_created", help, es, mn);
  }

  /**
   * Renders dcgm-exporter's {@code /metrics} (served on {@code /dcgm/metrics}): one GPU per engine
   * ({@code gpu="0"} runs {@code engine="0"}), utilisation from the model, framebuffer as vLLM
   * preallocates it (about 90% used whatever the load).
   *
   * @param m the model (caller holds its lock)
   * @param hostname value of the {@code Hostname} label; the simulator's host name so that the
   *     same-host join with the vLLM target works
   * @return the exposition text
   */
  public static String dcgm(SimulationModel m, String hostname) {
    StringBuilder sb = new StringBuilder(16 * 1024);
    List<SimulationModel.Engine> es = m.engines();
    List<String> labels = new ArrayList<>();
    for (SimulationModel.Engine e : es) {
      int i = Integer.parseInt(e.label);
      labels.add("{gpu=\"" + i + "\",UUID=\"" + gpuUuid(i) + "\",pci_bus_id=\""
          + String.format(Locale.ROOT, "00000000:%02X:00.0", 0x19 + 0x22 * i)
          + "\",device=\"nvidia" + i + "\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\""
          + PromFormat.escape(hostname) + "\",DCGM_FI_DRIVER_VERSION=\"570.172.08\","
          + "container=\"vllm\",namespace=\"llm-serving\",pod=\"inferlens-sim-vllm-0\"}");
    }
    dcgmFamily(sb, "DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz).", "gauge", es, labels,
        e -> String.valueOf(e.gpuUtilPercent() > 0 ? 1980 : 345));
    dcgmFamily(sb, "DCGM_FI_DEV_MEM_CLOCK", "Memory clock frequency (in MHz).", "gauge", es, labels,
        e -> "2619");
    dcgmFamily(sb, "DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", "gauge", es, labels,
        e -> String.valueOf(34 + Math.round(0.37 * e.gpuUtilPercent())));
    dcgmFamily(sb, "DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", "gauge", es, labels,
        e -> String.format(Locale.ROOT, "%f", powerWatts(e)));
    dcgmFamily(sb, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION",
        "Total energy consumption since boot (in mJ).", "counter", es, labels,
        e -> String.valueOf(640_000_000_000L + Math.round(e.energyMillijoules)));
    dcgmFamily(sb, "DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", "gauge", es, labels,
        e -> String.valueOf(e.gpuUtilPercent()));
    dcgmFamily(sb, "DCGM_FI_DEV_MEM_COPY_UTIL", "Memory utilization (in %).", "gauge", es, labels,
        e -> String.valueOf(Math.round(0.83 * e.gpuUtilPercent())));
    dcgmFamily(sb, "DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", "gauge", es, labels,
        e -> String.valueOf(FB_TOTAL_MIB - fbUsed(e) - FB_RESERVED_MIB));
    dcgmFamily(sb, "DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", "gauge", es, labels,
        e -> String.valueOf(fbUsed(e)));
    dcgmFamily(sb, "DCGM_FI_DEV_FB_RESERVED", "Framebuffer memory reserved (in MiB).", "gauge", es,
        labels, e -> String.valueOf(FB_RESERVED_MIB));
    dcgmFamily(sb, "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE",
        "Ratio of cycles the tensor (HMMA) pipe is active.", "gauge", es, labels,
        e -> String.format(Locale.ROOT, "%f", 0.62 * e.gpuUtilPercent() / 100.0));
    return sb.toString();
  }

  private static String gpuUuid(int i) {
    return String.format(Locale.ROOT, "GPU-%08x-52d7-4f08-b1c4-7a2e90d5f8%02x", 0x3e9b6c1a + i, i);
  }

  /** Power draw in watts: about 120 W idle, about 700 W at 100% utilisation. */
  static double powerWatts(SimulationModel.Engine e) {
    return 118.4 + 5.83 * e.gpuUtilPercent();
  }

  /** vLLM's preallocation plus a few MiB of activations that move with the batch. */
  private static long fbUsed(SimulationModel.Engine e) {
    return FB_USED_BASE_MIB + Math.round(1.8 * e.running());
  }

  private interface EngineText {
    String get(SimulationModel.Engine e);
  }

  private static void dcgmFamily(StringBuilder sb, String name, String help, String type,
      List<SimulationModel.Engine> es, List<String> labels, EngineText v) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
    for (int i = 0; i < es.size(); i++) {
      sb.append(name).append(labels.get(i)).append(' ').append(v.get(es.get(i))).append('\n');
    }
  }

  /**
   * Renders kafka_exporter's {@code /metrics} (served on {@code /kafka/metrics}) for the topic
   * {@code llm-requests} and its consumer group {@code inference-dispatcher}: families sorted by
   * name, label names sorted, series sorted by label values as strings (partition "10" before
   * "2"), Go number formatting.
   *
   * @param m the model (caller holds its lock)
   * @return the exposition text
   */
  public static String kafka(SimulationModel m) {
    SimulationModel.Kafka k = m.kafka();
    StringBuilder sb = new StringBuilder(16 * 1024);
    String group = "inference-dispatcher";
    String topic = "llm-requests";
    int n = SimulationModel.KAFKA_PARTITIONS;
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      parts.add(Integer.toString(i));
    }
    parts.sort(null);

    header(sb, "kafka_broker_info", "Information about the Kafka Broker.");
    for (int b = 0; b < 3; b++) {
      sb.append("kafka_broker_info{address=\"kafka-").append(b)
          .append(".kafka-headless.streaming.svc:9092\",id=\"").append(b).append("\"} 1\n");
    }
    header(sb, "kafka_brokers", "Number of Brokers in the Kafka Cluster.");
    sb.append("kafka_brokers 3\n");
    header(sb, "kafka_consumergroup_current_offset",
        "Current Offset of a ConsumerGroup at Topic/Partition");
    long committedSum = 0;
    long lagSum = 0;
    for (String p : parts) {
      int i = Integer.parseInt(p);
      sb.append("kafka_consumergroup_current_offset{consumergroup=\"").append(group)
          .append("\",partition=\"").append(p).append("\",topic=\"").append(topic).append("\"} ")
          .append(PromFormat.goFloat(k.committed[i])).append('\n');
      committedSum += k.committed[i];
      lagSum += k.lag(i);
    }
    header(sb, "kafka_consumergroup_current_offset_sum",
        "Current Offset of a ConsumerGroup at Topic for all partitions");
    sb.append("kafka_consumergroup_current_offset_sum{consumergroup=\"").append(group)
        .append("\",topic=\"").append(topic).append("\"} ").append(PromFormat.goFloat(committedSum))
        .append('\n');
    header(sb, "kafka_consumergroup_lag",
        "Current Approximate Lag of a ConsumerGroup at Topic/Partition");
    for (String p : parts) {
      sb.append("kafka_consumergroup_lag{consumergroup=\"").append(group).append("\",partition=\"")
          .append(p).append("\",topic=\"").append(topic).append("\"} ")
          .append(PromFormat.goFloat(k.lag(Integer.parseInt(p)))).append('\n');
    }
    header(sb, "kafka_consumergroup_lag_sum",
        "Current Approximate Lag of a ConsumerGroup at Topic for all partitions");
    sb.append("kafka_consumergroup_lag_sum{consumergroup=\"").append(group).append("\",topic=\"")
        .append(topic).append("\"} ").append(PromFormat.goFloat(lagSum)).append('\n');
    header(sb, "kafka_consumergroup_members", "Amount of members in a consumer group");
    sb.append("kafka_consumergroup_members{consumergroup=\"").append(group).append("\"} 4\n");
    partitionFamily(sb, "kafka_topic_partition_current_offset",
        "Current Offset of a Broker at Topic/Partition", parts, topic, i -> k.endOffsets[i]);
    partitionFamily(sb, "kafka_topic_partition_in_sync_replica",
        "Number of In-Sync Replicas for this Topic/Partition", parts, topic, i -> 3);
    partitionFamily(sb, "kafka_topic_partition_leader", "Leader Broker ID of this Topic/Partition",
        parts, topic, i -> i % 3);
    partitionFamily(sb, "kafka_topic_partition_leader_is_preferred",
        "1 if Topic/Partition is using the Preferred Broker", parts, topic, i -> 1);
    partitionFamily(sb, "kafka_topic_partition_oldest_offset",
        "Oldest Offset of a Broker at Topic/Partition", parts, topic, i -> k.oldest[i]);
    partitionFamily(sb, "kafka_topic_partition_replicas",
        "Number of Replicas for this Topic/Partition", parts, topic, i -> 3);
    partitionFamily(sb, "kafka_topic_partition_under_replicated_partition",
        "1 if Topic/Partition is under Replicated", parts, topic, i -> 0);
    header(sb, "kafka_topic_partitions", "Number of partitions for this Topic");
    sb.append("kafka_topic_partitions{topic=\"").append(topic).append("\"} ").append(n)
        .append('\n');
    return sb.toString();
  }

  private interface PartitionValue {
    double get(int partition);
  }

  private static void header(StringBuilder sb, String name, String help) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(" gauge\n");
  }

  private static void partitionFamily(StringBuilder sb, String name, String help,
      List<String> parts, String topic, PartitionValue v) {
    header(sb, name, help);
    for (String p : parts) {
      sb.append(name).append("{partition=\"").append(p).append("\",topic=\"").append(topic)
          .append("\"} ").append(PromFormat.goFloat(v.get(Integer.parseInt(p)))).append('\n');
    }
  }
}
