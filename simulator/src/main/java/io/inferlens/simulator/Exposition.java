package io.inferlens.simulator;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Renders a {@link SimulationModel}'s GPU and upstream-queue exporters as Prometheus text
 * exposition (format 0.0.4) in the exact shape of the repository's fixtures ({@code fixtures/}):
 * dcgm-exporter 4.x ({@code dcgm-exporter.prom}: label order, {@code %d}/{@code %f} values) and
 * kafka_exporter ({@code kafka-exporter.prom}: families and series sorted as Go does, Go number
 * format). The serving engine's own {@code /metrics} is rendered per {@link Stack}. Callers hold
 * the model's lock while rendering.
 */
public final class Exposition {

  /** Total framebuffer of the simulated GPU (NVIDIA H100 80GB HBM3), MiB. */
  public static final long FB_TOTAL_MIB = 81559;
  /** Framebuffer reserved by the driver, MiB. */
  public static final long FB_RESERVED_MIB = 529;
  /** Framebuffer used by the engine: preallocated at {@code --gpu-memory-utilization 0.9}, MiB. */
  public static final long FB_USED_BASE_MIB = 74203;

  private Exposition() {}

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
