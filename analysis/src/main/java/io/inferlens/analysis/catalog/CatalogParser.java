package io.inferlens.analysis.catalog;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads one catalog JSON document into stacks and per-signal entries, validating every field.
 * Works on Jackson's tree model so each error can name the file and the JSON path of the entry.
 */
final class CatalogParser {

  /** How a file's sources for a signal combine with the ones before it. */
  enum Merge { PREPEND, REPLACE }

  /** The sources a file gives for one signal. */
  record Entry(Merge merge, List<MetricSource> sources) {}

  /** A parsed file. */
  record Parsed(Map<String, Stack> stacks, Map<Signal, Entry> signals) {}

  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);

  private static final Set<String> TOP_KEYS = Set.of("comment", "version", "stacks", "signals");
  private static final Set<String> STACK_KEYS = Set.of("comment", "role", "labelAliases", "joinOn");
  private static final Set<String> ENTRY_KEYS = Set.of("comment", "merge", "sources");
  private static final Set<String> SOURCE_KEYS = Set.of("comment", "name", "kind", "stack",
      "matchers", "denominators", "scale", "aggregation", "ignoredValues", "deprecated", "replacedBy");

  private final String file;

  private CatalogParser(String file) {
    this.file = file;
  }

  /**
   * @param file the file name for messages
   * @param json the document, UTF-8
   * @return the parsed content
   * @throws IllegalArgumentException naming the file and entry on any error
   */
  static Parsed parse(String file, byte[] json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      JsonLocation loc = e.getLocation();
      String at = loc == null ? "" : " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
      throw new IllegalArgumentException(
          "signal catalog " + file + ": not valid JSON" + at + ": " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("signal catalog " + file + ": " + e, e);
    }
    return new CatalogParser(file).root(root);
  }

  private Parsed root(JsonNode root) {
    if (root == null || !root.isObject()) {
      throw error("(root)", "must be a JSON object");
    }
    keys(root, "(root)", TOP_KEYS);
    JsonNode version = root.get("version");
    if (version != null && !(version.isInt() && version.intValue() == 1)) {
      throw error("version", "must be 1, got " + version);
    }
    Map<String, Stack> stacks = new LinkedHashMap<>();
    JsonNode stacksNode = root.get("stacks");
    if (stacksNode != null) {
      object(stacksNode, "stacks");
      for (Map.Entry<String, JsonNode> e : stacksNode.properties()) {
        stacks.put(e.getKey(), stack(e.getKey(), e.getValue()));
      }
    }
    Map<Signal, Entry> signals = new EnumMap<>(Signal.class);
    JsonNode signalsNode = root.get("signals");
    if (signalsNode != null) {
      object(signalsNode, "signals");
      for (Map.Entry<String, JsonNode> e : signalsNode.properties()) {
        String path = "signals." + e.getKey();
        Signal signal = enumValue(Signal.class, e.getKey(), path);
        signals.put(signal, entry(e.getValue(), path));
      }
    }
    return new Parsed(stacks, signals);
  }

  private Stack stack(String name, JsonNode node) {
    String path = "stacks." + name;
    object(node, path);
    keys(node, path, STACK_KEYS);
    if (name.isEmpty()) {
      throw error(path, "stack name is empty");
    }
    StackRole role = enumValue(StackRole.class, text(node, "role", path, null), path + ".role");
    return new Stack(name, role, stringMap(node.get("labelAliases"), path + ".labelAliases"),
        stringList(node.get("joinOn"), path + ".joinOn"));
  }

  private Entry entry(JsonNode node, String path) {
    if (node.isArray()) {
      return new Entry(Merge.PREPEND, sources(node, path));
    }
    object(node, path);
    keys(node, path, ENTRY_KEYS);
    Merge merge = enumValue(Merge.class, text(node, "merge", path, "PREPEND"), path + ".merge");
    JsonNode list = node.get("sources");
    if (list == null || !list.isArray()) {
      throw error(path + ".sources", "must be an array of sources");
    }
    return new Entry(merge, sources(list, path + ".sources"));
  }

  private List<MetricSource> sources(JsonNode array, String path) {
    List<MetricSource> out = new ArrayList<>();
    for (int i = 0; i < array.size(); i++) {
      out.add(source(array.get(i), path + "[" + i + "]"));
    }
    return out;
  }

  private MetricSource source(JsonNode node, String path) {
    object(node, path);
    keys(node, path, SOURCE_KEYS);
    String name = text(node, "name", path, null);
    if (name.isEmpty()) {
      throw error(path + ".name", "is empty");
    }
    String where = path + " (\"" + name + "\")";
    SourceKind kind = enumValue(SourceKind.class, text(node, "kind", where, null), where + ".kind");
    String stack = text(node, "stack", where, null);
    double scale = 1.0;
    JsonNode scaleNode = node.get("scale");
    if (scaleNode != null) {
      if (!scaleNode.isNumber()) {
        throw error(where + ".scale", "must be a number, got " + scaleNode);
      }
      scale = scaleNode.doubleValue();
    }
    Aggregation aggregation = enumValue(Aggregation.class,
        text(node, "aggregation", where, "SUM"), where + ".aggregation");
    List<Double> ignored = new ArrayList<>();
    JsonNode ignoredNode = node.get("ignoredValues");
    if (ignoredNode != null) {
      if (!ignoredNode.isArray()) {
        throw error(where + ".ignoredValues", "must be an array of numbers");
      }
      for (JsonNode v : ignoredNode) {
        if (!v.isNumber()) {
          throw error(where + ".ignoredValues", "must be an array of numbers, got " + v);
        }
        ignored.add(v.doubleValue());
      }
    }
    boolean deprecated = false;
    JsonNode dep = node.get("deprecated");
    if (dep != null) {
      if (!dep.isBoolean()) {
        throw error(where + ".deprecated", "must be true or false, got " + dep);
      }
      deprecated = dep.booleanValue();
    }
    String replacedBy = text(node, "replacedBy", where, "");
    try {
      return new MetricSource(name, kind, stack, stringMap(node.get("matchers"), where + ".matchers"),
          stringList(node.get("denominators"), where + ".denominators"), scale, aggregation, ignored,
          deprecated, replacedBy);
    } catch (IllegalArgumentException e) {
      throw error(where, e.getMessage());
    }
  }

  // ----- helpers

  private void object(JsonNode node, String path) {
    if (!node.isObject()) {
      throw error(path, "must be a JSON object, got " + node.getNodeType());
    }
  }

  private void keys(JsonNode node, String path, Set<String> allowed) {
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String k = it.next();
      if (!allowed.contains(k)) {
        throw error(path, "unknown key \"" + k + "\" (allowed: " + allowed.stream().sorted().toList() + ")");
      }
    }
  }

  private String text(JsonNode node, String key, String path, String dflt) {
    JsonNode v = node.get(key);
    if (v == null || v.isNull()) {
      if (dflt == null) {
        throw error(path + "." + key, "is required");
      }
      return dflt;
    }
    if (!v.isTextual()) {
      throw error(path + "." + key, "must be a string, got " + v);
    }
    return v.textValue();
  }

  private Map<String, String> stringMap(JsonNode node, String path) {
    Map<String, String> out = new LinkedHashMap<>();
    if (node == null) {
      return out;
    }
    object(node, path);
    for (Map.Entry<String, JsonNode> e : node.properties()) {
      if (e.getKey().isEmpty() || !e.getValue().isTextual() || e.getValue().textValue().isEmpty()) {
        throw error(path, "needs non-empty string keys and values, got \"" + e.getKey() + "\": " + e.getValue());
      }
      out.put(e.getKey(), e.getValue().textValue());
    }
    return out;
  }

  private List<String> stringList(JsonNode node, String path) {
    List<String> out = new ArrayList<>();
    if (node == null) {
      return out;
    }
    if (!node.isArray()) {
      throw error(path, "must be an array of strings");
    }
    for (JsonNode v : node) {
      if (!v.isTextual() || v.textValue().isEmpty()) {
        throw error(path, "must be an array of non-empty strings, got " + v);
      }
      out.add(v.textValue());
    }
    return out;
  }

  private <E extends Enum<E>> E enumValue(Class<E> type, String value, String path) {
    for (E c : type.getEnumConstants()) {
      if (c.name().equals(value)) {
        return c;
      }
    }
    throw error(path, "unknown value \"" + value + "\" (expected one of "
        + Arrays.toString(type.getEnumConstants()) + ")");
  }

  private IllegalArgumentException error(String path, String message) {
    return new IllegalArgumentException("signal catalog " + file + ": " + path + ": " + message);
  }
}
