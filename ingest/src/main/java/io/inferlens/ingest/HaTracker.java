package io.inferlens.ingest;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The elected replica of every HA cluster, and whether a write of a given replica is accepted.
 * The rules are Grafana Mimir's HA tracker ({@code pkg/distributor/ha_tracker.go},
 * {@code checkReplica} and {@code checkKVStore}), read for the write at time {@code now}:
 *
 * <ol>
 *   <li>a cluster not tracked yet elects the replica of its first write, which is accepted
 *       (unless {@link HaConfig#maxClusters()} clusters are tracked already: refused);
 *   <li>a write of the elected replica is accepted and becomes its last accepted write;
 *   <li>a write of another replica is dropped while {@code now - lastAccepted <
 *       failoverTimeout}; once {@code now - lastAccepted >= failoverTimeout} (exactly at the
 *       timeout included, as Mimir's {@code <} comparison) that replica is elected, its write
 *       accepted.
 * </ol>
 *
 * <p>Differences from Mimir, each because one process needs no more: the state is in memory, not
 * in a KV store shared by distributors, so a restart forgets every election and the first
 * writer after it wins; Mimir writes the last-accepted time to its KV store at most every
 * {@code ha_tracker_update_timeout} (15 s ± jitter), so its failover can come up to that much
 * before the failover timeout, while here every accepted write updates it and failover comes
 * exactly {@code failoverTimeout} after the elected replica's last accepted write. A cluster
 * with no accepted write for {@link #IDLE_FORGET_MS} is forgotten (Mimir deletes such replicas
 * from its KV store after 30 minutes, and again lets the first writer win); it is forgotten when
 * {@link #elections} is read or a new cluster needs room under the cluster limit.
 *
 * <p>Thread safety: thread safe. Each cluster's state is guarded by its own monitor, so
 * concurrent writes of one cluster are decided one at a time and two replicas are never both
 * elected; new clusters are admitted under one lock (rare).
 */
public final class HaTracker {

  /** 30 minutes: a cluster without an accepted write for this long is forgotten. */
  public static final long IDLE_FORGET_MS = 30L * 60_000L;

  /** What {@link #check} decided. */
  public enum Outcome {
    /** The replica is (now) the elected one: store the write. */
    ACCEPTED,
    /** Another replica is elected and wrote within the failover timeout: drop the write. */
    DEDUPLICATED,
    /** A cluster not tracked yet, beyond {@link HaConfig#maxClusters()}: refuse (400). */
    TOO_MANY_CLUSTERS
  }

  /**
   * @param outcome what to do with the write
   * @param elected the cluster's elected replica after the decision; null for
   *     {@link Outcome#TOO_MANY_CLUSTERS}
   */
  public record Decision(Outcome outcome, String elected) {}

  /**
   * One cluster's election, for metrics.
   *
   * @param cluster the cluster label's value
   * @param replica its elected replica
   * @param lastAcceptedMs when its last write was accepted, milliseconds since the epoch, on the
   *     clock the writes were checked with
   * @param changes how often the elected replica changed (failovers), ≥ 0; the first election
   *     is not a change
   */
  public record Election(String cluster, String replica, long lastAcceptedMs, long changes) {}

  /** A cluster's state; fields guarded by the object's monitor. */
  private static final class State {
    String replica;
    long lastAcceptedMs;
    long changes;

    State(String replica, long lastAcceptedMs) {
      this.replica = replica;
      this.lastAcceptedMs = lastAcceptedMs;
    }
  }

  private final HaConfig config;
  private final Map<String, State> clusters = new ConcurrentHashMap<>();
  /** Guards the admission of new clusters, so the cluster limit holds. */
  private final Object admission = new Object();

  /**
   * @param config the labels, failover timeout and cluster limit; must not be off
   * @throws IllegalArgumentException if {@code config} is off
   */
  public HaTracker(HaConfig config) {
    this.config = Objects.requireNonNull(config, "config");
    if (config.isOff()) {
      throw new IllegalArgumentException("HA deduplication is off: no tracker needed");
    }
  }

  /** @return the configuration */
  public HaConfig config() {
    return config;
  }

  /**
   * Decides one write (a whole request: Mimir decides per request) and records it.
   *
   * @param cluster the cluster label's value, non-empty
   * @param replica the replica label's value, non-empty
   * @param nowMs the time of the write, milliseconds since the epoch (the receiver's clock)
   * @return the decision; never null
   */
  public Decision check(String cluster, String replica, long nowMs) {
    State s = clusters.get(cluster);
    if (s == null) {
      synchronized (admission) {
        s = clusters.get(cluster);
        if (s == null) {
          int max = config.maxClusters();
          if (max > 0 && clusters.size() >= max) {
            forgetIdle(nowMs);
            if (clusters.size() >= max) {
              return new Decision(Outcome.TOO_MANY_CLUSTERS, null);
            }
          }
          clusters.put(cluster, new State(replica, nowMs));
          return new Decision(Outcome.ACCEPTED, replica);
        }
      }
    }
    synchronized (s) {
      if (s.replica.equals(replica)) {
        // max: a request that read the clock earlier but got here later must not move it back.
        s.lastAcceptedMs = Math.max(s.lastAcceptedMs, nowMs);
        return new Decision(Outcome.ACCEPTED, replica);
      }
      if (nowMs - s.lastAcceptedMs < config.failoverTimeoutMs()) {
        return new Decision(Outcome.DEDUPLICATED, s.replica);
      }
      s.replica = replica;
      s.lastAcceptedMs = nowMs;
      s.changes++;
      return new Decision(Outcome.ACCEPTED, replica);
    }
  }

  /**
   * Forgets the clusters idle for {@link #IDLE_FORGET_MS}, then lists the others.
   *
   * @param nowMs now, milliseconds since the epoch, on the clock writes are checked with
   * @return every tracked cluster's election, sorted by cluster
   */
  public List<Election> elections(long nowMs) {
    forgetIdle(nowMs);
    List<Election> out = new ArrayList<>(clusters.size());
    for (Map.Entry<String, State> e : clusters.entrySet()) {
      State s = e.getValue();
      synchronized (s) {
        out.add(new Election(e.getKey(), s.replica, s.lastAcceptedMs, s.changes));
      }
    }
    out.sort(Comparator.comparing(Election::cluster));
    return out;
  }

  private void forgetIdle(long nowMs) {
    clusters.entrySet().removeIf(e -> {
      State s = e.getValue();
      synchronized (s) {
        return nowMs - s.lastAcceptedMs >= IDLE_FORGET_MS;
      }
    });
  }
}
