package io.inferlens.storage;

/**
 * The order of series in query results, as Prometheus sorts them: label by label, name then
 * value, each in UTF-8 byte order; a label set that is a prefix of another sorts first.
 */
public final class LabelOrder {

  private LabelOrder() {}

  /**
   * @param a a label set
   * @param b another
   * @return negative, zero or positive as {@code a} sorts before, with or after {@code b}
   */
  public static int compare(LabelSet a, LabelSet b) {
    int n = Math.min(a.size(), b.size());
    for (int i = 0; i < n; i++) {
      int c = LabelSet.compareUtf8(a.name(i), b.name(i));
      if (c != 0) {
        return c;
      }
      c = LabelSet.compareUtf8(a.value(i), b.value(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  }
}
