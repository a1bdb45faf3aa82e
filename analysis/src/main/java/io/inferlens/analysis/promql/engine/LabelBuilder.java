package io.inferlens.analysis.promql.engine;

import io.inferlens.storage.LabelSet;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Edits a label set the way Prometheus's {@code labels.Builder} does: set, delete, keep; setting
 * an empty value deletes the label. Not thread safe.
 */
final class LabelBuilder {

  private final TreeMap<String, String> labels = new TreeMap<>(LabelSet.UTF8_ORDER);

  LabelBuilder(LabelSet base) {
    for (int i = 0; i < base.size(); i++) {
      labels.put(base.name(i), base.value(i));
    }
  }

  LabelBuilder set(String name, String value) {
    if (value.isEmpty()) {
      labels.remove(name);
    } else {
      labels.put(name, value);
    }
    return this;
  }

  LabelBuilder del(String name) {
    labels.remove(name);
    return this;
  }

  LabelBuilder del(Collection<String> names) {
    for (String n : names) {
      labels.remove(n);
    }
    return this;
  }

  LabelBuilder keep(Collection<String> names) {
    labels.keySet().retainAll(names);
    return this;
  }

  LabelSet build() {
    List<String> n = new ArrayList<>(labels.size());
    List<String> v = new ArrayList<>(labels.size());
    for (Map.Entry<String, String> e : labels.entrySet()) {
      n.add(e.getKey());
      v.add(e.getValue());
    }
    return LabelSet.of(n, v);
  }

  /** @return {@code labels} without {@code __name__} (the same object if it has none) */
  static LabelSet dropName(LabelSet labels) {
    return labels.without(LabelSet.METRIC_NAME);
  }

  /**
   * @return the labels named in {@code names}, as a key (Prometheus {@code HashForLabels}):
   *     missing labels count as empty values
   */
  static List<String> keyOn(LabelSet labels, List<String> names) {
    List<String> key = new ArrayList<>(names.size());
    for (String n : names) {
      String v = labels.get(n);
      key.add(v == null ? "" : v);
    }
    return key;
  }

  /**
   * @return every label but those in {@code names} and {@code __name__}, as a key (Prometheus
   *     {@code HashWithoutLabels})
   */
  static List<String> keyWithout(LabelSet labels, Collection<String> names) {
    List<String> key = new ArrayList<>(labels.size() * 2);
    for (int i = 0; i < labels.size(); i++) {
      String n = labels.name(i);
      if (n.equals(LabelSet.METRIC_NAME) || names.contains(n)) {
        continue;
      }
      key.add(n);
      key.add(labels.value(i));
    }
    return key;
  }
}
