package io.inferlens.analysis.incident;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferlens.analysis.diagnose.ChainLayer;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.diagnose.Evidence;
import io.inferlens.storage.JournalStore;
import io.inferlens.storage.StorageException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.function.Predicate;

/**
 * The incident journal: every incident the evaluator opened, updated and resolved, with its
 * evidence snapshot and notes, durable in the store's {@code journal} column family
 * ({@link JournalStore}, one JSON record per incident, storage/FORMAT.md) and held in memory
 * whole, by start time, so listing 30 days of 500 targets reads no disk. Also keeps, per target,
 * the range the evaluator has covered, so requests outside it are evaluated on demand.
 *
 * <p>Thread safe: writes are serialized; reads see a consistent incident each.
 */
public final class IncidentJournal {

  /** An evidence-only change is written at most this often per incident, ms. */
  static final long EVIDENCE_REWRITE_MS = 60_000;

  private static final String COVERAGE = "coverage";
  private final ObjectMapper json = new ObjectMapper()
      .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private final JournalStore store;
  private final ConcurrentSkipListMap<Key, Incident> byStart = new ConcurrentSkipListMap<>();
  private final ConcurrentHashMap<String, Incident> byId = new ConcurrentHashMap<>();
  /** The open incidents by start: the evaluator and the alert APIs read them every cycle. */
  private final ConcurrentSkipListMap<Key, Incident> open = new ConcurrentSkipListMap<>();
  /** Resolved incidents by resolution time (wall clock), for {@link #resolvedSince}. */
  private final ConcurrentSkipListMap<Key, Incident> byResolved = new ConcurrentSkipListMap<>();
  private final ConcurrentHashMap<String, long[]> coverage = new ConcurrentHashMap<>();

  private record Key(long startMs, String id) implements Comparable<Key> {
    @Override
    public int compareTo(Key o) {
      int c = Long.compare(startMs, o.startMs);
      return c != 0 ? c : id.compareTo(o.id);
    }
  }

  private IncidentJournal(JournalStore store) {
    this.store = store;
  }

  /**
   * Reads the whole journal into memory.
   *
   * @param store the store's journal
   * @return the journal
   * @throws StorageException if the store fails, or a record does not decode (naming its id)
   */
  public static IncidentJournal open(JournalStore store) throws StorageException {
    IncidentJournal j = new IncidentJournal(store);
    List<String> bad = new ArrayList<>();
    store.scan(Long.MIN_VALUE, Long.MAX_VALUE, (start, id, value) -> {
      try {
        Incident inc = j.decode(value);
        j.byStart.put(new Key(start, id), inc);
        j.byId.put(id, inc);
        j.index(null, inc);
      } catch (IOException | RuntimeException e) {
        bad.add(id + ": " + e.getMessage());
      }
      return true;
    });
    if (!bad.isEmpty()) {
      throw new StorageException("journal records do not decode: " + bad, null);
    }
    byte[] cov = store.state(COVERAGE);
    if (cov != null) {
      try {
        JsonNode n = j.json.readTree(cov);
        for (Map.Entry<String, JsonNode> e : n.path("targets").properties()) {
          j.coverage.put(e.getKey(), new long[] {e.getValue().path(0).asLong(),
              e.getValue().path(1).asLong()});
        }
      } catch (IOException e) {
        throw new StorageException("journal coverage does not decode: " + e.getMessage(), e);
      }
    }
    return j;
  }

  private byte[] encode(Incident inc) throws StorageException {
    try {
      ObjectNode n = json.createObjectNode();
      n.put("v", 1);
      n.set("diagnosis", json.valueToTree(inc.diagnosis()));
      n.put("openedAtMs", inc.openedAtMs());
      n.put("updatedAtMs", inc.updatedAtMs());
      if (inc.resolvedAtMs() == null) {
        n.putNull("resolvedAtMs");
      } else {
        n.put("resolvedAtMs", inc.resolvedAtMs());
      }
      n.set("notes", json.valueToTree(inc.notes()));
      return json.writeValueAsBytes(n);
    } catch (IOException | IllegalArgumentException e) {
      throw new StorageException("encoding incident " + inc.id() + " failed: " + e.getMessage(),
          e);
    }
  }

  private Incident decode(byte[] value) throws IOException {
    JsonNode n = json.readTree(value);
    if (n.path("v").asInt() != 1) {
      throw new IOException("record layout " + n.path("v") + " is not 1");
    }
    Diagnosis d = json.treeToValue(n.get("diagnosis"), Diagnosis.class);
    List<IncidentNote> notes = new ArrayList<>();
    for (JsonNode note : n.path("notes")) {
      notes.add(json.treeToValue(note, IncidentNote.class));
    }
    return new Incident(d, n.path("openedAtMs").asLong(), n.path("updatedAtMs").asLong(),
        n.path("resolvedAtMs").isNull() ? null : n.path("resolvedAtMs").asLong(), notes);
  }

  private synchronized void write(Incident inc) throws StorageException {
    store.put(inc.diagnosis().startMs(), inc.id(), encode(inc));
    Incident old = byId.put(inc.id(), inc);
    if (old != null && old.diagnosis().startMs() != inc.diagnosis().startMs()) {
      byStart.remove(new Key(old.diagnosis().startMs(), old.id()));
    }
    byStart.put(new Key(inc.diagnosis().startMs(), inc.id()), inc);
    index(old, inc);
  }

  /** Moves an incident between the open and resolved indexes; either argument may be null. */
  private void index(Incident old, Incident inc) {
    if (old != null) {
      open.remove(new Key(old.diagnosis().startMs(), old.id()));
      if (old.resolvedAtMs() != null) {
        byResolved.remove(new Key(old.resolvedAtMs(), old.id()));
      }
    }
    if (inc != null) {
      if (inc.open()) {
        open.put(new Key(inc.diagnosis().startMs(), inc.id()), inc);
      } else if (inc.resolvedAtMs() != null) {
        byResolved.put(new Key(inc.resolvedAtMs(), inc.id()), inc);
      }
    }
  }

  /**
   * Records what the evaluator found: a new incident is opened (or written resolved at once when
   * it already ended), a known one updated when its end, severity, staleness or summary changed,
   * or its evidence changed and was last written {@value #EVIDENCE_REWRITE_MS} ms ago or more.
   *
   * @param d the diagnosis
   * @param nowMs wall-clock time, ms
   * @return the incident as now journaled, or null when nothing changed
   * @throws StorageException if the store fails
   */
  public synchronized Incident record(Diagnosis d, long nowMs) throws StorageException {
    Incident old = byId.get(d.id());
    Incident inc;
    if (old == null) {
      inc = new Incident(d, nowMs, nowMs, d.endMs() == null ? null : nowMs, List.of());
    } else {
      Diagnosis o = old.diagnosis();
      boolean state = !Objects.equals(o.endMs(), d.endMs()) || !o.severity().equals(d.severity())
          || o.stale() != d.stale() || !o.summary().equals(d.summary())
          || o.cause() != d.cause();
      boolean evidence = !o.chain().equals(d.chain())
          && nowMs - old.updatedAtMs() >= EVIDENCE_REWRITE_MS;
      if (!state && !evidence) {
        return null;
      }
      Long resolved = d.endMs() == null ? null
          : old.resolvedAtMs() != null ? old.resolvedAtMs() : Long.valueOf(nowMs);
      inc = new Incident(d, old.openedAtMs(), nowMs, resolved, old.notes());
    }
    write(inc);
    return inc;
  }

  /**
   * Removes an incident that a re-evaluation (late data) no longer finds.
   *
   * @param id its id
   * @throws StorageException if the store fails
   */
  public synchronized void remove(String id) throws StorageException {
    Incident old = byId.remove(id);
    if (old != null) {
      byStart.remove(new Key(old.diagnosis().startMs(), id));
      index(old, null);
      store.delete(old.diagnosis().startMs(), id);
    }
  }

  /**
   * Adds a note.
   *
   * @param id the incident's id
   * @param note the note
   * @return the incident with it
   * @throws NoSuchElementException if there is no such incident
   * @throws IllegalArgumentException if it already has {@link IncidentNote#MAX_NOTES} notes
   * @throws StorageException if the store fails
   */
  public synchronized Incident addNote(String id, IncidentNote note) throws StorageException {
    Incident old = byId.get(id);
    if (old == null) {
      throw new NoSuchElementException("no incident " + id);
    }
    if (old.notes().size() >= IncidentNote.MAX_NOTES) {
      throw new IllegalArgumentException("incident " + id + " has " + old.notes().size()
          + " notes, the limit");
    }
    List<IncidentNote> notes = new ArrayList<>(old.notes());
    notes.add(note);
    Incident inc = new Incident(old.diagnosis(), old.openedAtMs(), old.updatedAtMs(),
        old.resolvedAtMs(), notes);
    write(inc);
    return inc;
  }

  /**
   * @param id an incident id
   * @return the incident, or null
   */
  public Incident get(String id) {
    return byId.get(id);
  }

  /**
   * Incidents overlapping {@code [fromMs, toMs]} (start at or before {@code toMs}, end at or
   * after {@code fromMs}, or still open), oldest start first.
   *
   * @param fromMs range start, ms
   * @param toMs range end, ms
   * @param filter keeps an incident by its diagnosis
   * @return the incidents
   */
  public List<Incident> list(long fromMs, long toMs, Predicate<Diagnosis> filter) {
    List<Incident> out = new ArrayList<>();
    for (Incident inc : byStart.headMap(new Key(toMs, "\uffff"), true).values()) {
      Long end = inc.diagnosis().endMs();
      if ((end == null || end >= fromMs) && filter.test(inc.diagnosis())) {
        out.add(inc);
      }
    }
    return out;
  }

  /** @return the open incidents, oldest start first (from an index: no scan of the journal) */
  public List<Incident> openIncidents() {
    return new ArrayList<>(open.values());
  }

  /** @return how many incidents are open */
  public int openCount() {
    return open.size();
  }

  /**
   * @param sinceMs wall-clock time, ms
   * @return incidents resolved at or after it, oldest start first
   */
  public List<Incident> resolvedSince(long sinceMs) {
    List<Incident> out = new ArrayList<>(
        byResolved.tailMap(new Key(sinceMs, ""), true).values());
    out.sort(java.util.Comparator.comparingLong((Incident i) -> i.diagnosis().startMs())
        .thenComparing(Incident::id));
    return out;
  }

  /** @return how many incidents the journal holds */
  public int size() {
    return byId.size();
  }

  /**
   * Past incidents like this one: the same cause, on the same target or the same model (label
   * {@code modelLabel}), closest evidence first. Closeness is the mean, over the evidence
   * signals both have, of {@code |ln(a / b)|} of their values (so 2× and ½× are equally far);
   * incidents with no common signal rank last.
   *
   * @param inc the incident
   * @param modelLabel the model label name, e.g. {@code model_name}
   * @param limit most to return, ≥ 0
   * @return similar incidents that started before it, closest first
   */
  public List<Incident> similar(Incident inc, String modelLabel, int limit) {
    Diagnosis d = inc.diagnosis();
    String model = d.target().get(modelLabel);
    Map<String, Double> mine = values(d);
    List<Map.Entry<Incident, Double>> ranked = new ArrayList<>();
    for (Incident other : byStart.headMap(new Key(d.startMs(), ""), false).values()) {
      Diagnosis o = other.diagnosis();
      if (o.cause() != d.cause() || other.id().equals(inc.id())) {
        continue;
      }
      boolean sameModel = model != null && !model.isEmpty()
          && model.equals(o.target().get(modelLabel));
      if (!o.target().equals(d.target()) && !sameModel) {
        continue;
      }
      ranked.add(Map.entry(other, distance(mine, values(o))));
    }
    ranked.sort(Comparator.comparingDouble((Map.Entry<Incident, Double> e) -> e.getValue())
        .thenComparing(e -> -e.getKey().diagnosis().startMs()));
    List<Incident> out = new ArrayList<>();
    for (int i = 0; i < Math.min(limit, ranked.size()); i++) {
      out.add(ranked.get(i).getKey());
    }
    return out;
  }

  private static Map<String, Double> values(Diagnosis d) {
    Map<String, Double> m = new HashMap<>();
    for (ChainLayer layer : d.chain()) {
      for (Evidence e : layer.evidence()) {
        m.put(e.signal(), e.value());
      }
    }
    return m;
  }

  private static double distance(Map<String, Double> a, Map<String, Double> b) {
    double sum = 0;
    int n = 0;
    for (Map.Entry<String, Double> e : a.entrySet()) {
      Double o = b.get(e.getKey());
      if (o == null) {
        continue;
      }
      double x = Math.max(Math.abs(e.getValue()), 1e-9);
      double y = Math.max(Math.abs(o), 1e-9);
      sum += Math.abs(Math.log(x / y));
      n++;
    }
    return n == 0 ? Double.MAX_VALUE : sum / n;
  }

  /**
   * @param targetId a target id
   * @return {@code [fromMs, toMs]} the evaluator has covered for it, or null
   */
  public long[] coverage(String targetId) {
    long[] c = coverage.get(targetId);
    return c == null ? null : c.clone();
  }

  /**
   * Sets the covered ranges of several targets and writes them, durably, in one record.
   *
   * @param ranges target id → {@code [fromMs, toMs]}
   * @throws StorageException if the store fails
   */
  public synchronized void setCoverage(Map<String, long[]> ranges) throws StorageException {
    coverage.putAll(ranges);
    ObjectNode n = json.createObjectNode();
    n.put("v", 1);
    ObjectNode t = n.putObject("targets");
    for (Map.Entry<String, long[]> e : coverage.entrySet()) {
      t.putArray(e.getKey()).add(e.getValue()[0]).add(e.getValue()[1]);
    }
    try {
      store.putState(COVERAGE, json.writeValueAsBytes(n));
    } catch (IOException e) {
      throw new StorageException("encoding coverage failed: " + e.getMessage(), e);
    }
  }

  /**
   * Forgets incidents that started before a horizon, as the store's retention does on disk.
   *
   * @param horizonMs the horizon, ms
   * @return incidents forgotten
   */
  public synchronized int forgetBefore(long horizonMs) {
    int n = 0;
    Iterator<Map.Entry<Key, Incident>> it = byStart.headMap(new Key(horizonMs, ""), false)
        .entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<Key, Incident> e = it.next();
      byId.remove(e.getKey().id());
      index(e.getValue(), null);
      it.remove();
      n++;
    }
    return n;
  }
}
