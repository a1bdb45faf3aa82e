// Fetch helpers for InferLens's JSON API (Prometheus-style envelope).
import { current } from './state.js';

/** The header naming the tenant on a --multitenancy server (Mimir's convention). */
export const TENANT_HEADER = 'X-Scope-OrgID';

/**
 * Request headers: `extra`, plus the URL's tenant when it names one. Nothing is sent without a
 * tenant; a single-store server ignores the header.
 * @param {Object<string, string>} extra other headers
 * @returns {Object<string, string>}
 */
function headers(extra) {
  const tenant = current().params.tenant;
  return tenant ? { ...extra, [TENANT_HEADER]: tenant } : extra;
}

/**
 * A response's envelope `data`, or an Error with the server's message and the HTTP `status`
 * (401: a --multitenancy server got no tenant).
 * @param {Response} r the response
 * @param {URL} u its URL, named in errors without a message
 * @returns {Promise<any>}
 */
async function dataOf(r, u) {
  let body = null;
  try { body = await r.json(); } catch (e) { /* not JSON */ }
  if (!r.ok || !body || body.status !== 'success') {
    const err = new Error((body && body.error) || `${r.status} ${r.statusText} for ${u.pathname}`);
    err.status = r.status;
    throw err;
  }
  return body.data;
}

/**
 * GETs an API path and returns its `data`.
 * @param {string} path e.g. /api/v1/targets
 * @param {Object<string, string|number|string[]|undefined>} params query parameters; arrays repeat
 * @returns {Promise<any>} the envelope's data; rejects with the server's error message
 */
export async function get(path, params = {}) {
  const u = new URL(path, location.origin);
  for (const [k, v] of Object.entries(params)) {
    if (v == null || v === '') continue;
    for (const x of Array.isArray(v) ? v : [v]) u.searchParams.append(k, String(x));
  }
  return dataOf(await fetch(u, { headers: headers({ Accept: 'application/json' }) }), u);
}

/**
 * POSTs a JSON body to an API path and returns its `data`.
 * @param {string} path e.g. /api/v1/incidents/ID/notes
 * @param {Object} body sent as application/json
 * @returns {Promise<any>} the envelope's data; rejects with the server's error message
 */
export async function postJson(path, body) {
  const u = new URL(path, location.origin);
  return dataOf(await fetch(u, {
    method: 'POST',
    headers: headers({ Accept: 'application/json', 'Content-Type': 'application/json' }),
    body: JSON.stringify(body),
  }), u);
}

/**
 * Saves an API resource (e.g. an incident's Markdown) as a file. A plain download link cannot
 * send X-Scope-OrgID, so the file is fetched here, with the tenant, and handed over as a blob.
 * @param {string} path e.g. /api/v1/incidents/ID/markdown
 * @param {string} filename the saved file's name
 * @returns {Promise<void>} rejects with the server's error message
 */
export async function download(path, filename) {
  const u = new URL(path, location.origin);
  const r = await fetch(u, { headers: headers({}) });
  if (!r.ok) await dataOf(r, u); // throws the envelope's error
  const url = URL.createObjectURL(await r.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60e3);
}
