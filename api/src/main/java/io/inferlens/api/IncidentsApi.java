package io.inferlens.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.linecorp.armeria.common.AggregatedHttpRequest;
import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.QueryParams;
import com.linecorp.armeria.server.HttpService;
import io.inferlens.analysis.diagnose.Cause;
import io.inferlens.analysis.diagnose.Diagnosis;
import io.inferlens.analysis.incident.Incident;
import io.inferlens.analysis.incident.IncidentJournal;
import io.inferlens.analysis.incident.IncidentNote;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.StorageException;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The incident journal's REST API (docs/DESIGN.md section 4), JSON in the Prometheus envelope:
 *
 * <ul>
 *   <li>{@code GET /api/v1/incidents?start=&end=&cause=&state=open|resolved|all&match[]=&limit=}
 *       → {@code {"incidents":[…]}}, newest start first; each is a diagnosis as
 *       {@code /api/v1/diagnoses} renders it plus {@code openedAt}, {@code updatedAt},
 *       {@code resolvedAt} (RFC 3339 wall-clock times, {@code resolvedAt} null while open) and
 *       {@code notes:[{at, author, text}]}
 *   <li>{@code GET /api/v1/incidents/{id}} → the incident plus {@code similar}: up to
 *       {@value #SIMILAR} past incidents of the same cause on the same target or model, closest
 *       evidence first ({@link IncidentJournal#similar}), without their notes
 *   <li>{@code POST /api/v1/incidents/{id}/notes} with {@code {"text":…, "author":…}} → 201 with
 *       the updated incident
 *   <li>{@code GET /api/v1/incidents/{id}/markdown} → a {@code text/markdown} postmortem
 * </ul>
 *
 * <p>Ids contain {@code /}, {@code ~} and {@code %}: send them URL-encoded as one path segment
 * ({@code encodeURIComponent}); Armeria matches the segment with {@code %2F} still encoded and
 * decodes the path parameter once. Errors: 400 {@code bad_data} naming the parameter or field and
 * its limit, 404 {@code not_found} for an unknown id, 405 for another method, 503 when the store
 * fails.
 */
public final class IncidentsApi {

  private static final Logger log = LoggerFactory.getLogger(IncidentsApi.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Most similar incidents an incident response lists. */
  static final int SIMILAR = 5;
  /** Default and largest {@code limit} of the list. */
  static final int DEFAULT_LIMIT = 1_000;
  static final int MAX_LIMIT = 10_000;
  /** Largest note body accepted, bytes (text and author limits are checked by IncidentNote). */
  static final int MAX_BODY_BYTES = 64 * 1024;

  private final IncidentJournal journal;
  private final String modelLabel;
  private final Clock clock;

  /**
   * @param journal the incident journal
   * @param modelLabel the label naming the served model ({@code engine.targetConfig().modelLabel()}),
   *     for similar incidents on other targets serving the same model
   * @param clock the present: default ranges and note times
   */
  public IncidentsApi(IncidentJournal journal, String modelLabel, Clock clock) {
    this.journal = journal;
    this.modelLabel = modelLabel;
    this.clock = clock;
  }

  /** @param sb where to bind the routes (the server, or one tenant's route table) */
  public void bind(Routes sb) {
    sb.service("/api/v1/incidents", JsonEndpoints.get("incident list", this::list));
    sb.service("/api/v1/incidents/{id}", byId(HttpMethod.GET, this::one));
    sb.service("/api/v1/incidents/{id}/notes", byId(HttpMethod.POST, this::addNote));
    sb.service("/api/v1/incidents/{id}/markdown", byId(HttpMethod.GET, this::markdown));
  }

  /** A handler of one incident's route. */
  @FunctionalInterface
  private interface IdHandler {
    HttpResponse handle(Incident inc, AggregatedHttpRequest req) throws StorageException;
  }

  private HttpService byId(HttpMethod method, IdHandler h) {
    return (ctx, req) -> {
      if (req.method() != method) {
        return JsonEndpoints.error(ErrorMapping.Kind.METHOD_NOT_ALLOWED,
            ctx.path() + " takes " + method + ", not " + req.method());
      }
      return HttpResponse.of(req.aggregate().thenApplyAsync(agg -> {
        String id = ctx.pathParam("id");
        Incident inc = find(id);
        if (inc == null) {
          return JsonEndpoints.error(ErrorMapping.Kind.NOT_FOUND, "no incident with id \"" + id
              + "\" (ids are listed by /api/v1/incidents; URL-encode them as one path segment)");
        }
        try {
          return h.handle(inc, agg);
        } catch (IllegalArgumentException e) {
          return JsonEndpoints.error(ErrorMapping.Kind.BAD_DATA, e.getMessage());
        } catch (NoSuchElementException e) {
          return JsonEndpoints.error(ErrorMapping.Kind.NOT_FOUND, e.getMessage());
        } catch (StorageException e) {
          log.error("incident {} failed in the store", id, e);
          return JsonEndpoints.error(ErrorMapping.Kind.UNAVAILABLE, e.getMessage());
        }
      }, ctx.blockingTaskExecutor()));
    };
  }

  /** The incident by its id, also when a client encoded it twice or not at all. */
  private Incident find(String id) {
    if (id == null) {
      return null;
    }
    Incident inc = journal.get(id);
    if (inc == null && id.contains("%")) {
      try {
        inc = journal.get(java.net.URLDecoder.decode(id.replace("+", "%2B"),
            java.nio.charset.StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        return null; // a stray '%' that is not an escape
      }
    }
    return inc;
  }

  private Object list(QueryParams p) {
    TimeParams t = TimeParams.parse(p.get("start"), p.get("end"), clock);
    Cause cause = cause(p.get("cause"));
    String state = p.get("state", "all");
    if (!state.equals("open") && !state.equals("resolved") && !state.equals("all")) {
      throw new IllegalArgumentException(
          "parameter state must be open, resolved or all, got \"" + state + "\"");
    }
    int limit = limit(p.get("limit"));
    List<List<Matcher>> selectors = new ArrayList<>();
    for (String s : p.getAll("match[]")) {
      selectors.add(SelectorParser.parseAny(s));
    }
    Predicate<Diagnosis> keep = d -> (cause == null || d.cause() == cause)
        && (state.equals("all") || state.equals("open") == (d.endMs() == null))
        && selected(d.target(), selectors);
    List<Incident> found = new ArrayList<>(journal.list(t.startMs(), t.endMs(), keep));
    Collections.reverse(found); // the journal lists oldest start first
    List<Map<String, Object>> out = new ArrayList<>();
    for (Incident inc : found.subList(0, Math.min(limit, found.size()))) {
      out.add(toJson(inc, true));
    }
    return Map.of("incidents", out);
  }

  private static Cause cause(String raw) {
    if (raw == null || raw.isEmpty()) {
      return null;
    }
    try {
      return Cause.valueOf(raw.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      List<String> names = new ArrayList<>();
      for (Cause c : Cause.values()) {
        names.add(c.name());
      }
      throw new IllegalArgumentException(
          "parameter cause must be one of " + names + ", got \"" + raw + "\"");
    }
  }

  private static int limit(String raw) {
    if (raw == null || raw.isEmpty()) {
      return DEFAULT_LIMIT;
    }
    int n;
    try {
      n = Integer.parseInt(raw);
    } catch (NumberFormatException e) {
      n = -1;
    }
    if (n < 1 || n > MAX_LIMIT) {
      throw new IllegalArgumentException(
          "parameter limit must be an integer from 1 to " + MAX_LIMIT + ", got \"" + raw + "\"");
    }
    return n;
  }

  /** Whether grouping labels pass the selectors (empty keeps all); {@code __name__} ignored. */
  private static boolean selected(Map<String, String> labels, List<List<Matcher>> selectors) {
    if (selectors.isEmpty()) {
      return true;
    }
    for (List<Matcher> sel : selectors) {
      boolean all = true;
      for (Matcher m : sel) {
        if (!m.name().equals("__name__") && !m.matches(labels.getOrDefault(m.name(), ""))) {
          all = false;
        }
      }
      if (all) {
        return true;
      }
    }
    return false;
  }

  private HttpResponse one(Incident inc, AggregatedHttpRequest req) {
    Map<String, Object> m = toJson(inc, true);
    List<Map<String, Object>> similar = new ArrayList<>();
    for (Incident s : journal.similar(inc, modelLabel, SIMILAR)) {
      similar.add(toJson(s, false));
    }
    m.put("similar", similar);
    return JsonEndpoints.success(m);
  }

  private HttpResponse addNote(Incident inc, AggregatedHttpRequest req) throws StorageException {
    if (req.content().length() > MAX_BODY_BYTES) {
      throw new IllegalArgumentException("note body has " + req.content().length()
          + " bytes, over the limit of " + MAX_BODY_BYTES);
    }
    JsonNode body;
    try {
      body = JSON.readTree(req.contentUtf8());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(
          "note body is not JSON ({\"text\": \"…\", \"author\": \"…\"}): " + e.getOriginalMessage());
    }
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException(
          "note body must be a JSON object {\"text\": \"…\", \"author\": \"…\"}");
    }
    JsonNode text = body.get("text");
    JsonNode author = body.get("author");
    if (text != null && !text.isNull() && !text.isTextual()) {
      throw new IllegalArgumentException("note field 'text' must be a string");
    }
    if (author != null && !author.isNull() && !author.isTextual()) {
      throw new IllegalArgumentException("note field 'author' must be a string");
    }
    IncidentNote note = new IncidentNote(clock.millis(),
        author == null || author.isNull() ? "" : author.asText(),
        text == null || text.isNull() ? null : text.asText());
    Incident updated = journal.addNote(inc.id(), note);
    Map<String, Object> env = new LinkedHashMap<>();
    env.put("status", "success");
    env.put("data", toJson(updated, true));
    try {
      return HttpResponse.of(HttpStatus.CREATED, MediaType.JSON_UTF_8,
          JSON.writeValueAsBytes(env));
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private HttpResponse markdown(Incident inc, AggregatedHttpRequest req) {
    String md = IncidentMarkdown.render(inc, journal.similar(inc, modelLabel, SIMILAR),
        clock.millis());
    String file = inc.diagnosis().cause().name().toLowerCase(Locale.ROOT) + "-"
        + inc.diagnosis().startMs() + ".md";
    return HttpResponse.builder().status(HttpStatus.OK)
        .content(MediaType.parse("text/markdown; charset=utf-8"), md)
        .header("Content-Disposition", "inline; filename=\"" + file + "\"")
        .build();
  }

  /**
   * @param inc an incident
   * @param notes whether to include its notes
   * @return its REST shape: {@link AnalysisApi#toJson} of the diagnosis plus {@code openedAt},
   *     {@code updatedAt}, {@code resolvedAt} (RFC 3339, null while open) and, when asked,
   *     {@code notes:[{at, author, text}]}
   */
  static Map<String, Object> toJson(Incident inc, boolean notes) {
    Map<String, Object> m = AnalysisApi.toJson(inc.diagnosis());
    m.put("openedAt", Instant.ofEpochMilli(inc.openedAtMs()).toString());
    m.put("updatedAt", Instant.ofEpochMilli(inc.updatedAtMs()).toString());
    m.put("resolvedAt", inc.resolvedAtMs() == null ? null
        : Instant.ofEpochMilli(inc.resolvedAtMs()).toString());
    if (notes) {
      List<Map<String, Object>> ns = new ArrayList<>();
      for (IncidentNote n : inc.notes()) {
        Map<String, Object> nm = new LinkedHashMap<>();
        nm.put("at", Instant.ofEpochMilli(n.atMs()).toString());
        nm.put("author", n.author());
        nm.put("text", n.text());
        ns.add(nm);
      }
      m.put("notes", ns);
    }
    return m;
  }
}
