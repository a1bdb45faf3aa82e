package io.inferlens.analysis.incident;

import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.target.Target;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.StorageException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Diagnoses over any range: from the {@link IncidentJournal} where the evaluator has covered the
 * range, evaluated on demand by the {@link DiagnosisEngine} where it has not: each target up to
 * where its own coverage starts (history from before the evaluator first saw it), a target it
 * never saw over the whole range. Both come from the same
 * {@link io.inferlens.analysis.diagnose.DiagnosisStream} rules, so the seam does not show; where
 * an incident is in both, the journal's copy (with its notes and timestamps) wins: an on-demand
 * diagnosis is dropped when it has a journal incident's id, starts inside its target's coverage,
 * or overlaps in time a journal incident of the same target and cause (the same period with
 * another start, e.g. one known only to a 5-minute rollup interval, and so another id).
 *
 * <p>A target whose samples just arrived and that the evaluator has not covered yet is left to
 * the evaluator's next evaluation (within one interval), not evaluated on demand: during a WAL
 * replay of hours that would evaluate hours per request.
 *
 * <p>Samples that arrive late (a backfill) are re-evaluated by the evaluator's next evaluation,
 * within one evaluation interval: in the meantime the journal answers as it stands, and no range
 * is re-evaluated on demand for it.
 *
 * <p>Thread safe.
 */
public final class DiagnosisHistory {

  private final DiagnosisEngine engine;
  private final IncidentJournal journal;

  private final java.util.function.LongSupplier discoversFromMs;

  /**
   * A history whose every uncovered target is evaluated on demand (no evaluator running).
   *
   * @param engine evaluates the uncovered part
   * @param journal the evaluator's journal
   */
  public DiagnosisHistory(DiagnosisEngine engine, IncidentJournal journal) {
    this(engine, journal, () -> Long.MAX_VALUE);
  }

  /**
   * @param engine evaluates the uncovered part
   * @param journal the evaluator's journal
   * @param discoversFromMs {@link IncidentEvaluator#discoversFromMs()}: a target without
   *     coverage that has samples at or after it is one the evaluator journals in its next
   *     evaluation (data that just arrived, a WAL replay under way), so it is not evaluated on
   *     demand; {@link Long#MAX_VALUE} for none
   */
  public DiagnosisHistory(DiagnosisEngine engine, IncidentJournal journal,
      java.util.function.LongSupplier discoversFromMs) {
    this.engine = engine;
    this.journal = journal;
    this.discoversFromMs = discoversFromMs;
  }

  /**
   * @param startMs range start, ms
   * @param endMs range end, ms, ≥ start
   * @param selectors target filters as for {@link DiagnosisEngine#diagnoses}; empty keeps all
   * @return diagnoses overlapping the range, oldest start first
   * @throws StorageException if the store fails
   * @throws IllegalArgumentException as {@link DiagnosisEngine#analyze} for an uncovered range
   *     too long to evaluate
   */
  public List<Diagnosis> diagnoses(long startMs, long endMs, List<List<Matcher>> selectors)
      throws StorageException {
    List<Diagnosis> out = new ArrayList<>();
    Set<String> ids = new HashSet<>();
    for (Incident inc : journal.list(startMs, endMs, d -> selected(d.target(), selectors))) {
      out.add(inc.diagnosis());
      ids.add(inc.id());
    }
    // Each target on demand up to where its own coverage starts (all of the range when it has
    // none): targets are first seen at different times, and some never.
    List<Diagnosis> journaled = new ArrayList<>(out);
    long soon = discoversFromMs.getAsLong();
    Set<String> arriving = new HashSet<>();
    if (soon <= endMs) {
      for (Target t : engine.targets(Math.max(soon, startMs), endMs)) {
        arriving.add(t.id());
      }
    }
    for (Diagnosis d : engine.diagnoses(startMs, endMs, selectors, t -> {
      long[] c = journal.coverage(t.id());
      return c != null ? c[0] : arriving.contains(t.id()) ? startMs : endMs;
    })) {
      long[] c = coverageOf(d.target());
      // The journal's copy also wins over an on-demand one of the same target and cause that
      // overlaps it in time, whatever their starts (one known only to a rollup interval).
      if (!ids.contains(d.id()) && (c == null || d.startMs() < c[0])
          && !overlapsAny(d, journaled)) {
        out.add(d);
      }
    }
    out.sort((a, b) -> Long.compare(a.startMs(), b.startMs()));
    return out;
  }

  /**
   * Whether an on-demand diagnosis overlaps in time a journal incident of its target and cause;
   * an open one (in progress where the on-demand range ends) runs on past that end.
   */
  private static boolean overlapsAny(Diagnosis d, List<Diagnosis> journaled) {
    long end = d.endMs() == null ? Long.MAX_VALUE : d.endMs();
    for (Diagnosis j : journaled) {
      long jEnd = j.endMs() == null ? Long.MAX_VALUE : j.endMs();
      if (j.cause() == d.cause() && j.target().equals(d.target()) && j.startMs() <= end
          && d.startMs() <= jEnd) {
        return true;
      }
    }
    return false;
  }

  private long[] coverageOf(Map<String, String> labels) {
    return journal.coverage(new Target(labels).id());
  }

  /** Whether grouping labels pass the selectors (empty keeps all); {@code __name__} ignored. */
  static boolean selected(Map<String, String> labels, List<List<Matcher>> selectors) {
    if (selectors.isEmpty()) {
      return true;
    }
    for (List<Matcher> sel : selectors) {
      boolean all = true;
      for (Matcher m : sel) {
        if (!m.name().equals("__name__")
            && !m.matches(labels.getOrDefault(m.name(), ""))) {
          all = false;
        }
      }
      if (all) {
        return true;
      }
    }
    return false;
  }
}
