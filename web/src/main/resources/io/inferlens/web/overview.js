// Overview: every target with its state, open diagnoses and sparklines.
import { get } from './api.js';
import { timeRange, link, current } from './state.js';
import { sparkline, fmt, last } from './charts.js';
import { h, badge, targetName, sameLabels } from './dom.js';

export const SPARKS = [
  { signal: 'e2e_p95', label: 'E2E P95', unit: 's' },
  { signal: 'ttft_p95', label: 'TTFT P95', unit: 's' },
  { signal: 'waiting', label: 'Waiting', unit: 'requests' },
  { signal: 'kv_cache_usage', label: 'KV cache', unit: 'ratio' },
  { signal: 'gpu_util', label: 'GPU util', unit: '%' },
];

/** healthy / warning / critical from the diagnoses still open at the end of the range. */
export function stateOf(diagnoses) {
  const open = diagnoses.filter(d => d.end == null);
  if (open.some(d => d.severity === 'critical')) return 'critical';
  if (open.length) return 'warning';
  return 'healthy';
}

export function diagnosisLink(d, targetId) {
  const start = Date.parse(d.start) / 1000;
  return link('/diagnosis/' + d.id, { target: targetId, at: Math.floor(start) });
}

export async function renderOverview(app, _parts, stale) {
  const { start, end } = timeRange('6h');
  // All three at once: the sparklines do not wait for the target list.
  const sparks = get('/api/v1/sparklines', { signal: SPARKS.map(s => s.signal).join(','),
    start, end, points: 120 });
  sparks.catch(() => {}); // awaited below; no unhandled rejection if the page is left first
  const [targets, diag] = await Promise.all([
    get('/api/v1/targets', { start, end }),
    get('/api/v1/diagnoses', { start, end }),
  ]);
  if (stale()) return;
  const list = targets.targets;
  const rows = list.map(t => {
    const ds = diag.diagnoses.filter(d => sameLabels(d.target, t.labels));
    const state = stateOf(ds);
    const open = ds.filter(d => d.end == null);
    const earlier = ds.length - open.length;
    const cells = SPARKS.map(s => h('td', { class: 'spark-cell', 'data-signal': s.signal },
      h('div', { class: 'spark-value' }, '…'), h('div', { class: 'spark-box' })));
    const tr = h('tr', { 'data-target': t.id, 'data-state': state },
      h('th', { scope: 'row' },
        h('a', { href: link('/target/' + t.id, { tab: 'live' }), class: 'tname' },
          targetName(t.labels)),
        h('div', { class: 'muted small' }, `job ${t.labels.job || '?'} · `,
          h('a', { href: link('/trends/' + t.id, { range: '30d', from: null, to: null }) }, 'trends'))),
      h('td', {}, badge(state)),
      h('td', { class: 'diag-cell' },
        open.length ? h('ul', { class: 'plain' }, open.map(d => h('li', {},
          h('a', { href: diagnosisLink(d, t.id), class: 'diag-link', 'data-cause': d.cause },
            (d.severity === 'critical' ? '▲ ' : '◆ ') + d.cause),
          h('span', { class: 'muted small' }, ' since ' + new Date(d.start).toLocaleTimeString()),
          d.stale ? [' ', h('span', { class: 'badge unknown', 'data-stale': 'true', title: 'no data since: neither extended nor resolved' }, 'stale')] : null)))
          : h('span', { class: 'muted' }, 'none'),
        earlier ? h('div', { class: 'muted small' }, `${earlier} resolved in range`) : null),
      cells);
    return { t, tr, cells };
  });
  const table = h('table', { class: 'overview' },
    h('caption', {}, `${list.length} target${list.length === 1 ? '' : 's'} · state from diagnoses open now · sparklines over the selected range`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Target'), h('th', { scope: 'col' }, 'State'),
      h('th', { scope: 'col' }, 'Open diagnoses'), SPARKS.map(s => h('th', { scope: 'col' }, s.label)))),
    h('tbody', {}, rows.map(r => r.tr)));
  // Store-level findings have no target row: a banner links them to the cardinality page.
  const exploding = diag.diagnoses.filter(d => d.cause === 'CARDINALITY_EXPLOSION' && d.end == null);
  const banner = exploding.length ? h('p', { class: 'card explosion', id: 'cardinality-banner', role: 'alert' },
    h('strong', {}, '▲ CARDINALITY_EXPLOSION '), exploding.map(d => d.target.metric).join(', '), ' · ',
    h('a', { href: link('/cardinality') }, 'see the top offenders')) : null;
  // The sender stopped: every value below is the last one received, not the present.
  const stopped = diag.diagnoses.find(d => d.cause === 'REMOTE_WRITE_STOPPED' && d.end == null);
  const silence = stopped ? h('p', { class: 'card explosion', id: 'stopped-banner', role: 'alert' },
    h('strong', {}, '◆ REMOTE_WRITE_STOPPED '), stopped.summary, ' · ',
    h('a', { href: link('/incidents/' + encodeURIComponent(stopped.id)) }, 'the incident'),
    ' · the values below are the last received') : null;
  app.replaceChildren(...[h('h1', {}, 'Inference health'), silence, banner,
    list.length ? table : h('p', { class: 'muted' }, current().params.tenant
      ? `No targets of tenant ${current().params.tenant} have samples in this range. Point Prometheus remote_write at /api/v1/write with the header X-Scope-OrgID: ${current().params.tenant} (or ?tenant=${current().params.tenant} in its URL).`
      : 'No targets have samples in this range. Point Prometheus remote_write at /api/v1/write.')]
    .filter(Boolean));
  if (!rows.length) return;
  // One request for every row's sparklines (coarse raw values, no analysis per target).
  let data;
  try {
    data = await sparks;
  } catch (e) {
    rows.forEach(({ cells }) => cells.forEach(c => {
      c.querySelector('.spark-value').textContent = '✖ ' + e.message;
    }));
    return;
  }
  if (stale()) return;
  const byId = new Map(data.targets.map(r => [r.id, r.values]));
  rows.forEach(({ t, cells }) => {
    const values = byId.get(t.id) || {};
    SPARKS.forEach((s, i) => {
      const raw = values[s.signal];
      const cell = cells[i];
      if (!raw || !raw.length || raw.every(v => v == null)) {
        cell.querySelector('.spark-value').textContent = 'no data';
        return;
      }
      cell.querySelector('.spark-value').textContent = fmt(last(raw), s.unit)
        + (stopped ? ' (stale)' : '');
      sparkline(cell.querySelector('.spark-box'), data.timestamps, raw);
    });
  });
}
