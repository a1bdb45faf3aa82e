#!/usr/bin/env python3
"""Times PromQL range queries against InferLens and Prometheus 2.42 holding the same data
(scripts/QueryBenchLoad.java), alternating between the two, and checks that both answer the
same. Run by scripts/query-bench.sh, which starts both servers and loads the data; see
docs/BENCHMARKS.md, "Query benchmark (issue 18)".

Each query is sent as Grafana sends it: a form POST to /api/v1/query_range (query, start, end,
step; times in seconds), over one keep-alive HTTP/1.1 connection per system. The time is the
client's wall time from sending the request to having read the whole answer (JSON parsing not
included), in milliseconds. One warm-up per query and system, then ROUNDS rounds; in each round
every query runs on both systems, the first system alternating round by round.

Queries (times are multiples of the step, as Grafana aligns them):
  rate30d      rate(qbench_requests_total[5m]), ~29.8 days, step 1h
  hq100x1d     histogram_quantile(0.95, sum by (le) (rate(vllm:e2e_request_latency_seconds_bucket
               [5m]))) over the 100 targets' last day, step 60 s
  dashboard    every panel query of the Live overview dashboard over 7 days, sent at once (8
               connections, as Grafana queries panels in parallel); variables "All", resolved
               with /api/v1/label/<name>/values as Grafana does; step and $__rate_interval as
               Grafana computes them for a 1000 px panel and a 15 s scrape interval
  panel:<i>    the same panel queries one by one (breakdown of the dashboard figure)
  rate1h30d    rate(qbench_requests_total[1h]) over the same 30 days, step 1h
  rate1h30d@1h the same on InferLens with max_source_resolution=1h (rollups; values differ from
               raw by design: no extrapolation), compared with InferLens's raw answer
  sum50x30d    sum(rate(qbench_fleet_requests_total[1h])) over 50 counters, same range and step,
               and with max_source_resolution=1h on InferLens (sum50x30d@1h): a 30-day panel
               reading many series
  floor30d     vector(1) over the same 30 days: a request that reads no samples (HTTP, parsing,
               717 points of JSON), the floor under the two above

Results agree when both have the same series (label sets) with the same timestamps and every
value within 1e-6 relative (1e-12 absolute near zero; NaN equals NaN). Peak RSS is VmHWM from
/proc/PID/status: at the end of loading (the process's peak so far), and over the query phase
alone (reset with /proc/PID/clear_refs = 5 before the warm-ups).
"""
import argparse
import http.client
import json
import math
import os
import re
import statistics
import sys
import threading
import time
import urllib.parse

# The Live overview panel queries (grafana/dashboards/live-overview.json), used when the file
# is not in the checkout.
BUILTIN_PANELS = [
    'histogram_quantile(0.5, sum by (le) (rate(vllm:e2e_request_latency_seconds_bucket{model_name=~"$model_name", instance=~"$instance"}[$__rate_interval])))',
    'histogram_quantile(0.95, sum by (le) (rate(vllm:e2e_request_latency_seconds_bucket{model_name=~"$model_name", instance=~"$instance"}[$__rate_interval])))',
    'histogram_quantile(0.99, sum by (le) (rate(vllm:e2e_request_latency_seconds_bucket{model_name=~"$model_name", instance=~"$instance"}[$__rate_interval])))',
    'sum(rate(vllm:request_success_total{model_name=~"$model_name", instance=~"$instance"}[$__rate_interval]))',
    'sum(vllm:num_requests_waiting{model_name=~"$model_name", instance=~"$instance"})',
    'sum(vllm:num_requests_running{model_name=~"$model_name", instance=~"$instance"})',
    'avg(DCGM_FI_DEV_GPU_UTIL{Hostname=~"$host"} or DCGM_FI_DEV_GPU_UTIL{hostname=~"$host"} or DCGM_FI_DEV_GPU_UTIL{instance=~"($host):[0-9]+"})',
    'avg(vllm:kv_cache_usage_perc{model_name=~"$model_name", instance=~"$instance"})',
]
# Queries also timed on InferLens with max_source_resolution=1h.
ROLLED = ("rate1h30d", "sum50x30d")
BUILTIN_VARIABLES = [
    ("model_name", "label_values(vllm:num_requests_running, model_name)", ""),
    ("instance", 'label_values(vllm:num_requests_running{model_name=~"$model_name"}, instance)', ""),
    ("host", 'label_values(vllm:num_requests_running{model_name=~"$model_name", instance=~"$instance"}, instance)',
     "/^(.*?)(:[0-9]+)?$/"),
]


class Client:
    """One keep-alive HTTP/1.1 connection to a server."""

    def __init__(self, hostport):
        self.hostport = hostport
        self.conn = None

    def request(self, method, path, body=None):
        """Returns (status, body bytes, wall milliseconds)."""
        headers = {"Content-Type": "application/x-www-form-urlencoded"} if body else {}
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.hostport, timeout=600)
            try:
                t0 = time.perf_counter()
                self.conn.request(method, path, body=body, headers=headers)
                r = self.conn.getresponse()
                data = r.read()
                ms = (time.perf_counter() - t0) * 1000
                return r.status, data, ms
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise

    def query_range(self, q, start, end, step, extra=None):
        form = {"query": q, "start": fmt(start), "end": fmt(end), "step": fmt(step)}
        form.update(extra or {})
        # Go's url.Values.Encode: keys sorted.
        body = urllib.parse.urlencode(sorted(form.items()))
        status, data, ms = self.request("POST", "/api/v1/query_range", body)
        if status != 200:
            raise RuntimeError("%s answered %d to %s: %s" % (self.hostport, status, q, data[:500]))
        return data, ms


def fmt(x):
    return ("%.3f" % x).rstrip("0").rstrip(".")


# ---- Grafana's rules (see api/src/test/java/io/inferlens/api/GrafanaQueryRules.java on the
# grafana branch for the sources): timing, variable interpolation.

def round_interval_ms(ms):
    up_to = [10, 15, 35, 75, 150, 350, 750, 1500, 3500, 7500, 12500, 17500, 25000, 45000, 90000,
             210000, 450000, 750000, 1050000, 1500000, 2700000, 5400000, 9000000, 16200000,
             32400000, 86400000, 172800000, 604800000, 1814400000]
    to = [1, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 15000, 20000, 30000, 60000,
          120000, 300000, 600000, 900000, 1200000, 1800000, 3600000, 7200000, 10800000,
          21600000, 43200000, 86400000, 86400000, 604800000]
    for u, t in zip(up_to, to):
        if ms <= u:
            return t
    return 2592000000 if ms < 3628800000 else 31536000000


def grafana_timing(range_ms, max_points, scrape_ms):
    """(step ms, $__rate_interval ms) of a panel without min interval."""
    interval = max(round_interval_ms(range_ms / max_points), scrape_ms)
    per_point = range_ms // max_points
    calculated = interval if per_point < interval else round_interval_ms(per_point)
    step = max(calculated, round_interval_ms(range_ms // 11000))
    return step, max(interval + scrape_ms, 4 * scrape_ms)


def go_duration(ms):
    h, rem = divmod(ms, 3600000)
    m, rem = divmod(rem, 60000)
    s = ("%.3f" % (rem / 1000)).rstrip("0").rstrip(".")
    return ("%dh" % h if h else "") + ("%dm" % m if h or m else "") + s + "s"


def regex_escape(v):
    v = v.replace("\\", "\\\\\\\\")
    return re.sub(r"[$^*{}\[\]'+?.()|]", lambda m: "\\\\" + m.group(0), v)


def interpolate(text, values):
    def rep(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name not in values:
            return m.group(0)
        vs = values[name]
        if len(vs) == 1:
            return regex_escape(vs[0])
        return "(" + "|".join(regex_escape(v) for v in vs) + ")"
    return re.sub(r"\$(\w+)|\[\[(\w+?)\]\]|\$\{(\w+)\}", rep, text)


def load_dashboard(path):
    """(panel exprs, variables [(name, query, regex)], source) of a dashboard file."""
    if not path or not os.path.exists(path):
        return BUILTIN_PANELS, BUILTIN_VARIABLES, "built-in copy of live-overview.json's queries"
    d = json.load(open(path))
    exprs = []

    def walk(panels):
        for p in panels:
            walk(p.get("panels", []))
            for t in p.get("targets", []):
                if t.get("expr") and not t.get("hide"):
                    exprs.append(t["expr"])
    walk(d.get("panels", []))
    variables = []
    for v in d.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v["query"]["query"] if isinstance(v.get("query"), dict) else v.get("query")
            variables.append((v["name"], q, v.get("regex", "")))
    return exprs, variables, path


def resolve_variables(client, variables, start_s, end_s):
    """Each variable's values ("All") as Grafana gets them, in order (later ones use earlier)."""
    values = {}
    for name, q, rx in variables:
        m = re.match(r"^label_values\((?:(.+),\s*)?([a-zA-Z_][a-zA-Z0-9_]*)\)\s*$", interpolate(q, values))
        metric, label = m.group(1), m.group(2)
        params = [("start", str(math.ceil(start_s))), ("end", str(math.ceil(end_s)))]
        if metric:
            params.insert(0, ("match[]", metric))
        status, data, _ = client.request("GET", "/api/v1/label/%s/values?%s" % (
            label, urllib.parse.urlencode(params, quote_via=urllib.parse.quote)))
        if status != 200:
            raise RuntimeError("%s: label values %s answered %d %s" % (client.hostport, q, status, data[:300]))
        got = json.loads(data)["data"]
        if rx:
            pat = re.compile(rx[1:rx.rindex("/")])
            kept = []
            for g in got:
                mm = pat.search(g)
                if mm:
                    kept.append(mm.group(1) if mm.groups() and mm.group(1) is not None else g)
            got = sorted(set(kept))
        if not got:
            raise RuntimeError("variable %s has no values on %s" % (name, client.hostport))
        values[name] = got
    return values


# ---- comparison

def parse(data):
    d = json.loads(data)
    if d.get("status") != "success":
        raise RuntimeError("query failed: %s" % data[:500])
    out = {}
    for s in d["data"]["result"]:
        key = tuple(sorted(s["metric"].items()))
        out[key] = [(float(t), float(v)) for t, v in s["values"]]
    return out


def close(a, b, rel=1e-6):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= max(rel * max(abs(a), abs(b)), 1e-12)


def compare(x, y):
    """None if the two answers agree, else a description of the first difference."""
    if set(x) != set(y):
        return "series differ: %d vs %d; only in first: %s; only in second: %s" % (
            len(x), len(y), list(set(x) - set(y))[:2], list(set(y) - set(x))[:2])
    for k in x:
        a, b = x[k], y[k]
        if [t for t, _ in a] != [t for t, _ in b]:
            return "timestamps differ for %s: %d vs %d points" % (dict(k), len(a), len(b))
        for (t, va), (_, vb) in zip(a, b):
            if not close(va, vb):
                return "value differs for %s at %s: %r vs %r" % (dict(k), t, va, vb)
    return None


def deviation(raw, rolled):
    """(points compared, max relative deviation) of a rollup answer from the raw one."""
    n, worst = 0, 0.0
    for k, pts in rolled.items():
        ref = dict(raw.get(k, []))
        for t, v in pts:
            if t in ref and ref[t] != 0:
                n += 1
                worst = max(worst, abs(v - ref[t]) / abs(ref[t]))
    return n, worst


def proc_status(pid, key):
    for line in open("/proc/%d/status" % pid):
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024.0  # MiB
    return float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--inferlens", required=True, help="host:port")
    ap.add_argument("--inferlens-pid", type=int, required=True)
    ap.add_argument("--prometheus", required=True, help="host:port")
    ap.add_argument("--prometheus-pid", type=int, required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dashboard", default="")
    ap.add_argument("--results", required=True, help="path without extension (.txt and .json)")
    ap.add_argument("--info", default="", help="a line for the results' header")
    a = ap.parse_args()

    man = json.load(open(a.manifest))
    end_s = man["end_ms"] / 1000.0
    H = 3600
    systems = {"inferlens": Client(a.inferlens), "prometheus": Client(a.prometheus)}
    pids = {"inferlens": a.inferlens_pid, "prometheus": a.prometheus_pid}
    rss_load = {k: proc_status(p, "VmHWM") for k, p in pids.items()}
    rss_now = {k: proc_status(p, "VmRSS") for k, p in pids.items()}
    for p in pids.values():
        with open("/proc/%d/clear_refs" % p, "w") as f:
            f.write("5")

    # 30 days: whole hours, the first window ([t - 1h, t]) inside the data.
    end30 = math.floor(end_s / H) * H
    start30 = math.ceil((man["counter_start_ms"] / 1000.0 + H) / H) * H
    end1d = math.floor(end_s / 60) * 60
    start1d = math.ceil(man["fleet_start_ms"] / 1000.0 / 60) * 60
    range7 = 7 * 86400
    step7_ms, rate7_ms = grafana_timing(range7 * 1000, 1000, 15000)
    step7 = step7_ms / 1000
    end7 = math.floor(end_s / step7) * step7
    start7 = math.floor((end_s - range7) / step7) * step7

    exprs, variables, dash_source = load_dashboard(a.dashboard)
    var_values = {n: resolve_variables(c, variables, end_s - range7, end_s) for n, c in systems.items()}
    if var_values["inferlens"] != var_values["prometheus"]:
        raise RuntimeError("dashboard variables differ: %s" % var_values)
    vals = var_values["prometheus"]
    panels = []
    for e in exprs:
        e = interpolate(e, vals)
        e = e.replace("$__rate_interval", go_duration(rate7_ms))
        panels.append(e)

    queries = [
        ("rate30d", "rate(qbench_requests_total[5m])", start30, end30, H),
        ("hq100x1d", "histogram_quantile(0.95, sum by (le) (rate(vllm:e2e_request_latency_seconds_bucket[5m])))",
         start1d, end1d, 60),
        ("rate1h30d", "rate(qbench_requests_total[1h])", start30, end30, H),
        ("floor30d", "vector(1)", start30, end30, H),
        ("sum50x30d", "sum(rate(qbench_fleet_requests_total[1h]))", start30, end30, H),
    ]
    for i, e in enumerate(panels):
        queries.append(("panel:%d" % i, e, start7, end7, step7))

    times = {}  # (name, system) -> [ms]
    answers = {}

    def run(name, system, q, s, e, st, extra=None):
        data, ms = systems[system].query_range(q, s, e, st, extra)
        times.setdefault((name, system), []).append(ms)
        return data

    def dashboard_load(system):
        """All panel queries at once, a connection each; wall ms until the last answer."""
        clients = [Client(systems[system].hostport) for _ in panels]
        errors = []
        done = [None] * len(panels)

        def one(i):
            try:
                done[i] = clients[i].query_range(panels[i], start7, end7, step7)[0]
            except Exception as ex:  # noqa: BLE001 - reported below
                errors.append(ex)
        ths = [threading.Thread(target=one, args=(i,)) for i in range(len(panels))]
        t0 = time.perf_counter()
        for t in ths:
            t.start()
        for t in ths:
            t.join()
        ms = (time.perf_counter() - t0) * 1000
        for c in clients:
            if c.conn:
                c.conn.close()
        if errors:
            raise errors[0]
        times.setdefault(("dashboard", system), []).append(ms)
        return done

    order = ["inferlens", "prometheus"]
    q_start = time.time()
    for rnd in range(a.rounds + 1):  # round 0 is the warm-up
        first = order if rnd % 2 == 0 else order[::-1]
        for name, q, s, e, st in queries:
            for system in first:
                data = run(name, system, q, s, e, st)
                if rnd == 0:
                    answers[(name, system)] = parse(data)
            if name in ROLLED:
                data = run(name + "@1h", "inferlens", q, s, e, st, {"max_source_resolution": "1h"})
                if rnd == 0:
                    answers[(name + "@1h", "inferlens")] = parse(data)
        for system in first:
            dashboard_load(system)
        if rnd == 0:
            times = {k: [] for k in times}  # drop the warm-ups
    q_secs = time.time() - q_start
    rss_query = {k: proc_status(p, "VmHWM") for k, p in pids.items()}

    # Agreement.
    checks = {}
    for name, *_ in queries:
        diff = compare(answers[(name, "inferlens")], answers[(name, "prometheus")])
        checks[name] = diff or "same (%d series, %d points)" % (
            len(answers[(name, "prometheus")]), sum(len(v) for v in answers[(name, "prometheus")].values()))
    empty = []
    for name in ROLLED:
        n, worst = deviation(answers[(name, "inferlens")], answers[(name + "@1h", "inferlens")])
        rolled = answers[(name + "@1h", "inferlens")]
        checks[name + "@1h"] = "%d series, %d points; max deviation from raw %.3g (no extrapolation)" % (
            len(rolled), sum(len(v) for v in rolled.values()), worst)
        if n == 0:
            checks[name + "@1h"] += " EMPTY"
            empty.append(name + "@1h")

    # Table.
    def stats(k):
        v = times.get(k)
        return (statistics.median(v), min(v), max(v)) if v else None

    rows = []
    labels = [("rate30d", "rate(counter[5m]), 30 d, step 1h"),
              ("hq100x1d", "histogram_quantile(0.95, sum by (le)(rate(bucket[5m]))), 100 targets x 1 d, step 60s"),
              ("dashboard", "Live overview load, %d panel queries at once, 7 d, step %ds" % (len(panels), step7)),
              ("rate1h30d", "rate(counter[1h]), 30 d, step 1h, raw"),
              ("rate1h30d@1h", "the same, max_source_resolution=1h (InferLens only)"),
              ("sum50x30d", "sum(rate(counter[1h])) over 50 counters, 30 d, step 1h, raw"),
              ("sum50x30d@1h", "the same, max_source_resolution=1h (InferLens only)"),
              ("floor30d", "vector(1), 30 d, step 1h: the cost of a request that reads nothing")]
    labels += [("panel:%d" % i, "  panel query %d alone: %s" % (i, panels[i][:70] + ("..." if len(panels[i]) > 70 else "")))
               for i in range(len(panels))]
    lines = []
    hdr = "%-100s | %-26s | %-26s | %s" % ("query", "InferLens ms med (min-max)", "Prometheus ms med (min-max)", "ratio IL/P med (per-round min-max)")
    lines.append(hdr)
    lines.append("-" * len(hdr))
    for key, label in labels:
        il, pr = stats((key, "inferlens")), stats((key, "prometheus"))
        cell = lambda s: "%.1f (%.1f-%.1f)" % s if s else "-"
        ratio = ""
        if il and pr:
            per = [x / y for x, y in zip(times[(key, "inferlens")], times[(key, "prometheus")])]
            ratio = "%.3f (%.3f-%.3f)" % (il[0] / pr[0], min(per), max(per))
        rows.append({"key": key, "label": label, "inferlens_ms": times.get((key, "inferlens")),
                     "prometheus_ms": times.get((key, "prometheus"))})
        lines.append("%-100s | %-26s | %-26s | %s" % (label, cell(il), cell(pr), ratio))
    lines.append("")
    for name in ROLLED:
        raw, rolled_t = stats((name, "inferlens")), stats((name + "@1h", "inferlens"))
        lines.append("max_source_resolution=1h speed-up on InferLens, %s (raw median / rollup median): %.1fx"
                     % (name, raw[0] / rolled_t[0]))
    lines.append("peak RSS MiB (VmHWM), load phase:  InferLens %.0f, Prometheus %.0f (ratio %.2f); RSS when queries started: %.0f / %.0f"
                 % (rss_load["inferlens"], rss_load["prometheus"], rss_load["inferlens"] / rss_load["prometheus"],
                    rss_now["inferlens"], rss_now["prometheus"]))
    lines.append("peak RSS MiB (VmHWM), query phase: InferLens %.0f, Prometheus %.0f (ratio %.2f)"
                 % (rss_query["inferlens"], rss_query["prometheus"], rss_query["inferlens"] / rss_query["prometheus"]))
    lines.append("")
    lines.append("answers (InferLens vs Prometheus, from the warm-up round):")
    for k, v in checks.items():
        lines.append("  %-14s %s" % (k, v))
    lines.append("")
    lines.append("dashboard: %s; variables %s; step %ds, $__rate_interval %s; range %s .. %s" % (
        dash_source, json.dumps(vals), step7, go_duration(rate7_ms), fmt(start7), fmt(end7)))
    lines.append("30-day range %s .. %s (%.2f days); 1-day range %s .. %s; %d rounds after 1 warm-up, %.0f s of queries"
                 % (fmt(start30), fmt(end30), (end30 - start30) / 86400, fmt(start1d), fmt(end1d), a.rounds, q_secs))
    lines.append("data: %s" % json.dumps(man))
    if a.info:
        lines.append(a.info)
    text = "\n".join(lines)
    print(text)
    with open(a.results + ".txt", "w") as f:
        f.write(text + "\n")
    with open(a.results + ".json", "w") as f:
        json.dump({"rows": rows, "checks": checks, "rss_load_mib": rss_load, "rss_query_mib": rss_query,
                   "rss_at_query_start_mib": rss_now, "panels": panels, "variables": vals,
                   "manifest": man, "info": a.info}, f, indent=1)
    bad = [k for k, v in checks.items() if not v.startswith("same") and not k.endswith("@1h")] + empty
    if bad:
        print("MISMATCH in: %s" % bad, file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
