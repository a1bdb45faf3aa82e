package io.inferlens.analysis.catalog;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The signal catalog: for each {@link Signal}, the ordered {@link MetricSource}s that can provide
 * it across serving stacks and versions, plus the {@link Stack}s those sources belong to.
 *
 * <p>The built-in catalog is the resource {@code io/inferlens/analysis/catalog/signals.json}. Its
 * names follow the fixture files and {@code fixtures/README.md} of the repository (vLLM 0.6 V0,
 * 0.10 and 0.13 V1, SGLang, TGI, Triton/TensorRT-LLM, llama.cpp, dcgm-exporter, kafka_exporter);
 * the vLLM names follow {@code vllm/engine/metrics.py} (V0) and {@code vllm/v1/metrics/loggers.py}
 * (V1); the V0 spellings {@code gpu_cache_usage_perc} and {@code time_per_output_token_seconds} are
 * marked deprecated as vLLM PR #29330 removed (or hid) them.
 *
 * <h2>JSON format</h2>
 * <pre>{@code
 * { "version": 1,
 *   "stacks":  { "<stack>": { "role": "ENGINE|GATEWAY|GPU|UPSTREAM",
 *                             "labelAliases": { "model_name": "model" },   // optional
 *                             "joinOn": ["model_name"] } },                  // optional, GATEWAY only
 *   "signals": { "<SIGNAL>": [ <source>, ... ]                               // = merge PREPEND
 *              | "<SIGNAL>": { "merge": "PREPEND|REPLACE", "sources": [ <source>, ... ] } } }
 * <source> = { "name": "...", "kind": "HISTOGRAM|GAUGE|COUNTER|GAUGE_RATIO", "stack": "<stack>",
 *              "matchers": { "label": "value" }, "denominators": ["..."], "scale": 1.0,
 *              "aggregation": "SUM|AVG|MAX", "ignoredValues": [-1],
 *              "deprecated": false, "replacedBy": "..." }
 * }</pre>
 * Only {@code name}, {@code kind} and {@code stack} are required in a source. A {@code "comment"}
 * key is allowed anywhere and ignored; any other unknown key is an error, so typos do not pass
 * silently. Signal names are the {@link Signal} constants.
 *
 * <h2>Merge rule for a user file ({@link #load(Path)})</h2>
 * The user file has the same format and is applied on top of the built-in catalog:
 * <ul>
 *   <li>a user stack adds a stack or replaces the built-in stack of the same name;
 *   <li>a signal given as an array, or with {@code "merge": "PREPEND"}, puts the user's sources
 *       first, in the user's order, followed by the built-in ones; a built-in source that reads
 *       the same series (same name, kind, stack and matchers) as a user source is dropped, so a
 *       user entry can also re-tune a built-in source (scale, aggregation);
 *   <li>{@code "merge": "REPLACE"} makes the user's sources the signal's only sources (an empty
 *       list disables the signal);
 *   <li>signals the user file does not mention keep their built-in sources.
 * </ul>
 * After merging, every source's stack must exist and every {@code replacedBy} must name another
 * source of the same signal.
 *
 * <p>Thread safety: immutable, safe to share.
 */
public final class SignalCatalog {

  /** Classpath location of the built-in catalog. */
  public static final String BUILT_IN_RESOURCE = "/io/inferlens/analysis/catalog/signals.json";

  private final Map<Signal, List<MetricSource>> sources;
  private final Map<String, Stack> stacks;

  SignalCatalog(Map<Signal, List<MetricSource>> sources, Map<String, Stack> stacks) {
    EnumMap<Signal, List<MetricSource>> copy = new EnumMap<>(Signal.class);
    for (Signal s : Signal.values()) {
      copy.put(s, List.copyOf(sources.getOrDefault(s, List.of())));
    }
    this.sources = Collections.unmodifiableMap(copy);
    this.stacks = Collections.unmodifiableMap(new LinkedHashMap<>(stacks));
  }

  /** Holder for the parsed built-in catalog, read once. */
  private static final class BuiltIn {
    static final SignalCatalog INSTANCE = readBuiltIn();
  }

  /**
   * The built-in catalog.
   *
   * @return the catalog, shared (it is immutable)
   * @throws IllegalStateException if the bundled resource is missing or invalid (a build bug)
   */
  public static SignalCatalog load() {
    return BuiltIn.INSTANCE;
  }

  /**
   * The built-in catalog extended by a user file, per the merge rule in the class comment.
   *
   * @param userFile a JSON file in the catalog format
   * @return the merged catalog
   * @throws IllegalArgumentException if the file cannot be read, is not valid JSON or violates the
   *     format; the message names the file and the offending entry (e.g.
   *     {@code signals.E2E[0].kind})
   */
  public static SignalCatalog load(Path userFile) {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(userFile);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "signal catalog " + userFile + ": cannot read the file: " + e, e);
    }
    CatalogParser.Parsed user = CatalogParser.parse(userFile.toString(), bytes);
    return merge(load(), user, userFile.toString());
  }

  private static SignalCatalog readBuiltIn() {
    try (InputStream in = SignalCatalog.class.getResourceAsStream(BUILT_IN_RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("built-in signal catalog " + BUILT_IN_RESOURCE
            + " is missing from the classpath: a packaging bug");
      }
      CatalogParser.Parsed parsed = CatalogParser.parse(BUILT_IN_RESOURCE, in.readAllBytes());
      SignalCatalog empty = new SignalCatalog(Map.of(), Map.of());
      return merge(empty, parsed, BUILT_IN_RESOURCE);
    } catch (IOException e) {
      throw new UncheckedIOException("reading " + BUILT_IN_RESOURCE, e);
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("built-in signal catalog is invalid: " + e.getMessage(), e);
    }
  }

  private static SignalCatalog merge(SignalCatalog base, CatalogParser.Parsed user, String file) {
    Map<String, Stack> stacks = new LinkedHashMap<>(base.stacks);
    stacks.putAll(user.stacks());
    Map<Signal, List<MetricSource>> merged = new EnumMap<>(Signal.class);
    for (Signal s : Signal.values()) {
      List<MetricSource> builtIn = base.sources.get(s);
      CatalogParser.Entry entry = user.signals().get(s);
      if (entry == null) {
        merged.put(s, builtIn);
        continue;
      }
      List<MetricSource> out = new ArrayList<>(entry.sources());
      if (entry.merge() == CatalogParser.Merge.PREPEND) {
        for (MetricSource b : builtIn) {
          if (entry.sources().stream().noneMatch(u -> u.sameSeriesAs(b))) {
            out.add(b);
          }
        }
      }
      merged.put(s, out);
    }
    for (Map.Entry<Signal, List<MetricSource>> e : merged.entrySet()) {
      List<MetricSource> list = e.getValue();
      for (int i = 0; i < list.size(); i++) {
        MetricSource src = list.get(i);
        String where = "signal catalog " + file + ": signals." + e.getKey() + " source \"" + src.name() + "\"";
        if (!stacks.containsKey(src.stack())) {
          throw new IllegalArgumentException(where + ": unknown stack \"" + src.stack()
              + "\" (known: " + stacks.keySet() + ")");
        }
        if (!src.replacedBy().isEmpty()
            && list.stream().noneMatch(o -> o.name().equals(src.replacedBy()) && o != src)) {
          throw new IllegalArgumentException(where + ": replacedBy \"" + src.replacedBy()
              + "\" is not a source of the same signal");
        }
      }
    }
    return new SignalCatalog(merged, stacks);
  }

  /**
   * @param signal a signal
   * @return its sources in resolution order; empty when no stack provides it. Unmodifiable.
   */
  public List<MetricSource> sources(Signal signal) {
    return sources.get(signal);
  }

  /** @return stack name → stack, in file order (built-in first). Unmodifiable. */
  public Map<String, Stack> stacks() {
    return stacks;
  }

  /**
   * @param name a stack name used by a source
   * @return the stack
   * @throws IllegalArgumentException if no such stack (cannot happen for a source of this catalog)
   */
  public Stack stack(String name) {
    Stack s = stacks.get(name);
    if (s == null) {
      throw new IllegalArgumentException("unknown stack \"" + name + "\"");
    }
    return s;
  }

  /**
   * The concrete series names read by the sources of {@link StackRole#ENGINE} stacks (histogram
   * {@code _bucket}/{@code _sum}/{@code _count}, numerators and denominators): a series with one
   * of these names belongs to an inference engine and defines a target.
   *
   * @return series name → its stack, in catalog order; unmodifiable
   */
  public Map<String, Stack> engineSeriesNames() {
    Map<String, Stack> out = new LinkedHashMap<>();
    for (List<MetricSource> list : sources.values()) {
      for (MetricSource src : list) {
        Stack stack = stacks.get(src.stack());
        if (stack.role() == StackRole.ENGINE) {
          for (String n : src.seriesNames()) {
            out.putIfAbsent(n, stack);
          }
        }
      }
    }
    return Collections.unmodifiableMap(out);
  }
}
