// Diagnosis view: the latency → queue → resource chain as a drill-down with its evidence.
import { get } from './api.js';
import { current, link, tenantLink, timeRange } from './state.js';
import { fmt } from './charts.js';
import { h, badge, verdict, targetName, sameLabels } from './dom.js';

const LAYER = {
  latency: { title: 'Latency', question: 'Which of TTFT, TPOT/ITL and E2E is breached?' },
  queue: { title: 'Queue', question: 'Are requests backing up in the engine or upstream?' },
  resource: { title: 'Resource', question: 'Which resource is saturated: GPU compute, KV cache, memory?' },
};

/** The target page's tab that charts a signal. */
function tabOf(signal) {
  return /^(ttft|tpot|prompt|generation)/.test(signal) ? 'ttft' : 'live';
}

/** The PromQL an evidence row came from, with a button copying it for Grafana. */
function promqlCell(q) {
  if (!q) return h('td', { class: 'muted' }, '–');
  const code = h('code', { class: 'promql' }, q);
  const button = h('button', { type: 'button', class: 'copy', title: 'Copy the PromQL to paste into Grafana' }, 'Copy');
  button.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(q);
      button.textContent = 'Copied';
    } catch (err) {
      // No clipboard (plain http on another host): select the text so Ctrl+C copies it.
      const r = document.createRange();
      r.selectNodeContents(code);
      const sel = window.getSelection();
      sel.removeAllRanges();
      sel.addRange(r);
      button.textContent = 'Selected';
    }
  });
  return h('td', { class: 'promql-cell' }, code, ' ', button);
}

function evidenceRow(e, chartLink) {
  const u = e.unit;
  return h('tr', { 'data-signal': e.signal },
    h('th', { scope: 'row' }, h('a', { href: chartLink(tabOf(e.signal)) }, e.signal)),
    h('td', { class: 'num' }, fmt(e.value, u)),
    h('td', { class: 'num' }, e.threshold == null ? '–' : fmt(e.threshold, u)),
    h('td', { class: 'num' }, e.baseline == null ? '–' : fmt(e.baseline, u)),
    h('td', {}, u),
    h('td', { class: 'num' }, e.low == null && e.high == null ? '–' : `${fmt(e.low, u)} – ${fmt(e.high, u)}`),
    h('td', {}, e.window || '–'),
    promqlCell(e.promql));
}

export async function renderDiagnosis(app, parts, stale) {
  const id = parts.join('/'); // diagnosis ids are TARGET/cause/startMs
  const p = current().params;
  const at = Number(p.at);
  const range = timeRange('24h');
  const start = Number.isFinite(at) ? Math.min(at - 3600, range.start) : range.start;
  const [diag, targets] = await Promise.all([
    get('/api/v1/diagnoses', { start, end: range.end }),
    get('/api/v1/targets', { start, end: range.end }),
  ]);
  if (stale()) return;
  // Ids are TARGET/cause/startMs; when the exact id is gone (evaluated on another grid), take the
  // same target's diagnosis of that cause covering the same moment.
  const [, cause, startMs] = id.match(/\/([a-z_]+)\/(\d+)$/) || [];
  const prefix = id.slice(0, id.length - `/${cause}/${startMs}`.length);
  const d = diag.diagnoses.find(x => x.id === id) || (cause && diag.diagnoses.find(x =>
    x.id.startsWith(prefix + '/' + cause + '/') && Date.parse(x.start) <= Number(startMs) + 60e3
    && (x.end == null || Date.parse(x.end) >= Number(startMs))));
  if (!d) {
    app.replaceChildren(h('h1', {}, 'Diagnosis not found'),
      h('p', { class: 'error', role: 'alert' }, `✖ No diagnosis "${id}" between ${new Date(start * 1000).toLocaleString()} and now.`),
      h('ul', {}, diag.diagnoses.map(x => h('li', {}, h('a', { href: link('/diagnosis/' + x.id, { at: Math.floor(Date.parse(x.start) / 1000) }) }, `${x.cause} · ${targetName(x.target)} · ${x.start}`)))));
    return;
  }
  const t = targets.targets.find(x => sameLabels(x.labels, d.target));
  const tid = t ? t.id : p.target;
  const s = Date.parse(d.start) / 1000;
  const e = d.end ? Date.parse(d.end) / 1000 : Date.now() / 1000;
  const pad = Math.max(900, (e - s) * 0.5);
  const chartLink = tab => link('/target/' + tid, {
    tab, range: 'custom', from: new Date((s - pad) * 1000).toISOString(),
    to: new Date(Math.min(Date.now() / 1000, e + pad) * 1000).toISOString(), refresh: null });
  const chain = h('ol', { class: 'chain' }, d.chain.map((l, i) => h('li', { class: `layer ${l.verdict}`, 'data-layer': l.layer },
    h('details', { open: true },
      h('summary', {}, h('span', { class: 'step' }, `${i + 1}. ${(LAYER[l.layer] || { title: l.layer }).title}`), ' ',
        verdict(l.verdict), h('span', { class: 'muted small' }, ' ' + ((LAYER[l.layer] || {}).question || ''))),
      l.evidence.length ? h('table', { class: 'evidence' },
        h('thead', {}, h('tr', {}, ['signal', 'value', 'threshold', 'baseline', 'unit', 'range in period', 'window', 'PromQL']
          .map(c => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, l.evidence.map(ev => evidenceRow(ev, chartLink))))
        : h('p', { class: 'muted' }, 'No evidence on this layer.')),
    i < d.chain.length - 1 ? h('div', { class: 'arrow', 'aria-hidden': 'true' }, '↓') : null)));
  app.replaceChildren(
    h('div', { class: 'title-row' }, h('h1', {}, d.cause), badge(d.severity)),
    h('p', { class: 'muted' }, h('a', { href: tid ? link('/target/' + tid, { tab: 'live' }) : tenantLink('/') }, targetName(d.target)),
      ` · ${new Date(d.start).toLocaleString()} → ${d.end ? new Date(d.end).toLocaleString() : 'ongoing'}`),
    h('p', { class: 'summary' }, d.summary),
    h('section', { class: 'card' }, h('h2', {}, 'Drill-down: ' + d.chain.map(l => l.layer).join(' → ')), chain),
    h('section', { class: 'card' }, h('h2', {}, 'Recommendation'),
      h('ul', { class: 'recs' }, d.recommendations.map(r => h('li', {}, r)))),
    h('section', { class: 'card' }, h('h2', {}, 'Charts at that time'),
      h('ul', { class: 'plain' },
        h('li', {}, h('a', { href: chartLink('live'), 'data-link': 'live' }, 'Live overview around this period →')),
        h('li', {}, h('a', { href: chartLink('ttft'), 'data-link': 'ttft' }, 'TTFT / TPOT around this period →')))));
}
