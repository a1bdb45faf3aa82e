package io.inferlens.analysis.diagnose;

import java.util.List;

/**
 * One layer of the latency → queue → resource drill-down.
 *
 * @param layer {@code latency}, {@code queue} or {@code resource}
 * @param verdict {@code breached} (latency), {@code saturated} (queue, resource), {@code normal},
 *     or {@code unknown} when the layer's signals are not exposed
 * @param evidence the facts behind the verdict, possibly empty when unknown
 */
public record ChainLayer(String layer, String verdict, List<Evidence> evidence) {}
