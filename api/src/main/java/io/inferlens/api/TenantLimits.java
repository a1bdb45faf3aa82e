package io.inferlens.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.inferlens.ingest.IngestionRate;
import io.inferlens.ingest.LabelLimits;
import io.inferlens.storage.SeriesLimits;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Per-tenant limits ({@code --multitenancy.limits FILE}), as Mimir's runtime configuration
 * overrides the default limits of chosen tenants: every tenant gets the {@code --limits.*} flags,
 * and a tenant listed here gets the values given for it instead. The keys are the flags' names
 * without {@code --limits.}:
 *
 * <pre>
 * overrides:
 *   team-a:                      # a tenant id
 *     max-series: 2000000
 *     max-series-per-metric: 200000
 *     ingestion-rate: 50000      # samples/s; 0 turns the limit off for this tenant
 *     ingestion-burst: 100000
 *   team-b:
 *     max-label-names-per-series: 40
 * </pre>
 *
 * <p>Also {@code max-label-name-length}, {@code max-label-value-length} and
 * {@code max-metric-name-length}. Read once at start-up, strictly: an unknown key, a tenant id
 * that is not one ({@link Tenants#check}), a value of the wrong type or outside its flag's range
 * fails naming the file, the tenant and the key.
 *
 * @param overrides tenant id → the settings given for it (flag suffix → value)
 */
public record TenantLimits(Map<String, Map<String, Number>> overrides) {

  /** No file: every tenant gets the flags. */
  public static final TenantLimits NONE = new TenantLimits(Map.of());

  /** The keys a tenant may set: the {@code --limits.*} flags without their prefix. */
  static final List<String> KEYS = List.of("max-series", "max-series-per-metric",
      "max-label-names-per-series", "max-label-name-length", "max-label-value-length",
      "max-metric-name-length", "ingestion-rate", "ingestion-burst");

  /** Copies the maps, so the record stays immutable. */
  public TenantLimits {
    Map<String, Map<String, Number>> copy = new LinkedHashMap<>();
    overrides.forEach((k, v) -> copy.put(k, Map.copyOf(v)));
    overrides = java.util.Collections.unmodifiableMap(copy);
  }

  /**
   * Reads and validates the file against the flags' values, so a combination the flags would
   * refuse (a burst without a rate) fails now.
   *
   * @param file the YAML file
   * @param base the server's configuration, whose limits the file overrides
   * @return the overrides
   * @throws IllegalArgumentException naming the file, the tenant and the key
   */
  public static TenantLimits load(Path file, ServerConfig base) {
    String where = "--multitenancy.limits " + file + ": ";
    JsonNode root;
    try {
      ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
      yaml.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
      yaml.enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);
      root = yaml.readTree(Files.readAllBytes(file));
    } catch (java.nio.file.NoSuchFileException e) {
      throw new IllegalArgumentException(where + "no such file", e);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalArgumentException(where + "not valid YAML"
          + (e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()) + ": "
          + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException(where + "cannot read it: " + e, e);
    }
    try {
      TenantLimits limits = parse(root);
      for (String tenant : limits.overrides().keySet()) {
        limits.apply(tenant, base);
      }
      return limits;
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + e.getMessage(), e);
    }
  }

  /**
   * @param root the parsed document (null or empty: no overrides)
   * @return the overrides, types and ids checked, ranges not yet
   * @throws IllegalArgumentException naming the tenant and key, without the file name
   */
  static TenantLimits parse(JsonNode root) {
    if (root == null || root.isMissingNode() || root.isNull()) {
      return NONE;
    }
    if (!root.isObject()) {
      throw new IllegalArgumentException("the document must be a mapping with the key overrides");
    }
    Map<String, Map<String, Number>> out = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> top : root.properties()) {
      if (!top.getKey().equals("overrides")) {
        throw new IllegalArgumentException("unknown key " + top.getKey()
            + " (the only key is overrides)");
      }
      if (top.getValue().isNull()) {
        continue;
      }
      if (!top.getValue().isObject()) {
        throw new IllegalArgumentException("overrides must map tenant ids to their limits");
      }
      for (Map.Entry<String, JsonNode> t : top.getValue().properties()) {
        String bad = Tenants.check(t.getKey());
        if (bad != null) {
          throw new IllegalArgumentException("overrides." + t.getKey() + ": not a tenant id ("
              + bad + ")");
        }
        Map<String, Number> values = new LinkedHashMap<>();
        if (!t.getValue().isObject()) {
          throw new IllegalArgumentException("overrides." + t.getKey()
              + " must map limits to numbers");
        }
        for (Map.Entry<String, JsonNode> kv : t.getValue().properties()) {
          String at = "overrides." + t.getKey() + "." + kv.getKey();
          if (!KEYS.contains(kv.getKey())) {
            throw new IllegalArgumentException(at + ": unknown limit (known: "
                + String.join(", ", KEYS) + ")");
          }
          JsonNode v = kv.getValue();
          boolean rate = kv.getKey().equals("ingestion-rate");
          if (!(rate ? v.isNumber() : v.isIntegralNumber())) {
            throw new IllegalArgumentException(at + ": " + v + " is not "
                + (rate ? "a number" : "an integer"));
          }
          if (!rate && !v.canConvertToLong()) {
            throw new IllegalArgumentException(at + ": " + v + " is too large (at most "
                + Long.MAX_VALUE + ")");
          }
          values.put(kv.getKey(), rate ? (Number) v.asDouble() : (Number) v.asLong());
        }
        out.put(t.getKey(), values);
      }
    }
    return new TenantLimits(out);
  }

  /**
   * @param tenant a tenant id
   * @param base the server's configuration
   * @return {@code base} with this tenant's overrides of its series limits, label limits and
   *     ingestion rate; {@code base} itself when the tenant has none
   * @throws IllegalArgumentException naming the tenant and the flag when a value is out of the
   *     flag's range
   */
  ServerConfig apply(String tenant, ServerConfig base) {
    Map<String, Number> o = overrides.get(tenant);
    if (o == null || o.isEmpty()) {
      return base;
    }
    try {
      SeriesLimits s = base.seriesLimits();
      LabelLimits l = base.labelLimits();
      IngestionRate r = base.ingestionRate();
      SeriesLimits series = new SeriesLimits(
          o.getOrDefault("max-series", s.maxSeries()).longValue(),
          o.getOrDefault("max-series-per-metric", s.maxSeriesPerMetric()).longValue());
      LabelLimits labels = new LabelLimits(
          intValue(o, "max-label-names-per-series", l.maxLabelNamesPerSeries()),
          intValue(o, "max-label-name-length", l.maxLabelNameLength()),
          intValue(o, "max-label-value-length", l.maxLabelValueLength()),
          intValue(o, "max-metric-name-length", l.maxMetricNameLength()),
          l.allowUtf8Names());
      IngestionRate rate = new IngestionRate(
          o.getOrDefault("ingestion-rate", r.samplesPerSecond()).doubleValue(),
          o.getOrDefault("ingestion-burst", r.burst()).longValue());
      return base.withSeriesLimits(series).withWriteLimits(labels, rate);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("overrides." + tenant + ": " + e.getMessage(), e);
    }
  }

  private static int intValue(Map<String, Number> o, String key, int dflt) {
    Number n = o.get(key);
    if (n == null) {
      return dflt;
    }
    if (n.longValue() > Integer.MAX_VALUE || n.longValue() < Integer.MIN_VALUE) {
      throw new IllegalArgumentException(key + " " + n + " is over " + Integer.MAX_VALUE);
    }
    return n.intValue();
  }
}
