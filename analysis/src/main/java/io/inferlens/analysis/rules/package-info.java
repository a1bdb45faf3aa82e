/**
 * Prometheus alerting rules from what InferLens learned:
 * {@link io.inferlens.analysis.rules.AlertRules} turns one target's analysis (its PromQL per
 * indicator, today's thresholds) into one rule group whose alerts are named after the cause
 * codes of docs/DESIGN.md section 3 and pair the latency breach with the queue and resource
 * conditions of the classifier;
 * {@link io.inferlens.analysis.rules.RulesYaml} writes the groups as a Prometheus rule file
 * (the {@code groups:} format of Prometheus's docs, "Alerting rules"); the annotations come from
 * {@link io.inferlens.analysis.rules.AlertText}, which InferLens's own notifications share.
 */
package io.inferlens.analysis.rules;
