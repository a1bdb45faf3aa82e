// Fetch helpers for InferLens's JSON API (Prometheus-style envelope).

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
  const r = await fetch(u, { headers: { Accept: 'application/json' } });
  let body = null;
  try { body = await r.json(); } catch (e) { /* not JSON */ }
  if (!r.ok || !body || body.status !== 'success') {
    throw new Error((body && body.error) || `${r.status} ${r.statusText} for ${u.pathname}`);
  }
  return body.data;
}

/**
 * POSTs a JSON body to an API path and returns its `data`.
 * @param {string} path e.g. /api/v1/incidents/ID/notes
 * @param {Object} body sent as application/json
 * @returns {Promise<any>} the envelope's data; rejects with the server's error message
 */
export async function postJson(path, body) {
  const u = new URL(path, location.origin);
  const r = await fetch(u, {
    method: 'POST',
    headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  let env = null;
  try { env = await r.json(); } catch (e) { /* not JSON */ }
  if (!r.ok || !env || env.status !== 'success') {
    throw new Error((env && env.error) || `${r.status} ${r.statusText} for ${u.pathname}`);
  }
  return env.data;
}
