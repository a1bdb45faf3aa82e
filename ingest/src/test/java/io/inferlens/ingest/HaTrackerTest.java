package io.inferlens.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferlens.ingest.HaTracker.Decision;
import io.inferlens.ingest.HaTracker.Election;
import io.inferlens.ingest.HaTracker.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The election rules of {@link HaTracker} at their boundaries (Mimir's HA tracker). */
class HaTrackerTest {

  private static final long T0 = 1_764_000_000_000L;
  private static final long TIMEOUT = 30_000L;

  private final HaTracker tracker =
      new HaTracker(new HaConfig("cluster", "__replica__", TIMEOUT, 3));

  @Test
  void firstWriterIsElectedAndTheOtherReplicaIsDropped() {
    assertThat(tracker.check("c1", "a", T0)).isEqualTo(new Decision(Outcome.ACCEPTED, "a"));
    assertThat(tracker.check("c1", "b", T0 + 1))
        .isEqualTo(new Decision(Outcome.DEDUPLICATED, "a"));
    assertThat(tracker.check("c1", "a", T0 + 2)).isEqualTo(new Decision(Outcome.ACCEPTED, "a"));
  }

  @Test
  void failoverOneMsBeforeAtAndOnePastTheTimeout() {
    tracker.check("c1", "a", T0);
    // Measured from the elected replica's last accepted write, not its first.
    tracker.check("c1", "a", T0 + 10_000);
    long last = T0 + 10_000;
    assertThat(tracker.check("c1", "b", last + TIMEOUT - 1).outcome())
        .isEqualTo(Outcome.DEDUPLICATED);
    // Exactly at the timeout: Mimir's "now - receivedAt < failoverTimeout" no longer holds.
    assertThat(tracker.check("c1", "b", last + TIMEOUT))
        .isEqualTo(new Decision(Outcome.ACCEPTED, "b"));
    // Now a is the one dropped, until b has been silent for the timeout in turn.
    assertThat(tracker.check("c1", "a", last + TIMEOUT + 1))
        .isEqualTo(new Decision(Outcome.DEDUPLICATED, "b"));
    assertThat(tracker.elections(last + TIMEOUT + 1))
        .containsExactly(new Election("c1", "b", last + TIMEOUT, 1));
  }

  @Test
  void oneMsPastTheTimeoutTakesOver() {
    tracker.check("c1", "a", T0);
    assertThat(tracker.check("c1", "b", T0 + TIMEOUT + 1))
        .isEqualTo(new Decision(Outcome.ACCEPTED, "b"));
  }

  @Test
  void droppedWritesDoNotKeepTheirReplicaAliveNorDelayFailover() {
    tracker.check("c1", "a", T0);
    for (long t = T0 + 1_000; t < T0 + TIMEOUT; t += 1_000) {
      assertThat(tracker.check("c1", "b", t).outcome()).isEqualTo(Outcome.DEDUPLICATED);
    }
    assertThat(tracker.check("c1", "b", T0 + TIMEOUT).outcome()).isEqualTo(Outcome.ACCEPTED);
  }

  @Test
  void clustersAreIndependent() {
    tracker.check("c1", "a", T0);
    assertThat(tracker.check("c2", "b", T0 + 1)).isEqualTo(new Decision(Outcome.ACCEPTED, "b"));
    assertThat(tracker.check("c2", "a", T0 + 2).outcome()).isEqualTo(Outcome.DEDUPLICATED);
    assertThat(tracker.check("c1", "b", T0 + 3).outcome()).isEqualTo(Outcome.DEDUPLICATED);
    // c1's leader keeps writing; c2's stops: only c2 fails over.
    tracker.check("c1", "a", T0 + TIMEOUT);
    assertThat(tracker.check("c2", "a", T0 + 1 + TIMEOUT).outcome()).isEqualTo(Outcome.ACCEPTED);
    assertThat(tracker.check("c1", "b", T0 + 1 + TIMEOUT).outcome())
        .isEqualTo(Outcome.DEDUPLICATED);
    assertThat(tracker.elections(T0 + 1 + TIMEOUT)).containsExactly(
        new Election("c1", "a", T0 + TIMEOUT, 0), new Election("c2", "a", T0 + 1 + TIMEOUT, 1));
  }

  @Test
  void clusterLimitRefusesOneMoreUntilAClusterIsIdleForThirtyMinutes() {
    tracker.check("c1", "a", T0);
    tracker.check("c2", "a", T0);
    tracker.check("c3", "a", T0 + 1);
    assertThat(tracker.check("c4", "a", T0 + 2))
        .isEqualTo(new Decision(Outcome.TOO_MANY_CLUSTERS, null));
    // Known clusters still work at the limit.
    assertThat(tracker.check("c1", "b", T0 + 3).outcome()).isEqualTo(Outcome.DEDUPLICATED);
    tracker.check("c3", "a", T0 + HaTracker.IDLE_FORGET_MS - 1);
    tracker.check("c1", "a", T0 + HaTracker.IDLE_FORGET_MS - 1);
    // c2 has been idle exactly 30 minutes: forgotten, its place taken.
    assertThat(tracker.check("c4", "a", T0 + HaTracker.IDLE_FORGET_MS).outcome())
        .isEqualTo(Outcome.ACCEPTED);
    assertThat(tracker.elections(T0 + HaTracker.IDLE_FORGET_MS)).extracting(Election::cluster)
        .containsExactly("c1", "c3", "c4");
    // A forgotten cluster elects its first writer again, as after a restart.
    assertThat(tracker.elections(T0 + 2 * HaTracker.IDLE_FORGET_MS)).isEmpty();
    assertThat(tracker.check("c2", "b", T0 + 2 * HaTracker.IDLE_FORGET_MS))
        .isEqualTo(new Decision(Outcome.ACCEPTED, "b"));
  }

  @Test
  void noClusterLimitWithZero() {
    HaTracker unlimited = new HaTracker(new HaConfig("cluster", "__replica__", TIMEOUT, 0));
    for (int i = 0; i < 500; i++) {
      assertThat(unlimited.check("c" + i, "a", T0).outcome()).isEqualTo(Outcome.ACCEPTED);
    }
    assertThat(unlimited.elections(T0)).hasSize(500);
  }

  @Test
  void concurrentFirstWritesOfTwoReplicasElectExactlyOne() throws Exception {
    HaTracker t = new HaTracker(new HaConfig("cluster", "__replica__", TIMEOUT, 0));
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      for (int round = 0; round < 200; round++) {
        String cluster = "c" + round;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Decision>> futures = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
          String replica = k % 2 == 0 ? "a" : "b";
          futures.add(pool.submit(() -> {
            start.await();
            return t.check(cluster, replica, T0);
          }));
        }
        start.countDown();
        List<String> accepted = new ArrayList<>();
        for (Future<Decision> f : futures) {
          Decision d = f.get(10, TimeUnit.SECONDS);
          if (d.outcome() == Outcome.ACCEPTED) {
            accepted.add(d.elected());
          }
        }
        assertThat(accepted).isNotEmpty();
        assertThat(accepted).containsOnly(accepted.get(0));
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void configNeedsBothLabelsOrNeither() {
    assertThat(HaConfig.OFF.isOff()).isTrue();
    assertThatThrownBy(() -> new HaConfig("cluster", null, TIMEOUT, 100))
        .hasMessageContaining("--ha.cluster-label and --ha.replica-label go together")
        .hasMessageContaining("got --ha.cluster-label only");
    assertThatThrownBy(() -> new HaConfig(null, "__replica__", TIMEOUT, 100))
        .hasMessageContaining("got --ha.replica-label only");
    assertThatThrownBy(() -> HaConfig.of("x", "x")).hasMessageContaining("must differ");
    assertThatThrownBy(() -> HaConfig.of("", "r"))
        .hasMessageContaining("--ha.cluster-label must not be empty");
    assertThatThrownBy(() -> HaConfig.of("c", "__name__"))
        .hasMessageContaining("--ha.replica-label must not be __name__");
    assertThatThrownBy(() -> new HaConfig("c", "r", 0, 100))
        .hasMessageContaining("--ha.failover-timeout must be > 0, got 0 ms");
    assertThatThrownBy(() -> new HaConfig("c", "r", 1, -1))
        .hasMessageContaining("--ha.max-clusters must be >= 0");
    assertThatThrownBy(() -> new HaTracker(HaConfig.OFF))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
