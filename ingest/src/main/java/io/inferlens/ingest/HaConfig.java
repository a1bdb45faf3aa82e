package io.inferlens.ingest;

import java.util.Objects;

/**
 * Deduplication of Prometheus HA pairs ({@code --ha.cluster-label}, {@code --ha.replica-label},
 * {@code --ha.failover-timeout}, {@code --ha.max-clusters}): of the replicas that send the same
 * cluster label value, samples are accepted from one elected replica only, as Grafana Mimir's
 * distributor HA tracker does ({@code pkg/distributor/ha_tracker.go}; the rules are on
 * {@link HaTracker}). Off by default ({@link #OFF}); both label names are given or neither.
 *
 * @param clusterLabel the label whose value names an HA cluster (Mimir's {@code ha_cluster_label},
 *     usually {@code cluster}); kept on stored series; null when off
 * @param replicaLabel the label whose value names the replica within its cluster (Mimir's
 *     {@code ha_replica_label}, usually {@code __replica__}); removed before storing; null when
 *     off
 * @param failoverTimeoutMs how long, in milliseconds, after the elected replica's last accepted
 *     write another replica of its cluster takes over, &gt; 0 (Mimir's
 *     {@code ha_tracker_failover_timeout}, default 30 s)
 * @param maxClusters most clusters tracked at once, ≥ 0, 0 = no limit (Mimir's
 *     {@code ha_max_clusters}, default 100); a request of a further cluster answers 400
 */
public record HaConfig(String clusterLabel, String replicaLabel, long failoverTimeoutMs,
    int maxClusters) {

  /** The flag of {@link #clusterLabel}, as messages name it. */
  public static final String FLAG_CLUSTER_LABEL = "--ha.cluster-label";
  /** The flag of {@link #replicaLabel}. */
  public static final String FLAG_REPLICA_LABEL = "--ha.replica-label";
  /** The flag of {@link #failoverTimeoutMs}. */
  public static final String FLAG_FAILOVER_TIMEOUT = "--ha.failover-timeout";
  /** The flag of {@link #maxClusters}. */
  public static final String FLAG_MAX_CLUSTERS = "--ha.max-clusters";

  /** 30 s, Mimir's default failover timeout. */
  public static final long DEFAULT_FAILOVER_TIMEOUT_MS = 30_000L;
  /** 100, Mimir's default {@code -distributor.ha-tracker.max-clusters}. */
  public static final int DEFAULT_MAX_CLUSTERS = 100;

  /** No deduplication: every request is stored as it came. */
  public static final HaConfig OFF =
      new HaConfig(null, null, DEFAULT_FAILOVER_TIMEOUT_MS, DEFAULT_MAX_CLUSTERS);

  /**
   * @throws IllegalArgumentException naming the flag: one label name without the other, an empty
   *     name, both the same, {@code __name__}, a failover timeout ≤ 0, a negative cluster limit
   */
  public HaConfig {
    if ((clusterLabel == null) != (replicaLabel == null)) {
      throw new IllegalArgumentException(FLAG_CLUSTER_LABEL + " and " + FLAG_REPLICA_LABEL
          + " go together: give both or neither (got "
          + (clusterLabel == null ? FLAG_REPLICA_LABEL : FLAG_CLUSTER_LABEL) + " only)");
    }
    if (clusterLabel != null) {
      checkName(FLAG_CLUSTER_LABEL, clusterLabel);
      checkName(FLAG_REPLICA_LABEL, replicaLabel);
      if (clusterLabel.equals(replicaLabel)) {
        throw new IllegalArgumentException(FLAG_CLUSTER_LABEL + " and " + FLAG_REPLICA_LABEL
            + " must differ, both are \"" + clusterLabel + "\"");
      }
    }
    if (failoverTimeoutMs <= 0) {
      throw new IllegalArgumentException(FLAG_FAILOVER_TIMEOUT + " must be > 0, got "
          + failoverTimeoutMs + " ms");
    }
    if (maxClusters < 0) {
      throw new IllegalArgumentException(FLAG_MAX_CLUSTERS + " must be >= 0 (0 = no limit), got "
          + maxClusters);
    }
  }

  private static void checkName(String flag, String name) {
    Objects.requireNonNull(name, flag);
    if (name.isEmpty()) {
      throw new IllegalArgumentException(flag + " must not be empty");
    }
    if (name.equals(io.inferlens.storage.LabelSet.METRIC_NAME)) {
      throw new IllegalArgumentException(flag + " must not be __name__, the metric name");
    }
  }

  /**
   * @param cluster the cluster label's name
   * @param replica the replica label's name
   * @return deduplication on with these labels, Mimir's default failover timeout and cluster
   *     limit
   * @throws IllegalArgumentException as the constructor
   */
  public static HaConfig of(String cluster, String replica) {
    return new HaConfig(cluster, replica, DEFAULT_FAILOVER_TIMEOUT_MS, DEFAULT_MAX_CLUSTERS);
  }

  /** @return whether deduplication is off (no label names) */
  public boolean isOff() {
    return clusterLabel == null;
  }

  /**
   * Whether a request's first series decides it as an HA write (Mimir's {@code checkSample}):
   * both labels non-empty and the replica's value within the label value limit.
   *
   * @param cluster the cluster label's value on the first series, null or "" when absent
   * @param replica the replica label's value on it, null or "" when absent
   * @param maxLabelValueLength {@code --limits.max-label-value-length}, UTF-8 bytes
   * @return whether the HA tracker decides the request
   */
  static boolean decides(String cluster, String replica, int maxLabelValueLength) {
    return cluster != null && !cluster.isEmpty() && replica != null && !replica.isEmpty()
        && utf8Length(replica) <= maxLabelValueLength;
  }

  private static long utf8Length(String s) {
    long n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      n += c < 0x80 ? 1 : c < 0x800 ? 2 : Character.isSurrogate(c) ? 2 : 3;
    }
    return n;
  }
}
