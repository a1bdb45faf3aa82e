// URL state: every view is #/path?query so a view can be shared by its URL.

export const RANGES = { '1h': 3600, '6h': 6 * 3600, '24h': 86400, '7d': 7 * 86400, '30d': 30 * 86400 };
/**
 * Parameters that follow the user from view to view. `tenant` names the store every request reads
 * on a --multitenancy server (api.js sends it as X-Scope-OrgID), so shared links and alert links
 * open on their tenant.
 */
const GLOBAL = ['range', 'from', 'to', 'refresh', 'tenant'];

/** @returns {{path: string, parts: string[], params: Object<string,string>}} */
export function current() {
  const h = location.hash.replace(/^#/, '') || '/';
  const q = h.indexOf('?');
  const path = q < 0 ? h : h.slice(0, q);
  const params = Object.fromEntries(new URLSearchParams(q < 0 ? '' : h.slice(q + 1)));
  // Ids are URL-safe as the API spells them (target ids percent-encode their label values):
  // path segments are used as they are, never decoded.
  return { path, parts: path.split('/').filter(Boolean), params };
}

/** A link to `path` carrying the global parameters plus `extra` (null removes one). */
export function link(path, extra = {}, keepGlobal = true) {
  const cur = current().params;
  const p = {};
  if (keepGlobal) for (const k of GLOBAL) if (cur[k] != null) p[k] = cur[k];
  for (const [k, v] of Object.entries(extra)) {
    if (v == null) delete p[k]; else p[k] = String(v);
  }
  const q = new URLSearchParams(p).toString();
  return '#' + path + (q ? '?' + q : '');
}

/** A link to `path` that keeps only the tenant: for header links, which open a page's defaults. */
export function tenantLink(path) {
  return link(path, { tenant: current().params.tenant }, false);
}

/** Changes parameters of the current view (null removes one); the router re-renders. */
export function update(patch) {
  location.hash = link(current().path, { ...current().params, ...patch }, false);
}

/** Seconds since the epoch from a URL value: Unix seconds or anything Date parses. */
/**
 * A URL time in Unix seconds: Unix seconds (`1796150410`, decimals allowed), Unix milliseconds
 * (`1796150410000`: any number over 1e11, which in seconds would be after the year 5000) or
 * RFC 3339 (`2026-12-01T10:00:00Z`).
 * @param {string} v the raw `from`/`to` value
 * @returns {number|null} seconds, or null when the value is none of these
 */
export function toSeconds(v) {
  if (/^\d+(\.\d+)?$/.test(v)) {
    const n = Number(v);
    return n > 1e11 ? n / 1000 : n;
  }
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : t / 1000;
}

/**
 * The time range the URL asks for.
 * @param {string} def default range key when the URL has none
 * @returns {{start: number, end: number, key: string}} Unix seconds
 */
export function timeRange(def = '6h') {
  const p = current().params;
  const key = p.range || def;
  if (key === 'custom') {
    const start = toSeconds(p.from || '');
    const end = toSeconds(p.to || '');
    if (start != null && end != null && end > start) return { start: align(start), end: align(end), key };
  }
  const d = RANGES[key] || RANGES[def];
  const end = align(Date.now() / 1000);
  return { start: end - d, end, key: RANGES[key] ? key : def };
}

/**
 * Range ends on a 15 s grid: the analysis evaluates on a grid anchored at `start`, so aligned
 * ranges give the same steps (and the same diagnosis ids) whatever their length.
 */
export const GRID_S = 15;
function align(sec) {
  return Math.floor(sec / GRID_S) * GRID_S;
}
