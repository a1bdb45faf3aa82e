/**
 * Incidents: the always-on evaluator ({@link io.inferlens.analysis.incident.IncidentEvaluator})
 * that feeds every target's new steps through its {@link
 * io.inferlens.analysis.diagnose.DiagnosisStream}, and the journal ({@link
 * io.inferlens.analysis.incident.IncidentJournal}) where incidents are kept, opened, updated and
 * resolved with their evidence and notes, for the REST API, Alertmanager and review.
 */
package io.inferlens.analysis.incident;
