package io.inferlens.analysis.incident;

import io.inferlens.analysis.cardinality.CardinalityWatch;
import io.inferlens.analysis.catalog.Signal;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.diagnose.DiagnosisStream;
import io.inferlens.analysis.diagnose.Indicator;
import io.inferlens.analysis.diagnose.IndicatorEvaluator;
import io.inferlens.analysis.diagnose.IndicatorFrame;
import io.inferlens.analysis.diagnose.IncidentMerge;
import io.inferlens.analysis.target.ResolvedSignal;
import io.inferlens.analysis.target.Target;
import io.inferlens.storage.Querier;
import io.inferlens.storage.StorageException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The always-on evaluator, like Prometheus's rule manager: every evaluation interval it feeds each
 * target's new steps (only those) through the target's {@link DiagnosisStream} and writes what
 * opened, changed or resolved to the {@link IncidentJournal}.
 *
 * <ul>
 *   <li><b>The data's present.</b> It evaluates up to the newest sample received ({@link
 *       Querier#newestSampleMs()}, never past the clock) less the grace ({@link
 *       DiagnosisEngine#silenceGraceMs()}: twice the remote-write batch deadline plus one scrape
 *       interval, 25 s by default), since samples of other series may still be in the sender's
 *       queue. A sender replaying hours of its WAL in a minute is so evaluated as its samples
 *       arrive, step by step, and each incident is journaled (and handed to the listener) within
 *       one evaluation of its data arriving, not when the clock reaches it.
 *   <li><b>Sender silence.</b> When no sample at all has arrived for {@link #senderSilenceMs()}
 *       by the clock (a replay's samples are old, but they arrive)
 *       the sender stopped: no target is stepped into the silence (so none has a gap and no
 *       incident resolves), the open incidents are marked stale, and one REMOTE_WRITE_STOPPED
 *       holds, naming the targets' common labels and the last sample's time. The sender is
 *       every target this store receives (one tenant under multitenancy); a target whose own
 *       series stop while others go on has a MONITORING_GAP.
 *   <li><b>Bootstrap.</b> A target seen for the first time (or after a restart) starts from a
 *       batch evaluation of the engine ending at the present ({@link DiagnosisEngine#analyze}):
 *       the baselines learned from the 14-day lookback, the lead-in's smoothing, and a period
 *       already in progress. A target the journal has never covered is evaluated over the last
 *       {@link #MAX_CATCH_UP_MS} (once: the first start on a store holding history), so that
 *       {@code GET /api/v1/diagnoses} of the last day answers from the journal, not from an
 *       analysis per request. After a restart it covers the time since the journal's coverage
 *       ended, up to {@link #MAX_CATCH_UP_MS}; older ranges are evaluated on demand. An open
 *       incident found again keeps its journal id. A period in progress for longer than the
 *       raw lead-in (e.g. in data backfilled before the target was first seen) has a start
 *       known only to a 5-minute rollup interval, and an on-demand evaluation of the range
 *       before the coverage would find it again with its exact start and another id: unless
 *       the journal already holds it, the batch evaluation is run once more from one rollup
 *       interval before that start (at most {@link #MAX_CATCH_UP_MS} back), and the target's
 *       coverage starts there. Only this first evaluation pays for it; later ones feed new
 *       steps only.
 *   <li><b>Late data.</b> Samples appended with timestamps at or before a step already evaluated
 *       (a backfill, a second sender lagging behind the first) make the targets evaluated past
 *       them re-evaluate from there in the next evaluation; incidents that re-evaluation no
 *       longer finds are removed from the journal.
 *   <li><b>Merging.</b> What all targets found in one evaluation goes through {@link
 *       IncidentMerge} (one incident, one cause; all targets quiet at once is one
 *       REMOTE_WRITE_STOPPED), and the open gap of a model replaced on its instance by another is
 *       a deployment, not a gap.
 *   <li><b>Cardinality.</b> With a {@link CardinalityWatch}, its CARDINALITY_EXPLOSION findings
 *       (store-level, sampled once a minute) are journaled as it reports them: opened, updated,
 *       and resolved when it says so; after a restart the journal's open ones are handed back to
 *       it.
 * </ul>
 *
 * <p>Thread safe: {@link #evaluate()} is serialized; the append listener only lowers an atomic.
 */
public final class IncidentEvaluator {

  /** Longest range a restart catches up by itself: 1 day, ms; older is evaluated on demand. */
  public static final long MAX_CATCH_UP_MS = 86_400_000L;
  /**
   * A REMOTE_WRITE_STOPPED found from a sender's gaps once data resumed takes the id of the one
   * raised while the silence lasted when their starts are this close, ms.
   */
  static final long STOPPED_ADOPT_MS = 10 * 60_000L;
  /** Targets are looked for this often, ms, and over the last {@link #DISCOVERY_WINDOW_MS}. */
  static final long DISCOVERY_PERIOD_MS = 60_000L;
  static final long DISCOVERY_WINDOW_MS = 15 * 60_000L;
  /** Signals are re-resolved (a renamed metric, a new exporter) this often, ms. */
  static final long RESOLVE_PERIOD_MS = 3_600_000L;
  /** A target silent this long is forgotten by the evaluator (its journal stays), ms. */
  static final long FORGET_AFTER_MS = 86_400_000L;
  /** Resolved incidents are handed to the listener this long after they resolved, ms. */
  public static final long RESOLVED_RETENTION_MS = 15 * 60_000L;

  /** Told the incidents that hold, and those resolved recently, after every evaluation. */
  @FunctionalInterface
  public interface Listener {
    /**
     * @param incidents open incidents, then those resolved within {@link #RESOLVED_RETENTION_MS}
     * @param nowMs wall-clock time of the evaluation, ms
     */
    void evaluated(List<Diagnosis> incidents, long nowMs);
  }

  /**
   * What one evaluation did.
   *
   * @param evaluatedToMs the last step evaluated, ms
   * @param targets targets evaluated
   * @param steps new steps fed, all targets
   * @param bootstrapped targets started from a batch evaluation
   * @param written incidents opened, updated or resolved in the journal
   * @param open incidents open after it
   */
  public record Cycle(long evaluatedToMs, int targets, long steps, int bootstrapped, int written,
      int open) {}

  private static final class TargetState {
    Target target;
    Map<Signal, ResolvedSignal> signals;
    DiagnosisStream stream;
    long resolvedAtMs;
    long coveredFromMs;
  }

  private final DiagnosisEngine engine;
  private final Querier store;
  private final IncidentJournal journal;
  private final Clock clock;
  private final AnalysisConfig config;
  private final Listener listener;
  private final Map<String, TargetState> states = new LinkedHashMap<>();
  private final AtomicLong lateFromMs = new AtomicLong(Long.MAX_VALUE);
  /** The newest sample timestamp received, ms: the data's present, which evaluation follows. */
  private final AtomicLong newestMs = new AtomicLong(Long.MIN_VALUE);
  /** The clock's time of the last append, ms: a catch-up's samples are old but arriving. */
  private volatile long lastArrivalMs;
  private volatile long evaluatedToMs = Long.MIN_VALUE;
  /** The oldest late sample being re-evaluated by the evaluation in progress, ms. */
  private volatile long reevaluatingFromMs = Long.MAX_VALUE;
  private long lastDiscoveryMs = Long.MIN_VALUE;
  /** The last step the previous discovery looked up to, ms. */
  private long lastDiscoveryUpToMs = Long.MIN_VALUE;
  private List<Target> known = List.of();
  /** Open gaps seen once and not journaled yet: a sender's silence gets one interval to form. */
  private Set<String> deferredGaps = new HashSet<>();
  /** The last step the previous regression check looked up to, ms. */
  private long lastRegressionUpToMs = Long.MIN_VALUE;
  private List<Diagnosis> regressions = List.of();
  /** The store-level cardinality findings, or null when not watched. */
  private final CardinalityWatch cardinality;
  private boolean cardinalityRestored;

  /**
   * @param engine the analysis engine (its configuration, store and catalog)
   * @param store the store, whose appends are watched for late data
   * @param journal where incidents go
   * @param clock the present
   * @param listener told after each evaluation (Alertmanager), or null
   */
  public IncidentEvaluator(DiagnosisEngine engine, Querier store, IncidentJournal journal,
      Clock clock, Listener listener) {
    this(engine, store, journal, clock, listener, null);
  }

  /**
   * @param engine the analysis engine (its configuration, store and catalog)
   * @param store the store, whose appends are watched for late data
   * @param journal where incidents go
   * @param clock the present
   * @param listener told after each evaluation (Alertmanager), or null
   * @param cardinality asked for {@link Cause#CARDINALITY_EXPLOSION} findings every evaluation
   *     (it samples the store once a minute), or null for none
   */
  public IncidentEvaluator(DiagnosisEngine engine, Querier store, IncidentJournal journal,
      Clock clock, Listener listener, CardinalityWatch cardinality) {
    this.cardinality = cardinality;
    this.engine = engine;
    this.store = store;
    this.journal = journal;
    this.clock = clock;
    this.config = engine.config();
    this.listener = listener;
    newestMs.set(store.newestSampleMs());
    lastArrivalMs = clock.millis(); // a sender gets the silence allowance from the start
    store.addAppendListener((min, max) -> {
      newestMs.accumulateAndGet(max, Math::max);
      lastArrivalMs = clock.millis();
      if (min <= evaluatedToMs) {
        lateFromMs.accumulateAndGet(min, Math::min);
      }
    });
  }

  /** @return the journal written to */
  public IncidentJournal journal() {
    return journal;
  }

  /**
   * @return the oldest timestamp, ms, of samples that arrived after the evaluation had passed
   *     them and are not re-evaluated yet (the journal may miss or keep incidents from there on),
   *     or {@link Long#MAX_VALUE} when the journal is up to date with the store
   */
  public long staleFromMs() {
    return Math.min(lateFromMs.get(), reevaluatingFromMs);
  }

  /**
   * Where the targets this evaluator is about to journal have data from: a target with samples
   * at or after it and no coverage yet (data that just arrived) is discovered and journaled by
   * the next evaluation, so a reader need not evaluate it on demand.
   *
   * @return the newest sample received (never past the clock) less the discovery window, ms;
   *     {@link Long#MAX_VALUE} while no sample is known
   */
  public long discoversFromMs() {
    long n = newestMs.get();
    return n == Long.MIN_VALUE ? Long.MAX_VALUE
        : Math.min(clock.millis(), n) - DISCOVERY_WINDOW_MS;
  }

  /** @return the last step evaluated, ms; {@link Long#MIN_VALUE} before the first evaluation */
  public long evaluatedToMs() {
    return evaluatedToMs;
  }

  /**
   * One evaluation of every target, up to {@code now − grace} on the step grid.
   *
   * @return what it did
   * @throws StorageException if the store fails (the next evaluation retries)
   */
  public synchronized Cycle evaluate() throws StorageException {
    long now = clock.millis();
    long step = config.stepMs();
    long grace = engine.silenceGraceMs();
    long newest = newestMs.get();
    boolean newestKnown = newest != Long.MIN_VALUE;
    // The data's present, not the clock's: a sender replaying hours of its WAL is evaluated as
    // its samples arrive, and a sender that stopped leaves every target where its data ends.
    boolean senderSilent = newestKnown && now - lastArrivalMs > senderSilenceMs();
    long upTo = senderSilent ? Math.floorDiv(Math.min(now, newest), step) * step
        : Math.floorDiv((newestKnown ? Math.min(now, newest) : now) - grace, step) * step;
    // Late samples are re-evaluated now, in this evaluation; readers see the journal stale
    // from them until it has been written.
    reevaluatingFromMs = lateFromMs.get();
    long late = lateFromMs.getAndSet(Long.MAX_VALUE);
    if (due(now, lastDiscoveryMs, DISCOVERY_PERIOD_MS) || known.isEmpty()
        || upTo - lastDiscoveryUpToMs >= DISCOVERY_PERIOD_MS || late != Long.MAX_VALUE) {
      // Every target with samples since the last discovery, however fast the data moved, and
      // every target of a backfill.
      long from = upTo - DISCOVERY_WINDOW_MS;
      if (lastDiscoveryUpToMs != Long.MIN_VALUE) {
        from = Math.min(from, lastDiscoveryUpToMs);
      }
      from = Math.max(Math.min(from, late), upTo - MAX_CATCH_UP_MS);
      known = engine.targets(from, upTo);
      lastDiscoveryMs = now;
      lastDiscoveryUpToMs = upTo;
    }
    for (Target t : known) {
      states.computeIfAbsent(t.id(), k -> new TargetState()).target = t;
    }
    List<Diagnosis> found = new ArrayList<>();
    Set<Map<String, String>> reporting = new HashSet<>();
    Set<String> bootstrappedIds = new HashSet<>();
    Map<String, long[]> cover = new HashMap<>();
    Map<String, Long> newestByInstance = new HashMap<>();
    long steps = 0;
    int boot = 0;
    String modelLabel = engine.targetConfig().modelLabel();
    for (java.util.Iterator<TargetState> it = states.values().iterator(); it.hasNext(); ) {
      TargetState st = it.next();
      boolean fresh = st.stream == null || now - st.resolvedAtMs >= RESOLVE_PERIOD_MS
          || late <= st.stream.lastStepMs();
      if (fresh) {
        long from = bootstrapFrom(st, late, upTo);
        if (st.stream != null) {
          from = Math.min(from, st.stream.lastStepMs() + step);
        }
        DiagnosisEngine.TargetAnalysis a = engine.analyze(st.target, from, upTo, step, false);
        // Only a target's first evaluation in this process pays for a second batch run; the
        // hourly re-resolution finds a long period again through adopt().
        long again = st.stream == null ? exactFrom(a, from, upTo) : from;
        if (again < from) {
          from = again;
          a = engine.analyze(st.target, from, upTo, step, false);
        }
        List<Diagnosis> ds = a.result().diagnoses();
        replaceIn(st, from, ds);
        st.stream = a.result().stream();
        st.signals = a.signals();
        st.resolvedAtMs = now;
        if (st.coveredFromMs == 0 || from < st.coveredFromMs) {
          st.coveredFromMs = from;
        }
        found.addAll(adopt(ds));
        bootstrappedIds.add(st.target.id());
        boot++;
      } else if (st.stream.lastStepMs() < upTo) {
        steps += advance(st, upTo);
        // One call: a period that just closed claims its own id before the next one adopts.
        List<Diagnosis> ds = new ArrayList<>(st.stream.drainClosed());
        ds.addAll(st.stream.open());
        found.addAll(adopt(ds));
      } else {
        found.addAll(adopt(st.stream.open()));
      }
      if (st.stream.lastDataMs() != Long.MIN_VALUE
          && upTo - st.stream.lastDataMs() > FORGET_AFTER_MS) {
        it.remove();
        continue;
      }
      reporting.add(st.target.labels());
      newestByInstance.merge(st.target.without(modelLabel).id(), st.stream.lastDataMs(),
          Math::max);
      cover.put(st.target.id(), new long[] {st.coveredFromMs, upTo});
    }
    found.removeIf(d -> replacedModelGap(d, newestByInstance, modelLabel));
    // In this cycle, on the data's time: every 5 minutes of new data, and after late data.
    if (lastRegressionUpToMs == Long.MIN_VALUE
        || upTo - lastRegressionUpToMs >= REGRESSION_PERIOD_MS || late != Long.MAX_VALUE) {
      regressions = versionRegressions(upTo, modelLabel);
      lastRegressionUpToMs = upTo;
    }
    found.addAll(regressions);
    if (cardinality != null) {
      if (!cardinalityRestored) {
        List<Diagnosis> openOnes = new ArrayList<>();
        for (Incident inc : journal.openIncidents()) {
          openOnes.add(inc.diagnosis());
        }
        cardinality.restore(openOnes);
        cardinalityRestored = true;
      }
      // Store-level: journaled as the watch says, never re-derived from a target's stream.
      found.addAll(cardinality.findings(now));
    }
    List<Diagnosis> merged = senderSilence(
        adoptStopped(IncidentMerge.merge(found, reporting, grace)), reporting, senderSilent,
        newest, now);
    int written = 0;
    Set<String> current = new HashSet<>();
    Set<String> deferred = new HashSet<>();
    for (Diagnosis d : merged) {
      current.add(d.id());
      if (d.cause() == Cause.MONITORING_GAP && d.endMs() == null && journal.get(d.id()) == null
          && !deferredGaps.contains(d.id())) {
        deferred.add(d.id());
        continue;
      }
      if (journal.record(d, now) != null) {
        written++;
      }
    }
    deferredGaps = deferred;
    for (Incident inc : journal.openIncidents()) {
      if (inc.diagnosis().cause() != Cause.VERSION_REGRESSION) {
        continue;
      }
      // A regression explains its target's slowdown: one incident, one cause.
      for (Incident other : journal.list(inc.diagnosis().startMs(), Long.MAX_VALUE,
          d -> d.target().equals(inc.diagnosis().target())
              && (d.cause() == Cause.PER_REQUEST_SLOWDOWN || d.cause() == Cause.WORKLOAD_SHIFT))) {
        journal.remove(other.id());
        current.remove(other.id());
      }
    }
    // An incident still open in the journal that this evaluation did not produce: the merge
    // changed shape (a sender's silence split into gaps as some targets came back), or its
    // target is no longer evaluated. It ends where the evaluation is.
    for (Incident inc : journal.openIncidents()) {
      // The watch hands back every finding it holds open: one it does not (its metric gone
      // before a restart, a record it could not restore) has ended too.
      boolean cardinalityEnded = cardinality != null
          && inc.diagnosis().cause() == Cause.CARDINALITY_EXPLOSION;
      if (!current.contains(inc.id())
          && (cardinalityEnded || covered(inc.diagnosis(), reporting))) {
        long start = inc.diagnosis().startMs();
        journal.record(inc.diagnosis().withSpan(inc.id(), start, Math.max(start, upTo)), now);
        written++;
      }
    }
    journal.setCoverage(cover);
    evaluatedToMs = upTo;
    reevaluatingFromMs = Long.MAX_VALUE;
    int open = journal.openIncidents().size();
    if (listener != null) {
      List<Diagnosis> tell = new ArrayList<>();
      for (Incident inc : journal.openIncidents()) {
        tell.add(inc.diagnosis());
      }
      for (Incident inc : journal.resolvedSince(now - RESOLVED_RETENTION_MS)) {
        tell.add(inc.diagnosis());
      }
      listener.evaluated(tell, now);
    }
    return new Cycle(upTo, states.size(), steps, boot, written, open);
  }

  /**
   * How long no sample at all may arrive before the sender counts as stopped: the delivery
   * grace ({@link DiagnosisEngine#silenceGraceMs()}) plus {@code gapFactor} steps, as a target's
   * monitoring gap (55 s by default), ms.
   */
  long senderSilenceMs() {
    return engine.silenceGraceMs() + (long) (config.gapFactor() * config.stepMs());
  }

  /**
   * A REMOTE_WRITE_STOPPED the merge found from every target's gaps (data resumed after a hole)
   * is the one the journal already holds for that silence, raised while it lasted: it keeps that
   * id, start, labels and summary and takes the merge's end.
   */
  private List<Diagnosis> adoptStopped(List<Diagnosis> merged) throws StorageException {
    List<Diagnosis> out = new ArrayList<>(merged.size());
    for (Diagnosis d : merged) {
      Diagnosis keep = d;
      if (d.cause() == Cause.REMOTE_WRITE_STOPPED && journal.get(d.id()) == null) {
        for (Incident inc : journal.list(d.startMs() - STOPPED_ADOPT_MS, Long.MAX_VALUE,
            o -> o.cause() == Cause.REMOTE_WRITE_STOPPED
                && Math.abs(o.startMs() - d.startMs()) <= STOPPED_ADOPT_MS)) {
          Diagnosis o = inc.diagnosis();
          Long end = d.endMs() == null ? null : Math.max(o.startMs(), d.endMs());
          keep = o.withSpan(o.id(), o.startMs(), end);
          break;
        }
      }
      out.add(keep);
    }
    return out;
  }

  /**
   * The sender's silence as one condition. While no sample at all has arrived for {@link
   * #senderSilenceMs()}, one REMOTE_WRITE_STOPPED holds (named by the targets' common labels and
   * the last sample's time) and every open incident of a target stays open, marked stale: no
   * target is stepped into the silence, so none has a gap and none recovers. Once samples arrive
   * again, the condition ends at the clock's present (delivery resumed; a sender replaying its
   * WAL fills the hole, so the data shows none), unless the merge found it from the targets' gaps
   * (the hole stayed empty) and gave it the data's end.
   */
  private List<Diagnosis> senderSilence(List<Diagnosis> merged,
      Set<Map<String, String>> reporting, boolean silent, long newest, long now)
      throws StorageException {
    Incident live = null;
    for (Incident inc : journal.openIncidents()) {
      if (inc.diagnosis().cause() == Cause.REMOTE_WRITE_STOPPED) {
        live = inc;
      }
    }
    List<Diagnosis> out = new ArrayList<>(merged.size() + 1);
    boolean has = false;
    for (Diagnosis d : merged) {
      has |= live != null && d.id().equals(live.id());
      boolean target = d.cause() != Cause.REMOTE_WRITE_STOPPED
          && d.cause() != Cause.CARDINALITY_EXPLOSION;
      out.add(silent && target && d.endMs() == null ? d.withStale(true) : d);
    }
    if (silent && !reporting.isEmpty() && !has) {
      long step = config.stepMs();
      out.add(live != null ? live.diagnosis()
          : IncidentMerge.senderStopped(reporting, newest,
              Math.floorDiv(newest, step) * step + step, null));
    } else if (!silent && live != null && !has) {
      long start = live.diagnosis().startMs();
      out.add(live.diagnosis().withSpan(live.id(), start, Math.max(start, now)));
    }
    return out;
  }

  /**
   * Whether {@code periodMs} has passed since {@code lastMs} ({@link Long#MIN_VALUE}: never done).
   * {@code now - Long.MIN_VALUE} overflows to a negative number, so "never" is tested apart.
   */
  private static boolean due(long nowMs, long lastMs, long periodMs) {
    return lastMs == Long.MIN_VALUE || nowMs - lastMs >= periodMs;
  }

  /**
   * How much new data (ms of the data's time) makes the instances serving several models be
   * compared again for a version regression, in the evaluation that sees it.
   */
  static final long REGRESSION_PERIOD_MS = 300_000L;

  /**
   * VERSION_REGRESSION between consecutive models of each instance that served more than one
   * over the last {@link #MAX_CATCH_UP_MS}: the engine's comparison at comparable load.
   */
  private List<Diagnosis> versionRegressions(long upTo, String modelLabel)
      throws StorageException {
    Map<String, List<Target>> byInstance = new LinkedHashMap<>();
    for (TargetState st : states.values()) {
      byInstance.computeIfAbsent(st.target.without(modelLabel).id(), k -> new ArrayList<>())
          .add(st.target);
    }
    List<Diagnosis> out = new ArrayList<>();
    for (List<Target> group : byInstance.values()) {
      if (group.size() < 2) {
        continue;
      }
      List<io.inferlens.storage.Matcher> sel = new ArrayList<>();
      for (Map.Entry<String, String> e : group.get(0).without(modelLabel).labels().entrySet()) {
        sel.add(io.inferlens.storage.Matcher.eq(e.getKey(), e.getValue()));
      }
      for (Diagnosis d : engine.diagnoses(upTo - MAX_CATCH_UP_MS, upTo, List.of(sel))) {
        if (d.cause() == Cause.VERSION_REGRESSION) {
          out.add(d);
        }
      }
    }
    return out;
  }

  /**
   * Where a target's batch evaluation starts: the end of its coverage, {@link #MAX_CATCH_UP_MS}
   * back for a target never covered, or the present.
   */
  private long bootstrapFrom(TargetState st, long late, long upTo) {
    long[] c = journal.coverage(st.target.id());
    // Never covered: the last day once, the engine bounding it by the target's first sample.
    long from = c == null && st.stream == null ? upTo - MAX_CATCH_UP_MS : upTo;
    if (c != null) {
      if (st.coveredFromMs == 0) {
        st.coveredFromMs = c[0];
      }
      from = Math.min(from, c[1] + config.stepMs());
    }
    if (late != Long.MAX_VALUE) {
      from = Math.min(from, Math.floorDiv(late, config.stepMs()) * config.stepMs());
    }
    from = Math.max(from, upTo - MAX_CATCH_UP_MS);
    if (c != null && c[1] < from - config.stepMs()) {
      st.coveredFromMs = from; // a hole between the old coverage and now: on demand
    }
    return from;
  }

  /**
   * Where a target's first batch evaluation from {@code from} should start again so that every
   * period it found has its exact start: a period (not a gap) the journal does not already hold (under its id, or as an
   * open incident {@link #adopt} keeps) and that starts at or before the raw part of the frame
   * has a start known only to a rollup interval, and an on-demand evaluation of the range before
   * the coverage would find it again with its exact start and another id. The new start is one
   * rollup interval before the earliest such period (the engine's raw lead-in reaches further
   * back), bounded by {@link #MAX_CATCH_UP_MS} before {@code upTo}.
   *
   * @return the new start, ms on the step grid, or {@code from} when none is needed
   */
  private long exactFrom(DiagnosisEngine.TargetAnalysis a, long from, long upTo) {
    if (a.history() == null || a.history().steps() == 0) {
      return from; // all raw: starts are exact
    }
    long rawStart = a.frame().startMs();
    long earliest = Long.MAX_VALUE;
    List<Diagnosis> ds = a.result().diagnoses();
    List<Diagnosis> kept = adopt(ds);
    for (int i = 0; i < ds.size(); i++) {
      Diagnosis d = ds.get(i);
      // Gaps are not learned from rollups (history has no gaps): their starts are exact.
      if (d.cause() != Cause.MONITORING_GAP && d.cause() != Cause.REMOTE_WRITE_STOPPED
          && d.startMs() <= rawStart && kept.get(i).id().equals(d.id())
          && journal.get(d.id()) == null) {
        earliest = Math.min(earliest, d.startMs());
      }
    }
    if (earliest == Long.MAX_VALUE) {
      return from;
    }
    long step = config.stepMs();
    long again = Math.floorDiv(earliest - a.history().stepMs(), step) * step;
    return Math.max(Math.min(from, again), upTo - MAX_CATCH_UP_MS);
  }

  /**
   * Before a re-evaluation from {@code from} is journaled: the target's incidents it should
   * reproduce (open ones, and those ending at or after {@code from}) and does not are removed.
   */
  private void replaceIn(TargetState st, long from, List<Diagnosis> fresh)
      throws StorageException {
    Set<String> ids = new HashSet<>();
    for (Diagnosis d : adopt(fresh)) {
      ids.add(d.id());
    }
    for (Incident inc : journal.list(from, Long.MAX_VALUE,
        d -> d.target().equals(st.target.labels()))) {
      Diagnosis d = inc.diagnosis();
      if (d.cause() == Cause.VERSION_REGRESSION || d.cause() == Cause.REMOTE_WRITE_STOPPED
          || d.cause() == Cause.CARDINALITY_EXPLOSION) {
        continue;
      }
      if (!ids.contains(d.id()) && (d.endMs() == null ? d.startMs() >= from - config.forMs()
          : d.endMs() >= from)) {
        journal.remove(d.id());
      }
    }
  }

  /**
   * An open period found again (after a restart or a re-resolution, its start known only to a
   * rollup interval) keeps the id and start of the journal's open incident of the same target
   * and cause whose start is nearest, within two rollup intervals plus {@code for}. A journal
   * incident is kept by one diagnosis only: not by a second one of the same batch, nor when
   * the batch also holds it under its own id.
   *
   * @param ds one target's diagnoses, or one evaluation's
   * @return the same diagnoses in the same order, adopted ones with the journal's id and start
   */
  private List<Diagnosis> adopt(List<Diagnosis> ds) {
    Set<String> claimed = new HashSet<>();
    for (Diagnosis d : ds) {
      if (journal.get(d.id()) != null) {
        claimed.add(d.id());
      }
    }
    List<Diagnosis> out = new ArrayList<>(ds.size());
    for (Diagnosis d : ds) {
      Diagnosis keep = d;
      if (!claimed.contains(d.id())) {
        Incident best = nearestOpen(d, claimed, true, 2 * 300_000L + config.forMs());
        if (best == null && isPeriod(d.cause())) {
          // The period's majority cause changed (e.g. backlog alone, then with the GPU
          // saturated): the same incident, now with the more specific cause.
          best = nearestOpen(d, claimed, false, config.forMs());
        }
        if (best != null) {
          keep = d.withSpan(best.id(), best.diagnosis().startMs(), d.endMs());
          claimed.add(best.id());
        }
      }
      out.add(keep);
    }
    return out;
  }

  /**
   * The open journal incident of {@code d}'s target whose start is nearest to {@code d}'s, within
   * {@code maxOffMs}: of the same cause, or (with {@code sameCause} false) of another problem
   * period's cause.
   */
  private Incident nearestOpen(Diagnosis d, Set<String> claimed, boolean sameCause,
      long maxOffMs) {
    Incident best = null;
    long bestOff = Long.MAX_VALUE;
    for (Incident inc : journal.openIncidents()) {
      Diagnosis o = inc.diagnosis();
      long off = Math.abs(o.startMs() - d.startMs());
      boolean causeFits = sameCause ? o.cause() == d.cause()
          : o.cause() != d.cause() && isPeriod(o.cause());
      if (causeFits && o.target().equals(d.target()) && !claimed.contains(o.id())
          && off <= maxOffMs && off < bestOff) {
        best = inc;
        bestOff = off;
      }
    }
    return best;
  }

  /** Whether a cause is a problem period of one target's stream (not a gap or a comparison). */
  private static boolean isPeriod(Cause c) {
    return c != Cause.MONITORING_GAP && c != Cause.REMOTE_WRITE_STOPPED
        && c != Cause.VERSION_REGRESSION && c != Cause.CARDINALITY_EXPLOSION;
  }

  /** Whether the evaluation just done speaks for an incident's target. */
  private static boolean covered(Diagnosis d, Set<Map<String, String>> reporting) {
    if (d.cause() == Cause.VERSION_REGRESSION || d.cause() == Cause.CARDINALITY_EXPLOSION) {
      return false; // resolved by their own checks, not by a target's evaluation
    }
    if (d.cause() == Cause.REMOTE_WRITE_STOPPED) {
      return true;
    }
    return reporting.contains(d.target());
  }

  private boolean replacedModelGap(Diagnosis d, Map<String, Long> newestByInstance,
      String modelLabel) {
    if (d.cause() != Cause.MONITORING_GAP || d.endMs() != null) {
      return false;
    }
    TargetState st = null;
    for (TargetState s : states.values()) {
      if (s.target.labels().equals(d.target())) {
        st = s;
        break;
      }
    }
    if (st == null || st.stream == null) {
      return false;
    }
    Long newest = newestByInstance.get(st.target.without(modelLabel).id());
    return newest != null && newest > st.stream.lastDataMs();
  }

  /** Feeds a target's steps after its last one up to {@code upTo}; returns how many. */
  private long advance(TargetState st, long upTo) throws StorageException {
    long step = st.stream.stepMs();
    long from = st.stream.lastStepMs() + step;
    IndicatorFrame frame = new IndicatorEvaluator(config).evaluate(store, st.signals, from, upTo,
        step, upTo, null, null, from);
    double[] raw = new double[Indicator.values().length];
    for (int i = 0; i < frame.steps(); i++) {
      Arrays.fill(raw, Double.NaN);
      for (Map.Entry<Indicator, double[]> e : frame.all().entrySet()) {
        raw[e.getKey().ordinal()] = e.getValue()[i];
      }
      st.stream.step(frame.timeMs(i), raw, frame.isGap(i));
    }
    return frame.steps();
  }
}
