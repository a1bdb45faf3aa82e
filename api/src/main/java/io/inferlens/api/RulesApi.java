package io.inferlens.api;

import com.linecorp.armeria.common.HttpMethod;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.MediaType;
import com.linecorp.armeria.common.QueryParams;
import com.linecorp.armeria.server.HttpService;
import io.inferlens.analysis.diagnose.AnalysisConfig;
import io.inferlens.analysis.diagnose.DiagnosisEngine;
import io.inferlens.analysis.diagnose.Indicator;
import io.inferlens.analysis.promql.ast.Printer;
import io.inferlens.analysis.rules.AlertRules;
import io.inferlens.analysis.rules.RuleGroup;
import io.inferlens.analysis.rules.RuleOptions;
import io.inferlens.analysis.rules.RulesYaml;
import io.inferlens.analysis.target.Target;
import io.inferlens.storage.Matcher;
import io.inferlens.storage.StorageException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /api/v1/rules/export}: Prometheus alerting rules per target with today's learned
 * thresholds, as a rule file (YAML, {@code application/yaml}) for teams that alert from their
 * own Prometheus ({@link AlertRules} says which rules and why).
 *
 * <p>Parameters: {@code for} (the rules' {@code for}, default 5m), {@code window} (the range of
 * every {@code rate}, default the server's {@code --rate-window}), both seconds or Prometheus
 * durations; {@code match[]} (optional, repeatable) series selectors keeping the targets whose
 * grouping labels match one of them, as {@code /api/v1/diagnoses}; {@code external_url} (the
 * base of each alert's {@code runbook_url}; default the server's {@code --web.external-url},
 * else the scheme and {@code Host} this request came with). Targets are those with engine samples in the last hour. Errors: 400 JSON envelope
 * ({@code bad_data}) naming the parameter; 503 when the store fails.
 */
final class RulesApi {

  private static final Logger log = LoggerFactory.getLogger(RulesApi.class);

  /** Targets with engine samples this recent, milliseconds, get rules. */
  static final long RECENT_MS = 3_600_000L;

  /** The media type of the answer (RFC 9512). */
  static final MediaType YAML = MediaType.parse("application/yaml; charset=utf-8");

  private final DiagnosisEngine engine;
  private final Clock clock;
  private final String externalUrl;

  /**
   * @param engine the analysis engine whose thresholds are exported
   * @param clock the present
   * @param externalUrl the server's {@code --web.external-url}, the default {@code external_url};
   *     null to take the request's scheme and {@code Host}
   */
  RulesApi(DiagnosisEngine engine, Clock clock, String externalUrl) {
    this.engine = engine;
    this.clock = clock;
    this.externalUrl = externalUrl;
  }

  /** @param sb where to bind the route (the server, or one tenant's route table) */
  void bind(Routes sb) {
    sb.service("/api/v1/rules/export", service());
  }

  private HttpService service() {
    return (ctx, req) -> {
      if (req.method() != HttpMethod.GET) {
        return JsonEndpoints.error(ErrorMapping.Kind.METHOD_NOT_ALLOWED,
            "rules export takes GET, not " + req.method());
      }
      String base = externalUrl != null ? externalUrl
          : (ctx.sessionProtocol().isTls() ? "https://" : "http://")
          + (req.authority() == null ? ctx.localAddress().getHostString() + ":"
              + ctx.localAddress().getPort() : req.authority());
      return HttpResponse.of(req.aggregate().thenApplyAsync(agg -> {
        try {
          return HttpResponse.of(HttpStatus.OK, YAML, export(ctx.queryParams(), base));
        } catch (IllegalArgumentException e) {
          return JsonEndpoints.error(ErrorMapping.Kind.BAD_DATA, e.getMessage());
        } catch (StorageException e) {
          log.error("rules export failed in the store", e);
          return JsonEndpoints.error(ErrorMapping.Kind.UNAVAILABLE, e.getMessage());
        }
      }, ctx.blockingTaskExecutor()));
    };
  }

  /**
   * @param p the request's parameters
   * @param requestBase {@code scheme://host:port} the request came to, the default external URL
   * @return the rule file's text
   * @throws IllegalArgumentException naming a bad parameter
   * @throws StorageException if the store fails
   */
  String export(QueryParams p, String requestBase) throws StorageException {
    AnalysisConfig config = engine.config();
    long forMs = duration(p, "for", config.forMs());
    long windowMs = duration(p, "window", config.rateWindowMs());
    RuleOptions options = new RuleOptions(forMs, windowMs, p.get("external_url", requestBase));
    List<List<Matcher>> selectors = new ArrayList<>();
    for (String s : p.getAll("match[]")) {
      try {
        selectors.add(SelectorParser.parseAny(s));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("invalid parameter match[]: " + e.getMessage(), e);
      }
    }
    long now = clock.millis();
    List<RuleGroup> groups = new ArrayList<>();
    for (Target t : engine.targets(now - RECENT_MS, now)) {
      if (DiagnosisEngine.selected(t, selectors)) {
        groups.add(AlertRules.forTarget(engine.analyze(t, now - RECENT_MS, now, 0), config,
            options));
      }
    }
    return RulesYaml.render(header(config, options, now), groups);
  }

  private static long duration(QueryParams p, String name, long fallback) {
    String v = p.get(name);
    return v == null || v.isEmpty() ? fallback : TimeParams.parseDurationMs(name, v);
  }

  private static List<String> header(AnalysisConfig config, RuleOptions o, long nowMs) {
    List<String> h = new ArrayList<>();
    h.add("Prometheus alerting rules exported by InferLens " + VersionProvider.version() + " at "
        + Instant.ofEpochMilli(nowMs) + " (GET /api/v1/rules/export).");
    h.add("Thresholds are today's: an explicit --slo where configured, else the learned normal"
        + " P95 over " + Printer.duration(config.baselineLookbackMs()) + " x "
        + config.baselineHeadroom() + ". Re-export to follow the baselines as they move.");
    StringBuilder slos = new StringBuilder();
    for (Map.Entry<Indicator, Double> e : config.slos().entrySet()) {
      slos.append(slos.length() == 0 ? "" : ", ").append(e.getKey().key()).append('=')
          .append(e.getValue());
    }
    h.add("for: " + Printer.duration(o.forMs()) + ", rate window: "
        + Printer.duration(o.windowMs()) + ", SLOs: " + (slos.length() == 0 ? "none" : slos)
        + ". MONITORING_GAP and VERSION_REGRESSION are found by InferLens only.");
    h.add("");
    return h;
  }
}
