package io.inferlens.api;

import com.linecorp.armeria.common.QueryParams;
import io.inferlens.storage.StorageException;
import io.inferlens.storage.StoreStats;
import io.inferlens.storage.TsdbStatus;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /api/v1/status/tsdb?limit=N}: the cardinality of the active series in Prometheus's
 * shape (web/api/v1/api.go {@code serveTSDBStatus}; the counts as Debian's Prometheus 2.42
 * answers them for the same data, {@code TsdbStatusApiTest}; {@code limit} as later releases
 * added it, which 2.42 ignores, always answering 10 entries):
 *
 * <pre>{"status":"success","data":{
 *   "headStats":{"numSeries":N,"numLabelPairs":N,"chunkCount":N,"minTime":MS,"maxTime":MS},
 *   "seriesCountByMetricName":[{"name":"vllm:num_requests_waiting","value":12}, …],
 *   "labelValueCountByLabelName":[{"name":"user_id","value":1000}, …],
 *   "memoryInBytesByLabelName":[{"name":"user_id","value":6000}, …],
 *   "seriesCountByLabelValuePair":[{"name":"job=vllm","value":800}, …]}}</pre>
 *
 * <p>Each list holds the top {@code limit} entries (default 10), value descending, ties by name
 * ascending; what each counts is on {@link TsdbStatus}. "Head" means the active series, those
 * {@code --limits.max-series} counts (a sample received in the last hour). {@code limit} must be
 * an integer from 1 to {@value #MAX_LIMIT}: otherwise 400 {@code bad_data} "limit must be a
 * positive number" (Prometheus's message) or naming the maximum (newer Prometheus's bound).
 * Other methods get 405, a closed store 503.
 */
public final class TsdbStatusApi {

  /** Default entries per list: 10, as Prometheus. */
  public static final int DEFAULT_LIMIT = 10;

  /** Largest {@code limit}: 10,000, the bound of Prometheus 3's {@code /status/tsdb}. */
  public static final int MAX_LIMIT = 10_000;

  private final StoreStats store;

  /** @param store the store whose active series are described */
  public TsdbStatusApi(StoreStats store) {
    this.store = store;
  }

  /**
   * Binds {@code /api/v1/status/tsdb}.
   *
   * @param sb where to bind the routes (the server, or one tenant's route table)
   */
  public void bind(Routes sb) {
    sb.service("/api/v1/status/tsdb", JsonEndpoints.get("tsdb status", this::status));
  }

  private Object status(QueryParams p) throws StorageException {
    return data(store.tsdbStatus(limit(p.get("limit"))));
  }

  /**
   * @param s the {@code limit} parameter, or null
   * @return the limit, {@link #DEFAULT_LIMIT} when absent or empty
   * @throws IllegalArgumentException if not an integer in 1..{@value #MAX_LIMIT}
   */
  static int limit(String s) {
    if (s == null || s.isEmpty()) {
      return DEFAULT_LIMIT;
    }
    int limit;
    try {
      limit = Integer.parseInt(s);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("limit must be a positive number");
    }
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be a positive number");
    }
    if (limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be at most " + MAX_LIMIT + ", got " + limit);
    }
    return limit;
  }

  /** @return the {@code data} object in Prometheus's field order */
  static Map<String, Object> data(TsdbStatus s) {
    Map<String, Object> head = new LinkedHashMap<>();
    head.put("numSeries", s.headStats().numSeries());
    head.put("numLabelPairs", s.headStats().numLabelPairs());
    head.put("chunkCount", s.headStats().chunkCount());
    head.put("minTime", s.headStats().minTime());
    head.put("maxTime", s.headStats().maxTime());
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("headStats", head);
    data.put("seriesCountByMetricName", stats(s.seriesCountByMetricName()));
    data.put("labelValueCountByLabelName", stats(s.labelValueCountByLabelName()));
    data.put("memoryInBytesByLabelName", stats(s.memoryInBytesByLabelName()));
    data.put("seriesCountByLabelValuePair", stats(s.seriesCountByLabelValuePair()));
    return data;
  }

  private static List<Map<String, Object>> stats(List<TsdbStatus.Stat> list) {
    List<Map<String, Object>> out = new ArrayList<>(list.size());
    for (TsdbStatus.Stat st : list) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("name", st.name());
      one.put("value", st.value());
      out.add(one);
    }
    return out;
  }
}
