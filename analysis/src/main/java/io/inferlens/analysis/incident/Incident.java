package io.inferlens.analysis.incident;

import io.inferlens.analysis.diagnose.Diagnosis;
import java.util.List;

/**
 * One incident of the journal: the diagnosis as last evaluated (its evidence snapshot), when the
 * evaluator opened, last updated and resolved it, and the notes people added.
 *
 * @param diagnosis the diagnosis; its id is the incident's id, its {@code endMs} null while open
 * @param openedAtMs wall-clock time the evaluator first wrote it, ms
 * @param updatedAtMs wall-clock time of the last change, ms
 * @param resolvedAtMs wall-clock time it was resolved, ms; null while open
 * @param notes notes, oldest first, at most {@link IncidentNote#MAX_NOTES}
 */
public record Incident(Diagnosis diagnosis, long openedAtMs, long updatedAtMs, Long resolvedAtMs,
    List<IncidentNote> notes) {

  /** Normalises null notes to empty and copies them. */
  public Incident {
    notes = notes == null ? List.of() : List.copyOf(notes);
  }

  /** @return the incident's id, that of its diagnosis */
  public String id() {
    return diagnosis.id();
  }

  /** @return whether it still holds */
  public boolean open() {
    return diagnosis.endMs() == null;
  }
}
