package io.inferlens.analysis.promql.engine;

import io.inferlens.analysis.promql.ast.BinaryOp;
import io.inferlens.analysis.promql.ast.Expr.VectorMatching;
import io.inferlens.analysis.promql.ast.Expr.VectorMatching.Cardinality;
import io.inferlens.storage.LabelSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * PromQL binary operators at one step, as Prometheus 2.42 ({@code promql/engine.go}:
 * {@code VectorBinop}, {@code VectorAnd}, {@code VectorOr}, {@code VectorUnless},
 * {@code VectorscalarBinop}, {@code scalarBinop}, {@code vectorElemBinop}):
 *
 * <ul>
 *   <li>arithmetic but {@code atan2} drops {@code __name__}; a comparison filters (keeping the vector's value and
 *       name) unless {@code bool} is given, which gives 0 or 1 and drops the name;
 *   <li>vector matching pairs samples by their labels {@code on} the listed ones, or all labels
 *       {@code ignoring} the listed ones and the name; one-to-one matching errors when a side has
 *       two samples for one match group; {@code group_left}/{@code group_right} copy the
 *       {@code include} labels from the "one" side;
 *   <li>{@code and}, {@code or}, {@code unless} keep the left side's samples (and names).
 * </ul>
 *
 * Float arithmetic follows Go's: {@code %} is {@code math.Mod} (the sign of the dividend), and
 * {@code ^} is {@code math.Pow}, whose special cases differ from Java's ({@link #goPow}).
 */
final class BinaryOps {

  private BinaryOps() {}

  /**
   * Per input label set, what one binary node computes from it at every step (matching
   * signature, output labels), kept across steps; keyed by identity since the input series'
   * label sets recur. Null caches mean compute afresh.
   */
  static final class Cache {
    final java.util.IdentityHashMap<LabelSet, List<String>> signatures =
        new java.util.IdentityHashMap<>();
    final java.util.IdentityHashMap<LabelSet, LabelSet> outputs = new java.util.IdentityHashMap<>();
  }

  /**
   * @param op a non-set operator
   * @param l left value
   * @param r right value
   * @return the result; a comparison gives 1 or 0 (scalar comparisons need {@code bool})
   */
  static double scalarScalar(BinaryOp op, double l, double r) {
    if (op.isComparison()) {
      return compare(op, l, r) ? 1 : 0;
    }
    return arithmetic(op, l, r);
  }

  /**
   * Prometheus's {@code shouldDropMetricName}: {@code + - * / % ^} drop the name; {@code atan2}
   * and comparisons without {@code bool} keep it.
   */
  static boolean dropsName(BinaryOp op) {
    switch (op) {
      case ADD, SUB, MUL, DIV, MOD, POW: return true;
      default: return false;
    }
  }

  /** @return whether a comparison without {@code bool} drops this pair */
  private static boolean filtersOut(BinaryOp op, double l, double r, boolean returnBool) {
    return op.isComparison() && !returnBool && !compare(op, l, r);
  }

  /**
   * Prometheus's {@code vectorElemBinop} for a pair {@link #filtersOut} kept: arithmetic, 1/0
   * for a comparison with {@code bool}, else {@code kept} (the vector's own value).
   */
  private static double elem(BinaryOp op, double l, double r, boolean returnBool, double kept) {
    if (!op.isComparison()) {
      return arithmetic(op, l, r);
    }
    return returnBool ? (compare(op, l, r) ? 1 : 0) : kept;
  }

  static double arithmetic(BinaryOp op, double l, double r) {
    switch (op) {
      case ADD: return l + r;
      case SUB: return l - r;
      case MUL: return l * r;
      case DIV: return l / r;
      case MOD: return l % r;
      case POW: return goPow(l, r);
      case ATAN2: return Math.atan2(l, r);
      default: throw new IllegalArgumentException("not an arithmetic operator: " + op);
    }
  }

  static boolean compare(BinaryOp op, double l, double r) {
    switch (op) {
      case EQL: return l == r;
      case NEQ: return l != r;
      case GTR: return l > r;
      case LSS: return l < r;
      case GTE: return l >= r;
      case LTE: return l <= r;
      default: throw new IllegalArgumentException("not a comparison operator: " + op);
    }
  }

  /**
   * Go's {@code math.Pow}: unlike Java, {@code Pow(1, y) = 1} for any y (NaN too) and
   * {@code Pow(-1, ±Inf) = 1}.
   */
  static double goPow(double x, double y) {
    if (x == 1 || y == 0) {
      return 1;
    }
    if (x == -1 && Double.isInfinite(y)) {
      return 1;
    }
    return Math.pow(x, y);
  }

  /**
   * A vector and a scalar.
   *
   * @param vector the vector's samples
   * @param scalar the scalar's value
   * @param scalarOnLeft whether the scalar is the left operand
   */
  static List<Sample> vectorScalar(BinaryOp op, List<Sample> vector, double scalar,
      boolean scalarOnLeft, boolean returnBool, long ts) {
    return vectorScalar(op, vector, scalar, scalarOnLeft, returnBool, ts, null);
  }

  /** As the other overload, remembering output label sets in {@code cache} (may be null). */
  static List<Sample> vectorScalar(BinaryOp op, List<Sample> vector, double scalar,
      boolean scalarOnLeft, boolean returnBool, long ts, Cache cache) {
    List<Sample> out = new ArrayList<>(vector.size());
    boolean dropName = dropsName(op) || returnBool;
    for (Sample s : vector) {
      double l = scalarOnLeft ? scalar : s.value();
      double r = scalarOnLeft ? s.value() : scalar;
      if (filtersOut(op, l, r, returnBool)) {
        continue;
      }
      double value = elem(op, l, r, returnBool, s.value());
      LabelSet labels = s.labels();
      if (dropName) {
        LabelSet cached = cache == null ? null : cache.outputs.get(labels);
        if (cached == null) {
          cached = LabelBuilder.dropName(labels);
          if (cache != null) {
            cache.outputs.put(labels, cached);
          }
        }
        labels = cached;
      }
      out.add(new Sample(labels, ts, value));
    }
    return out;
  }

  /** Two vectors: set operators or matched arithmetic and comparisons. */
  static List<Sample> vectorVector(BinaryOp op, List<Sample> lhs, List<Sample> rhs,
      VectorMatching matching, boolean returnBool, long ts) {
    return vectorVector(op, lhs, rhs, matching, returnBool, ts, null);
  }

  /** As the other overload, remembering signatures and output labels in {@code cache}. */
  static List<Sample> vectorVector(BinaryOp op, List<Sample> lhs, List<Sample> rhs,
      VectorMatching matching, boolean returnBool, long ts, Cache cache) {
    switch (op) {
      case AND: return and(lhs, rhs, matching, false, cache);
      case UNLESS: return and(lhs, rhs, matching, true, cache);
      case OR: return or(lhs, rhs, matching, cache);
      default: return matched(op, lhs, rhs, matching, returnBool, ts, cache);
    }
  }

  private static List<String> signature(LabelSet labels, VectorMatching m, Cache cache) {
    List<String> sig = cache == null ? null : cache.signatures.get(labels);
    if (sig == null) {
      sig = m.on() ? LabelBuilder.keyOn(labels, m.labels())
          : LabelBuilder.keyWithout(labels, m.labels());
      if (cache != null) {
        cache.signatures.put(labels, sig);
      }
    }
    return sig;
  }

  private static List<Sample> and(List<Sample> lhs, List<Sample> rhs, VectorMatching m,
      boolean unless, Cache cache) {
    if (lhs.isEmpty()) {
      return lhs;
    }
    Set<List<String>> right = new HashSet<>();
    for (Sample s : rhs) {
      right.add(signature(s.labels(), m, cache));
    }
    List<Sample> out = new ArrayList<>();
    for (Sample s : lhs) {
      if (right.contains(signature(s.labels(), m, cache)) != unless) {
        out.add(s);
      }
    }
    return out;
  }

  private static List<Sample> or(List<Sample> lhs, List<Sample> rhs, VectorMatching m,
      Cache cache) {
    if (lhs.isEmpty()) {
      return rhs;
    }
    if (rhs.isEmpty()) {
      return lhs;
    }
    Set<List<String>> left = new HashSet<>();
    List<Sample> out = new ArrayList<>(lhs.size() + rhs.size());
    for (Sample s : lhs) {
      left.add(signature(s.labels(), m, cache));
      out.add(s);
    }
    for (Sample s : rhs) {
      if (!left.contains(signature(s.labels(), m, cache))) {
        out.add(s);
      }
    }
    return out;
  }

  private static List<Sample> matched(BinaryOp op, List<Sample> lhs, List<Sample> rhs,
      VectorMatching m, boolean returnBool, long ts, Cache cache) {
    boolean oneToMany = m.card() == Cardinality.ONE_TO_MANY;
    List<Sample> many = oneToMany ? rhs : lhs;
    List<Sample> one = oneToMany ? lhs : rhs;
    Map<List<String>, Sample> oneSide = new HashMap<>();
    for (Sample s : one) {
      List<String> sig = signature(s.labels(), m, cache);
      Sample dup = oneSide.put(sig, s);
      if (dup != null) {
        throw QueryException.execution("found duplicate series for the match group %s on the %s"
            + " hand-side of the operation: [%s, %s];many-to-many matching not allowed: matching"
            + " labels must be unique on one side", matchGroup(s.labels(), m),
            oneToMany ? "left" : "right", s.labels(), dup.labels());
      }
    }
    Map<List<String>, Set<LabelSet>> matchedSigs = new HashMap<>();
    List<Sample> out = new ArrayList<>();
    for (Sample ms : many) {
      List<String> sig = signature(ms.labels(), m, cache);
      Sample os = oneSide.get(sig);
      if (os == null) {
        continue;
      }
      double l = oneToMany ? os.value() : ms.value();
      double r = oneToMany ? ms.value() : os.value();
      if (filtersOut(op, l, r, returnBool)) {
        continue;
      }
      double value = elem(op, l, r, returnBool, l);
      LabelSet metric;
      if (m.include().isEmpty()) {
        // without group_x labels the output depends on the "many" side alone
        metric = cache == null ? null : cache.outputs.get(ms.labels());
        if (metric == null) {
          metric = resultMetric(ms.labels(), os.labels(), op, m, returnBool);
          if (cache != null) {
            cache.outputs.put(ms.labels(), metric);
          }
        }
      } else {
        metric = resultMetric(ms.labels(), os.labels(), op, m, returnBool);
      }
      Set<LabelSet> inserted = matchedSigs.get(sig);
      if (m.card() == Cardinality.ONE_TO_ONE) {
        if (inserted != null) {
          throw QueryException.execution("multiple matches for labels: many-to-one matching must"
              + " be explicit (group_left/group_right)");
        }
        matchedSigs.put(sig, Set.of());
      } else {
        if (inserted == null) {
          inserted = new HashSet<>();
          matchedSigs.put(sig, inserted);
        }
        if (!inserted.add(metric)) {
          throw QueryException.execution(
              "multiple matches for labels: grouping labels must ensure unique results");
        }
      }
      out.add(new Sample(metric, ts, value));
    }
    return out;
  }

  private static String matchGroup(LabelSet labels, VectorMatching m) {
    LabelBuilder b = new LabelBuilder(labels);
    if (m.on()) {
      b.keep(m.labels());
    } else {
      b.del(m.labels()).del(LabelSet.METRIC_NAME);
    }
    return b.build().toString();
  }

  /** Prometheus's {@code resultMetric}: the output labels of a matched pair. */
  private static LabelSet resultMetric(LabelSet many, LabelSet one, BinaryOp op,
      VectorMatching m, boolean returnBool) {
    LabelBuilder b = new LabelBuilder(many);
    if (dropsName(op) || returnBool) {
      b.del(LabelSet.METRIC_NAME);
    }
    if (m.card() == Cardinality.ONE_TO_ONE) {
      if (m.on()) {
        b.keep(m.labels());
      } else {
        b.del(m.labels());
      }
    }
    for (String name : m.include()) {
      String v = one.get(name);
      if (v != null && !v.isEmpty()) {
        b.set(name, v);
      } else {
        b.del(name);
      }
    }
    return b.build();
  }
}
