// Cardinality: the top offenders of /api/v1/status/tsdb (metrics by series, labels by distinct
// values, label pairs by series) and every open CARDINALITY_EXPLOSION finding, whose metric and
// label are highlighted in the tables. Link: #/cardinality.
import { get } from './api.js';
import { h, badge } from './dom.js';
import { incidentLink } from './incidents.js';

/** Entries per top list asked of /api/v1/status/tsdb. */
const LIMIT = 15;

const num = v => Number(v).toLocaleString('en-US');

/**
 * The metric and the label a finding names: the target's `metric` label and the evidence row
 * `label_values:NAME` (docs/DESIGN.md section 3, CARDINALITY_EXPLOSION).
 */
export function offenders(finding) {
  const rows = (finding.chain || []).flatMap(l => l.evidence || []);
  const lv = rows.find(e => e.signal.startsWith('label_values:'));
  return { metric: finding.target.metric, label: lv ? lv.signal.slice('label_values:'.length) : null };
}

function findingCard(f) {
  const { metric, label } = offenders(f);
  return h('article', { class: `card explosion ${f.severity}`, 'data-finding': f.id, role: 'alert' },
    h('div', { class: 'title-row' }, badge(f.severity),
      h('strong', {}, `▲ Cardinality explosion: ${metric}`),
      label ? h('span', {}, 'label ', h('code', { 'data-label': label }, label)) : null,
      h('a', { href: incidentLink(f.id) }, 'incident, evidence and notes')),
    h('p', {}, f.summary),
    h('details', {}, h('summary', {}, 'What to change'),
      h('ol', { class: 'recs' }, f.recommendations.map(r => h('li', {}, h('pre', { class: 'snippet' }, r))))));
}

/**
 * A top list as a table; rows whose name is flagged get the `exploding` class and a marker.
 * @param {string} id element id
 * @param {string} caption
 * @param {string} nameCol, valueCol column headings
 * @param {Array<{name: string, value: number}>} list
 * @param {number} total the share's denominator (0: no share column)
 * @param {(name: string) => boolean} flagged
 */
function topTable(id, caption, nameCol, valueCol, list, total, flagged) {
  if (!list.length) return h('p', { class: 'muted', id }, `${caption}: none yet.`);
  return h('table', { class: 'overview cardinality', id },
    h('caption', {}, caption),
    h('thead', {}, h('tr', {}, [nameCol, valueCol, total ? 'share' : null].filter(Boolean)
      .map(c => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, list.map(s => {
      const hot = flagged(s.name);
      return h('tr', { 'data-name': s.name, class: hot ? 'exploding' : null },
        h('th', { scope: 'row' }, h('code', {}, s.name), hot ? h('span', { class: 'badge critical small', title: 'named by an open CARDINALITY_EXPLOSION' }, ' ▲ exploding') : null),
        h('td', { class: 'num' }, num(s.value)),
        total ? h('td', { class: 'num' }, (100 * s.value / total).toFixed(1) + ' %') : null);
    })));
}

export async function renderCardinality(app, parts, stale) {
  // Open findings up to the server's now (no end: the range's end is aligned to a grid and would
  // miss one opened in the last minute); open ones overlap any range, so a day back is enough.
  const [tsdb, open] = await Promise.all([
    get('/api/v1/status/tsdb', { limit: LIMIT }),
    get('/api/v1/incidents', { state: 'open', cause: 'CARDINALITY_EXPLOSION', start: Math.floor(Date.now() / 1000) - 86400 }),
  ]);
  if (stale()) return;
  const findings = open.incidents;
  const metrics = new Set(findings.map(f => offenders(f).metric));
  const labels = new Set(findings.map(f => offenders(f).label).filter(Boolean));
  const pairLabel = name => labels.has(name.slice(0, name.indexOf('=')));
  const total = tsdb.headStats.numSeries;
  app.replaceChildren(
    h('h1', {}, 'Cardinality'),
    h('p', { class: 'muted', id: 'head-stats' },
      `${num(total)} active series · ${num(tsdb.headStats.numLabelPairs)} label pairs · top ${LIMIT} of each list (GET /api/v1/status/tsdb)`),
    findings.length
      ? h('section', { id: 'explosions' }, findings.map(findingCard))
      : h('p', { class: 'card', id: 'no-explosion' }, h('span', { class: 'badge healthy' }, '✔ healthy'),
        ' No open CARDINALITY_EXPLOSION: no metric gained 1,000 series in 10 minutes while its series per target (or on its busiest target) tripled.'),
    h('div', { class: 'cardinality-grid' },
      topTable('top-metrics', 'Metrics by active series', 'metric', 'series', tsdb.seriesCountByMetricName, total, n => metrics.has(n)),
      topTable('top-labels', 'Labels by distinct values', 'label', 'values', tsdb.labelValueCountByLabelName, 0, n => labels.has(n)),
      topTable('top-pairs', 'Label pairs by active series', 'label=value', 'series', tsdb.seriesCountByLabelValuePair, total, pairLabel),
      topTable('top-memory', 'Labels by bytes of their values', 'label', 'bytes', tsdb.memoryInBytesByLabelName, 0, n => labels.has(n))));
}
