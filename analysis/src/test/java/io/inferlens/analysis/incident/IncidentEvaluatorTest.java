package io.inferlens.analysis.incident;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferlens.analysis.catalog.SignalCatalog;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.target.TargetConfig;
import io.inferlens.storage.StoreOptions;
import io.inferlens.storage.TimeSeriesStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The always-on evaluator over a real store, with time moved by hand and samples written as a
 * scraper would have sent them by then: incremental evaluation gives the on-demand answer, the
 * first incident comes within one interval of its condition holding for {@code for}, silence
 * keeps an incident open (stale) and resolves nothing, all targets going quiet at once is one
 * REMOTE_WRITE_STOPPED, the journal survives a restart with the same ids, and a period already
 * in progress when a backfilled target is first seen is one incident with its exact start.
 */
class IncidentEvaluatorTest {

  static final long STEP = SimulatedEngine.STEP;
  static final long T0 = 1_790_000_000_000L / 3_600_000L * 3_600_000L;
  static final long HOUR = 3_600_000L;
  static final AnalysisConfig CONFIG = AnalysisConfig.defaults()
      .withTiming(STEP, 300_000, 300_000, 1_800_000, 900_000);

  @TempDir Path dir;
  final MutableClock clock = new MutableClock(T0);
  TimeSeriesStore store;
  DiagnosisEngine engine;
  IncidentJournal journal;
  IncidentEvaluator evaluator;
  final List<List<Diagnosis>> told = new ArrayList<>();

  void open() throws Exception {
    store = TimeSeriesStore.open(StoreOptions.defaults(dir), clock);
    engine = new DiagnosisEngine(store, SignalCatalog.load(), TargetConfig.defaults(), CONFIG,
        clock);
    journal = IncidentJournal.open(store.journal());
    evaluator = new IncidentEvaluator(engine, store, journal, clock,
        (incidents, now) -> told.add(incidents));
  }

  @AfterEach
  void close() {
    if (store != null) {
      store.close();
    }
  }

  /** Moves the clock to {@code until} in 15 s evaluation intervals, writing scrapes as it goes. */
  void run(long until, SimulatedEngine... engines) throws Exception {
    while (clock.ms < until) {
      long next = clock.ms + 15_000;
      for (SimulatedEngine e : engines) {
        // A sample is sent 5 s after its scrape, as a remote-write batch deadline would.
        e.write(store, Math.floorDiv(clock.ms - 5_000, STEP) * STEP + STEP,
            Math.floorDiv(next - 5_000, STEP) * STEP + STEP);
      }
      clock.ms = next;
      evaluator.evaluate();
    }
  }

  static SimulatedEngine saturatedFrom(String host, long faultMs, long recoverMs) {
    SimulatedEngine e = new SimulatedEngine(host, "m1");
    e.e2e = t -> t >= faultMs && t < recoverMs ? 12 : 2.0 + 0.05 * Math.sin(t / 60_000.0);
    e.waiting = t -> t >= faultMs && t < recoverMs ? 20 : 0;
    e.gpu = t -> t >= faultMs && t < recoverMs ? 99 : 50;
    e.kv = t -> t >= faultMs && t < recoverMs ? 0.95 : 0.3;
    return e;
  }

  @Test
  void incrementalEvaluationOpensOnTimeStaysOpenThroughSilenceAndResolvesOnRecovery()
      throws Exception {
    open();
    long fault = T0 + 2 * HOUR;
    SimulatedEngine a = saturatedFrom("a", fault, T0 + 3 * HOUR);
    a.write(store, T0 - HOUR, T0); // an hour of history before the evaluator starts
    run(fault + 20 * 60_000L, a);
    List<Incident> open = journal.openIncidents();
    assertThat(open).extracting(i -> i.diagnosis().cause())
        .containsExactly(Cause.CAPACITY_EXHAUSTED);
    Incident inc = open.get(0);
    // Opened within one interval (plus the grace) of the condition holding for `for`.
    long held = inc.diagnosis().startMs() + CONFIG.forMs();
    assertThat(inc.openedAtMs() - held)
        .isLessThanOrEqualTo(15_000 + engine.silenceGraceMs() + STEP);
    // The same range on demand gives the same incident.
    List<Diagnosis> onDemand = engine.diagnoses(T0, clock.ms - engine.silenceGraceMs(),
        List.of());
    assertThat(onDemand).extracting(Diagnosis::id).containsExactly(inc.id());
    assertThat(told.get(told.size() - 1)).extracting(Diagnosis::id).contains(inc.id());

    // The sender goes quiet for 15 minutes: still open, marked stale, nothing resolved.
    long quietUntil = clock.ms + 15 * 60_000L;
    run(quietUntil);
    assertThat(journal.openIncidents()).extracting(Incident::id).contains(inc.id());
    assertThat(journal.get(inc.id()).diagnosis().stale()).isTrue();
    assertThat(journal.get(inc.id()).diagnosis().endMs()).isNull();
    // The silence itself is one condition of the sender, naming its last sample.
    List<Incident> stopped = journal.list(T0, clock.ms,
        d -> d.cause() == Cause.REMOTE_WRITE_STOPPED);
    assertThat(stopped).hasSize(1);
    assertThat(stopped.get(0).open()).isTrue();
    assertThat(stopped.get(0).diagnosis().summary()).contains("since the last sample at");

    // A restart: the journal is read back and the evaluator goes on with the same incident.
    store.close();
    store = null;
    open();
    assertThat(journal.get(inc.id())).isNotNull();
    // Data resumes (still saturated), then recovers at T0 + 3 h.
    run(T0 + 3 * HOUR + 20 * 60_000L, a);
    Incident done = journal.get(inc.id());
    assertThat(done.diagnosis().endMs()).isNotNull();
    assertThat(done.diagnosis().endMs()).isBetween(T0 + 3 * HOUR - 5 * 60_000L,
        T0 + 3 * HOUR + 10 * 60_000L);
    assertThat(done.resolvedAtMs()).isNotNull();
    assertThat(journal.openIncidents()).isEmpty();
    // One fault, one incident; the silence was the sender's, and it ended when data resumed.
    assertThat(journal.list(T0, clock.ms, d -> true)).extracting(i -> i.diagnosis().cause())
        .containsExactly(Cause.CAPACITY_EXHAUSTED, Cause.REMOTE_WRITE_STOPPED);
    assertThat(journal.list(T0, clock.ms, d -> d.cause() == Cause.MONITORING_GAP)).isEmpty();
  }

  /**
   * The sender is down three minutes and its scrapes are lost (a hole), or it replays them when
   * it comes back: either way one fault stays one incident, the silence is one
   * REMOTE_WRITE_STOPPED that ends when delivery resumes, and no target has a gap.
   */
  @Test
  void anOutageAndARestartKeepOneIncidentAndOneStoppedCondition() throws Exception {
    for (boolean replay : new boolean[] {false, true}) {
      if (store != null) {
        store.close();
      }
      dir = java.nio.file.Files.createTempDirectory(dir, "run");
      clock.ms = T0;
      open();
      long fault = T0 + 30 * 60_000L;
      SimulatedEngine a = saturatedFrom("a", fault, Long.MAX_VALUE);
      SimulatedEngine b = saturatedFrom("b", Long.MAX_VALUE, Long.MAX_VALUE);
      a.write(store, T0 - 2 * HOUR, T0);
      b.write(store, T0 - 2 * HOUR, T0);
      run(fault + 15 * 60_000L, a, b);
      List<Incident> open = journal.openIncidents();
      assertThat(open).extracting(i -> i.diagnosis().cause())
          .containsExactly(Cause.CAPACITY_EXHAUSTED);
      String id = open.get(0).id();
      long outage = clock.ms;
      run(outage + 3 * 60_000L); // nothing arrives
      assertThat(journal.openIncidents()).extracting(i -> i.diagnosis().cause())
          .containsExactlyInAnyOrder(Cause.CAPACITY_EXHAUSTED, Cause.REMOTE_WRITE_STOPPED);
      assertThat(journal.get(id).diagnosis().stale()).isTrue();
      if (replay) {
        // Back, the sender first sends what it kept of the outage.
        a.write(store, outage - 10_000L, clock.ms - 5_000L);
        b.write(store, outage - 10_000L, clock.ms - 5_000L);
      }
      run(clock.ms + 10 * 60_000L, a, b);
      assertThat(journal.openIncidents()).as("replay %s", replay).extracting(Incident::id)
          .containsExactly(id);
      assertThat(journal.get(id).diagnosis().stale()).isFalse();
      List<Incident> all = journal.list(T0, clock.ms, d -> true);
      assertThat(all).as("replay %s", replay).extracting(i -> i.diagnosis().cause())
          .containsExactlyInAnyOrder(Cause.CAPACITY_EXHAUSTED, Cause.REMOTE_WRITE_STOPPED);
      Diagnosis stopped = all.stream().map(Incident::diagnosis)
          .filter(d -> d.cause() == Cause.REMOTE_WRITE_STOPPED).findFirst().orElseThrow();
      assertThat(stopped.startMs()).isBetween(outage - 30_000L, outage + STEP);
      assertThat(stopped.endMs()).isBetween(outage + 2 * 60_000L, outage + 4 * 60_000L);
    }
  }

  /** A period whose majority cause changes as it goes on stays one incident with one id. */
  @Test
  void aPeriodWhoseCauseSharpensStaysOneIncident() throws Exception {
    open();
    long fault = T0 + HOUR;
    SimulatedEngine a = saturatedFrom("a", fault, fault + 40 * 60_000L);
    // The queue builds while the GPU has headroom, then the GPU saturates too.
    a.gpu = t -> t >= fault + 8 * 60_000L && t < fault + 40 * 60_000L ? 99 : 60;
    a.kv = t -> 0.3;
    a.write(store, T0 - 2 * HOUR, T0);
    run(fault + 8 * 60_000L, a);
    List<Incident> first = journal.openIncidents();
    assertThat(first).extracting(i -> i.diagnosis().cause())
        .containsExactly(Cause.CONCURRENCY_LIMIT);
    run(fault + 30 * 60_000L, a);
    List<Incident> all = journal.list(T0, clock.ms, d -> true);
    assertThat(all).extracting(i -> i.diagnosis().cause())
        .containsExactly(Cause.CAPACITY_EXHAUSTED);
    assertThat(all.get(0).id()).isEqualTo(first.get(0).id());
    assertThat(all.get(0).diagnosis().startMs()).isEqualTo(first.get(0).diagnosis().startMs());
    assertThat(all.get(0).diagnosis().endMs()).isNull();
  }

  @Test
  void everyTargetQuietAtOnceIsOneRemoteWriteStoppedNotAGapEach() throws Exception {
    open();
    SimulatedEngine a = saturatedFrom("a", Long.MAX_VALUE, Long.MAX_VALUE);
    SimulatedEngine b = saturatedFrom("b", Long.MAX_VALUE, Long.MAX_VALUE);
    a.write(store, T0 - 2 * HOUR, T0);
    b.write(store, T0 - 2 * HOUR, T0);
    run(T0 + 10 * 60_000L, a, b);
    assertThat(journal.size()).isZero(); // healthy: silent
    run(T0 + 25 * 60_000L); // nobody sends
    List<Incident> open = journal.openIncidents();
    assertThat(open).extracting(i -> i.diagnosis().cause())
        .containsExactly(Cause.REMOTE_WRITE_STOPPED);
    assertThat(open.get(0).diagnosis().target()).containsEntry("job", "vllm")
        .doesNotContainKey("instance");
    assertThat(journal.list(T0, clock.ms, d -> d.cause() == Cause.MONITORING_GAP)).isEmpty();
  }

  @Test
  void theLastDayOfANewTargetIsJournaledByItsFirstEvaluation() throws Exception {
    open();
    // Backfilled before the first start: a saturation 5 h ago that recovered 4 h ago.
    SimulatedEngine b = saturatedFrom("b", T0 - 5 * HOUR, T0 - 4 * HOUR);
    b.write(store, T0 - 8 * HOUR, T0);
    run(T0 + 30_000L, b);
    List<Incident> all = journal.list(T0 - 8 * HOUR, clock.ms, d -> true);
    assertThat(all).extracting(i -> i.diagnosis().cause())
        .containsExactly(Cause.CAPACITY_EXHAUSTED);
    assertThat(all.get(0).diagnosis().endMs()).isNotNull();
    assertThat(all.get(0).diagnosis().startMs()).isBetween(T0 - 5 * HOUR - 5 * 60_000L,
        T0 - 5 * HOUR + 10 * 60_000L);
    long[] c = journal.coverage(new io.inferlens.analysis.target.Target(
        all.get(0).diagnosis().target()).id());
    assertThat(c[0]).isLessThanOrEqualTo(T0 - 8 * HOUR);
    // The history answers it from the journal, with the journal's id: nothing on demand.
    assertThat(new DiagnosisHistory(engine, journal).diagnoses(T0 - 8 * HOUR, clock.ms,
        List.of())).extracting(Diagnosis::id).containsExactly(all.get(0).id());
  }

  /**
   * A backfill lands in a range the journal already covers: the next evaluation re-evaluates it
   * (no waiting minutes for a re-evaluation), and the history answers from the journal alone.
   */
  @Test
  void lateSamplesInACoveredRangeAreReevaluatedByTheNextEvaluation() throws Exception {
    open();
    // A second target keeps the data's present moving while the first one's samples come late.
    SimulatedEngine live = saturatedFrom("b", Long.MAX_VALUE, Long.MAX_VALUE);
    live.write(store, T0 - 3 * HOUR, T0);
    SimulatedEngine a = saturatedFrom("a", T0 - 11 * 60_000L, T0 + HOUR);
    a.write(store, T0 - 3 * HOUR, T0 - 12 * 60_000L);
    run(T0 + 60_000L, live);
    assertThat(journal.list(T0 - 3 * HOUR, clock.ms, d -> d.cause() == Cause.CAPACITY_EXHAUSTED))
        .isEmpty();
    assertThat(evaluator.staleFromMs()).isEqualTo(Long.MAX_VALUE);

    a.write(store, T0 - 12 * 60_000L, T0 + 30_000L); // the backfill, saturated from T0 - 11 min
    assertThat(evaluator.staleFromMs()).isEqualTo(T0 - 12 * 60_000L);
    run(clock.ms + 15_000, live, a);
    assertThat(evaluator.staleFromMs()).isEqualTo(Long.MAX_VALUE);
    List<Incident> saturated = journal.list(T0 - 3 * HOUR, clock.ms,
        d -> d.cause() == Cause.CAPACITY_EXHAUSTED);
    assertThat(saturated).hasSize(1);
    assertThat(saturated.get(0).diagnosis().startMs())
        .isBetween(T0 - 11 * 60_000L - 2 * STEP, T0 - 11 * 60_000L + CONFIG.forMs());
    assertThat(new DiagnosisHistory(engine, journal).diagnoses(T0 - 3 * HOUR, clock.ms,
        List.of())).filteredOn(d -> d.cause() == Cause.CAPACITY_EXHAUSTED)
        .extracting(Diagnosis::id).containsExactly(saturated.get(0).id());
    // A gap of "a" before the backfill was never journaled: the backfill came in time.
    assertThat(journal.list(T0 - 3 * HOUR, clock.ms, d -> d.cause() == Cause.MONITORING_GAP))
        .isEmpty();
  }

  /**
   * A target whose samples are arriving (a WAL replay under way) and that the evaluator has not
   * covered yet is left to the evaluator's next evaluation, not evaluated on demand per request.
   */
  @Test
  void arrivingDataIsJournaledByTheNextEvaluationNotEvaluatedOnDemand() throws Exception {
    open();
    evaluator.evaluate(); // running, nothing received yet
    SimulatedEngine a = saturatedFrom("a", T0 - 2 * HOUR, T0 - HOUR);
    a.write(store, T0 - 5 * HOUR, T0 - 10_000L);
    DiagnosisHistory history = new DiagnosisHistory(engine, journal, evaluator::discoversFromMs);
    assertThat(history.diagnoses(T0 - 5 * HOUR, T0, List.of())).isEmpty();
    clock.ms += 15_000;
    evaluator.evaluate();
    List<Diagnosis> ds = history.diagnoses(T0 - 5 * HOUR, T0, List.of());
    assertThat(ds).extracting(Diagnosis::cause).containsExactly(Cause.CAPACITY_EXHAUSTED);
    assertThat(journal.get(ds.get(0).id())).isNotNull();
    // Without an evaluator's horizon the same target would have been evaluated on demand.
    assertThat(new DiagnosisHistory(engine, journal, () -> Long.MAX_VALUE)
        .diagnoses(T0 - 5 * HOUR, T0, List.of())).extracting(Diagnosis::id)
        .containsExactly(ds.get(0).id());
  }

  @Test
  void historyBeforeTheEvaluatorStartedIsEvaluatedOnDemand() throws Exception {
    open();
    // Yesterday's saturation, backfilled; today, healthy traffic the evaluator watches.
    long yesterday = T0 - 24 * HOUR;
    SimulatedEngine old = saturatedFrom("a", yesterday + HOUR, yesterday + 2 * HOUR);
    old.write(store, yesterday, yesterday + 3 * HOUR);
    SimulatedEngine today = saturatedFrom("b", Long.MAX_VALUE, Long.MAX_VALUE);
    today.write(store, T0 - HOUR, T0);
    run(T0 + 5 * 60_000L, today);
    DiagnosisHistory history = new DiagnosisHistory(engine, journal);
    List<Diagnosis> ds = history.diagnoses(yesterday, clock.ms, List.of());
    assertThat(ds).extracting(Diagnosis::cause).contains(Cause.CAPACITY_EXHAUSTED);
    assertThat(ds).filteredOn(d -> d.cause() == Cause.CAPACITY_EXHAUSTED)
        .extracting(d -> d.target().get("instance")).containsOnly("a:8000");
    // Within the evaluator's coverage the journal alone answers.
    assertThat(history.diagnoses(T0, clock.ms, List.of())).isEmpty();
  }

  @Test
  void aPeriodInProgressWhenABackfilledTargetIsFirstSeenIsOneIncidentWithItsExactStart()
      throws Exception {
    open();
    // Backfilled before the evaluator ever saw the target: 3 h healthy, then a saturation that
    // started 73 min 20 s before the first evaluation (off the 5-minute grid, longer ago than
    // the bootstrap's raw lead-in) and is still in progress.
    long fault = T0 - 73 * 60_000L - 20_000L;
    long recover = T0 + 30 * 60_000L;
    long start = fault - 3 * HOUR;
    SimulatedEngine a = saturatedFrom("a", fault, recover);
    a.write(store, start, T0);
    run(T0 + 2 * 60_000L, a);
    long grace = engine.silenceGraceMs();
    DiagnosisHistory history = new DiagnosisHistory(engine, journal);

    List<Diagnosis> onDemand = engine.diagnoses(start, clock.ms - grace, List.of());
    assertThat(onDemand).extracting(Diagnosis::cause).containsExactly(Cause.CAPACITY_EXHAUSTED);
    long exact = onDemand.get(0).startMs();
    assertThat(exact).isBetween(fault - 2 * STEP, fault + CONFIG.forMs());

    List<Diagnosis> seen = history.diagnoses(start, clock.ms, List.of());
    assertThat(seen).extracting(Diagnosis::cause).containsExactly(Cause.CAPACITY_EXHAUSTED);
    List<Incident> journaled = journal.list(start, clock.ms, d -> true);
    assertThat(journaled).extracting(i -> i.diagnosis().cause())
        .containsExactly(Cause.CAPACITY_EXHAUSTED);
    Incident inc = journaled.get(0);
    assertThat(inc.diagnosis().endMs()).isNull();
    assertThat(Math.abs(inc.diagnosis().startMs() - exact)).isLessThanOrEqualTo(STEP);
    assertThat(seen.get(0).id()).isEqualTo(inc.id());

    // Further evaluations keep the id (Alertmanager groups by it) ...
    run(T0 + 20 * 60_000L, a);
    assertThat(journal.openIncidents()).extracting(Incident::id).containsExactly(inc.id());
    assertThat(history.diagnoses(start, clock.ms, List.of())).extracting(Diagnosis::id)
        .containsExactly(inc.id());
    // ... and so does its resolution.
    run(recover + 20 * 60_000L, a);
    assertThat(journal.openIncidents()).isEmpty();
    Incident done = journal.get(inc.id());
    assertThat(done).isNotNull();
    assertThat(done.diagnosis().endMs()).isNotNull();
    assertThat(done.diagnosis().startMs()).isEqualTo(inc.diagnosis().startMs());
    assertThat(journal.list(start, clock.ms, d -> true)).extracting(Incident::id)
        .containsExactly(inc.id());
    assertThat(history.diagnoses(start, clock.ms, List.of())).extracting(Diagnosis::id)
        .containsExactly(inc.id());
  }

  @Test
  void anOnDemandCopyOverlappingAJournalIncidentOfTheSameCauseIsDropped() throws Exception {
    open();
    long fault = T0 - 2 * HOUR - 100_000L;
    long start = T0 - 5 * HOUR;
    SimulatedEngine a = saturatedFrom("a", fault, T0 - HOUR);
    a.write(store, start, T0);
    List<Diagnosis> exact = engine.diagnoses(start, T0, List.of());
    assertThat(exact).extracting(Diagnosis::cause).containsExactly(Cause.CAPACITY_EXHAUSTED);
    Diagnosis d = exact.get(0);
    // The journal holds the period with a start off by a rollup interval (so another id), and
    // its coverage begins inside the period: on demand, the range before finds it again.
    Diagnosis shifted = d.withSpan("shifted", d.startMs() + 300_000L, d.endMs());
    journal.record(shifted, T0);
    String target = new io.inferlens.analysis.target.Target(d.target()).id();
    journal.setCoverage(java.util.Map.of(target, new long[] {d.startMs() + 600_000L, T0}));
    assertThat(engine.diagnoses(start, d.startMs() + 600_000L, List.of()))
        .extracting(Diagnosis::id).containsExactly(d.id());
    assertThat(new DiagnosisHistory(engine, journal).diagnoses(start, T0, List.of()))
        .extracting(Diagnosis::id).containsExactly("shifted");
  }
}
