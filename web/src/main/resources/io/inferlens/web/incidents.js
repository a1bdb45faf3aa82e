// Incidents: the journal's list with filters, and one incident with its evidence, notes, similar
// past incidents and a Markdown postmortem. Links: #/incidents?cause=X&target=Y&id=Z (alert
// runbook_url; values URL-encoded, so the ids come back as the API spells them) and
// #/incidents/<URL-encoded id> (Alertmanager generatorURL).
import { get, postJson, download } from './api.js';
import { current, link, update, timeRange } from './state.js';
import { fmt } from './charts.js';
import { h, badge, verdict, targetName } from './dom.js';

/** The causes of io.inferlens.analysis.diagnose.Cause, for the filter. */
export const CAUSES = ['CAPACITY_EXHAUSTED', 'CONCURRENCY_LIMIT', 'KV_CACHE_PRESSURE',
  'GPU_COMPUTE_BOUND', 'PER_REQUEST_SLOWDOWN', 'WORKLOAD_SHIFT', 'UPSTREAM_BACKLOG',
  'MONITORING_GAP', 'REMOTE_WRITE_STOPPED', 'VERSION_REGRESSION', 'CARDINALITY_EXPLOSION'];

/** Duration between two RFC 3339 times (end null: until now), e.g. "1h 5m". */
export function duration(start, end) {
  const s = Math.max(0, Math.round(((end ? Date.parse(end) : Date.now()) - Date.parse(start)) / 1000));
  const d = Math.floor(s / 86400), hh = Math.floor(s % 86400 / 3600), m = Math.floor(s % 3600 / 60);
  if (d) return `${d}d ${hh}h`;
  if (hh) return `${hh}h ${m}m`;
  return m ? `${m}m` : `${s % 60}s`;
}

/** The API path of an incident, its id as one encoded segment. */
function apiPath(id, suffix = '') {
  return '/api/v1/incidents/' + encodeURIComponent(id) + suffix;
}

/** The UI link of an incident. */
export function incidentLink(id) {
  return link('/incidents/' + encodeURIComponent(id));
}

/**
 * Whether an incident matches the target filter: a target id from /api/v1/targets (incident ids
 * start with it) or free text found in its display name, a label value or label=value.
 */
function targetMatches(inc, q) {
  if (!q) return true;
  if (inc.id.startsWith(q + '/')) return true;
  const labels = inc.target;
  const needle = q.toLowerCase();
  return targetName(labels).toLowerCase().includes(needle) || Object.entries(labels)
    .some(([k, v]) => `${k}=${v}`.toLowerCase().includes(needle) || v.toLowerCase().includes(needle));
}

/** The open/resolved badge and, when stale, a stale badge; text and icon, never colour alone. */
function stateBadges(inc) {
  return [inc.end == null
    ? h('span', { class: 'badge critical', 'data-incident-state': 'open' }, h('span', { 'aria-hidden': 'true' }, '● '), 'open')
    : h('span', { class: 'badge healthy', 'data-incident-state': 'resolved' }, h('span', { 'aria-hidden': 'true' }, '✔ '), 'resolved'),
  inc.stale ? [' ', h('span', { class: 'badge unknown', 'data-stale': 'true', title: 'no recent data: neither extended nor resolved' }, 'stale')] : null];
}

function stateCell(inc) {
  return h('td', {}, stateBadges(inc));
}

export async function renderIncidents(app, parts, stale) {
  if (parts.length) return renderIncident(app, parts, stale);
  const p = current().params;
  const range = timeRange('7d');
  const state = p.state || 'all';
  const data = await get('/api/v1/incidents', {
    start: range.start, end: range.end, state, cause: p.cause || undefined,
  });
  if (stale()) return;
  let rows = data.incidents.filter(i => targetMatches(i, p.target || ''));
  if (p.id) {
    // An alert's link names its incident: that one only, fetched by id if older than the range.
    rows = rows.filter(i => i.id === p.id);
    if (!rows.length) {
      rows = await get(apiPath(p.id)).then(i => [i], () => []);
      if (stale()) return;
    }
  }
  const filters = h('form', { class: 'filters', id: 'incident-filters', role: 'search' },
    h('label', {}, 'State ', h('select', { name: 'state', onchange: e => update({ state: e.target.value === 'all' ? null : e.target.value, id: null }) },
      ['all', 'open', 'resolved'].map(s => h('option', { value: s, selected: s === state }, s)))),
    ' ',
    h('label', {}, 'Cause ', h('select', { name: 'cause', onchange: e => update({ cause: e.target.value || null, id: null }) },
      h('option', { value: '' }, 'any'),
      CAUSES.map(c => h('option', { value: c, selected: c === (p.cause || '').toUpperCase() }, c)))),
    ' ',
    h('label', {}, 'Target ', h('input', { type: 'search', name: 'target', value: p.target || '', placeholder: 'model, instance or label=value',
      onchange: e => update({ target: e.target.value || null, id: null }) })));
  filters.addEventListener('submit', e => { e.preventDefault(); update({ target: filters.target.value || null, id: null }); });
  const table = rows.length ? h('table', { class: 'incidents', id: 'incidents' },
    h('thead', {}, h('tr', {}, ['state', 'cause', 'severity', 'target', 'start', 'duration', 'summary']
      .map(c => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, rows.map(i => h('tr', { 'data-id': i.id },
      stateCell(i),
      h('td', {}, h('a', { href: incidentLink(i.id) }, i.cause)),
      h('td', {}, badge(i.severity)),
      h('td', {}, targetName(i.target)),
      h('td', {}, new Date(i.start).toLocaleString()),
      h('td', { class: 'num' }, duration(i.start, i.end) + (i.end ? '' : ' so far')),
      h('td', {}, i.summary)))))
    : h('p', { class: 'muted', id: 'no-incidents' }, 'No incidents match in this range.');
  const only = p.id ? [' · incident ', h('code', {}, p.id), ' · ',
    h('a', { href: link('/incidents', { state: p.state, cause: p.cause, target: p.target }), id: 'all-incidents' },
      'show all that match')] : null;
  app.replaceChildren(h('h1', {}, 'Incidents'), filters,
    h('p', { class: 'muted small' }, `${rows.length} incident${rows.length === 1 ? '' : 's'}, newest first`, only),
    table);
}

function evidenceTable(layer) {
  if (!layer.evidence.length) return h('p', { class: 'muted' }, 'No evidence on this layer.');
  return h('table', { class: 'evidence' },
    h('thead', {}, h('tr', {}, ['signal', 'value', 'threshold', 'basis', 'baseline', 'unit', 'PromQL']
      .map(c => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, layer.evidence.map(e => h('tr', { 'data-signal': e.signal },
      h('th', { scope: 'row' }, e.signal),
      h('td', { class: 'num' }, fmt(e.value, e.unit)),
      h('td', { class: 'num' }, e.threshold == null ? '–' : fmt(e.threshold, e.unit)),
      h('td', {}, e.basis || '–'),
      h('td', { class: 'num' }, e.baseline == null ? '–' : fmt(e.baseline, e.unit)),
      h('td', {}, e.unit),
      h('td', {}, e.promql ? h('code', { class: 'promql' }, e.promql) : '–')))));
}

function notesList(notes) {
  if (!notes.length) return h('p', { class: 'muted', id: 'no-notes' }, 'No notes yet.');
  return h('ul', { class: 'notes', id: 'notes' }, notes.map(n => h('li', {},
    h('time', { datetime: n.at }, new Date(n.at).toLocaleString()),
    n.author ? h('strong', {}, ' ' + n.author) : null, ': ', n.text)));
}

/**
 * The Markdown postmortem's download link. With a tenant the file is fetched with its
 * X-Scope-OrgID header (api.js download), which a plain link cannot send.
 */
function markdownLink(id, filename) {
  const path = apiPath(id, '/markdown');
  const status = h('span', { class: 'error', role: 'status', id: 'markdown-status' });
  const a = h('a', { href: path, download: filename, id: 'markdown', onclick: e => {
    if (!current().params.tenant) return;
    e.preventDefault();
    status.textContent = '';
    download(path, filename).catch(err => { status.textContent = ' ✖ ' + err.message; });
  } }, 'Markdown');
  return [a, status];
}

async function renderIncident(app, parts, stale) {
  // The id arrives as one encoded segment; an unencoded id (with its '/') is accepted too.
  const raw = parts.join('/');
  let id = raw;
  if (parts.length === 1) {
    try { id = decodeURIComponent(raw); } catch (e) { id = raw; }
  }
  const inc = await get(apiPath(id));
  if (stale()) return;
  const notesBox = h('div', {}, notesList(inc.notes));
  const status = h('p', { class: 'small', role: 'status', id: 'note-status' });
  const form = h('form', { class: 'note-form', id: 'note-form' },
    h('label', {}, 'Note ', h('textarea', { name: 'text', rows: 3, maxlength: 4096, required: true,
      placeholder: 'what was changed and what came of it, e.g. max-num-seqs 32 → 24' })),
    h('label', {}, 'Author ', h('input', { name: 'author', maxlength: 256 })),
    h('button', { type: 'submit' }, 'Add note'), status);
  form.addEventListener('submit', async e => {
    e.preventDefault();
    status.textContent = 'Saving…';
    try {
      const updated = await postJson(apiPath(id, '/notes'), { text: form.text.value, author: form.author.value });
      notesBox.replaceChildren(notesList(updated.notes));
      form.text.value = '';
      status.textContent = 'Saved.';
    } catch (err) {
      status.textContent = '✖ ' + err.message;
    }
  });
  const similar = inc.similar.length
    ? h('ul', { class: 'plain', id: 'similar' }, inc.similar.map(s => h('li', {},
      h('a', { href: incidentLink(s.id) }, `${new Date(s.start).toLocaleString()} · ${s.cause}`),
      ` · ${targetName(s.target)} · ${duration(s.start, s.end)} · ${s.summary}`)))
    : h('p', { class: 'muted', id: 'similar' }, 'No similar past incidents.');
  app.replaceChildren(
    h('div', { class: 'title-row' }, h('h1', {}, inc.cause), badge(inc.severity), ' ', stateBadges(inc)),
    h('p', { class: 'muted' }, targetName(inc.target),
      ` · ${new Date(inc.start).toLocaleString()} → ${inc.end ? new Date(inc.end).toLocaleString() : 'ongoing'} (${duration(inc.start, inc.end)})`,
      ' · ', markdownLink(id, inc.cause.toLowerCase() + '.md'),
      ' · ', h('a', { href: link('/diagnosis/' + inc.id, { at: Math.floor(Date.parse(inc.start) / 1000) }) }, 'Drill-down')),
    h('p', { class: 'summary' }, inc.summary),
    h('section', { class: 'card' }, h('h2', {}, 'Evidence: ' + inc.chain.map(l => l.layer).join(' → ')),
      inc.chain.map(l => h('div', { class: 'layer', 'data-layer': l.layer },
        h('h3', {}, l.layer, ' ', verdict(l.verdict)), evidenceTable(l)))),
    h('section', { class: 'card' }, h('h2', {}, 'Recommendations'),
      h('ul', { class: 'recs' }, inc.recommendations.map(r => h('li', {}, r)))),
    h('section', { class: 'card' }, h('h2', {}, 'Notes'), notesBox, form),
    h('section', { class: 'card' }, h('h2', {}, 'Similar past incidents'), similar));
}
