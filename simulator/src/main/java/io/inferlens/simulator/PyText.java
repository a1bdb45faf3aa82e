package io.inferlens.simulator;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Text exposition (format 0.0.4) as Python's prometheus_client {@code generate_latest} writes it,
 * for the servers built on it (vLLM, SGLang): {@code # HELP} then {@code # TYPE} per family,
 * sorted label names ({@link Labels}), {@link PromFormat#pyFloat} numbers, and either
 * <ul>
 *   <li>the default registry: counters and histograms followed by a {@code _created} gauge family
 *       with the same HELP, histograms written buckets, {@code _count}, {@code _sum}; or
 *   <li>multiprocess mode ({@code MultiProcessCollector}): no {@code _created}, histograms
 *       written {@code _sum}, buckets, {@code _count}.
 * </ul>
 * As {@code PyText} in {@code fixtures/tools/gen_vllm.py}. Not thread-safe; one per rendering.
 */
final class PyText {

  /** The {@code le} texts of each bound list (the lists are constants): formatting is slow. */
  private static final Map<double[], String[]> LE =
      Collections.synchronizedMap(new IdentityHashMap<>());

  /** A value per row of a family. */
  interface RowValue {
    double get(int row);
  }

  /** A histogram per row of a family. */
  interface RowHistogram {
    Histogram get(int row);
  }

  private final StringBuilder sb = new StringBuilder(48 * 1024);
  private final boolean multiprocess;
  private final double createdBase;
  private int createdCount;

  /**
   * @param multiprocess whether to render as prometheus_client's multiprocess collector
   * @param createdEpochSeconds Unix time (seconds) the metrics were created, for {@code _created}
   */
  PyText(boolean multiprocess, double createdEpochSeconds) {
    this.multiprocess = multiprocess;
    this.createdBase = createdEpochSeconds;
  }

  /** The next {@code _created} value: the start time plus a few microseconds per child. */
  double nextCreated() {
    return createdBase + 1.76e-5 * createdCount++;
  }

  /** Writes {@code # HELP} and {@code # TYPE}. */
  void head(String name, String help, String type) {
    sb.append("# HELP ").append(name).append(' ').append(help).append('\n');
    sb.append("# TYPE ").append(name).append(' ').append(type).append('\n');
  }

  /** Writes one sample line. */
  void line(String name, String labelText, double value) {
    sb.append(name).append(labelText).append(' ').append(PromFormat.pyFloat(value)).append('\n');
  }

  /** A gauge family, one sample per row. */
  void gauge(String name, String help, Labels[] rows, RowValue v) {
    head(name, help, "gauge");
    for (int i = 0; i < rows.length; i++) {
      line(name, rows[i].text(), v.get(i));
    }
  }

  /**
   * A counter family {@code base_total}, then (default registry) {@code base_created}.
   *
   * @param base the name without {@code _total}
   */
  void counter(String base, String help, Labels[] rows, RowValue v) {
    head(base + "_total", help, "counter");
    for (int i = 0; i < rows.length; i++) {
      line(base + "_total", rows[i].text(), v.get(i));
    }
    created(base + "_created", help, rows);
  }

  /**
   * A histogram family rendered at {@code bounds}, then (default registry) its {@code _created}.
   *
   * @param bounds the family's finite bounds, each a bound of every row's histogram
   */
  void histogram(String name, String help, Labels[] rows, double[] bounds, RowHistogram h) {
    head(name, help, "histogram");
    String[] les = LE.computeIfAbsent(bounds, b -> {
      String[] out = new String[b.length + 1];
      for (int k = 0; k < b.length; k++) {
        out[k] = PromFormat.pyFloat(b[k]);
      }
      out[b.length] = "+Inf";
      return out;
    });
    for (int i = 0; i < rows.length; i++) {
      Histogram hist = h.get(i);
      long[] cum = hist.cumulativeAt(bounds);
      if (multiprocess) {
        line(name + "_sum", rows[i].text(), hist.sum());
      }
      for (int k = 0; k < les.length; k++) {
        line(name + "_bucket", rows[i].textWith("le", les[k]), cum[k]);
      }
      line(name + "_count", rows[i].text(), hist.count());
      if (!multiprocess) {
        line(name + "_sum", rows[i].text(), hist.sum());
      }
    }
    created(name + "_created", help, rows);
  }

  private void created(String name, String help, Labels[] rows) {
    if (multiprocess) {
      return;
    }
    head(name, help, "gauge");
    for (Labels row : rows) {
      line(name, row.text(), nextCreated());
    }
  }

  /** @return the text written so far */
  String text() {
    return sb.toString();
  }
}
