// Target page: "Live overview" and "TTFT / TPOT" tabs on one shared, cursor-synchronised axis.
import { get } from './api.js';
import { timeRange, link, current } from './state.js';
import { timeChart, smooth, thresholdToDraw } from './charts.js';
import { h, badge, targetName } from './dom.js';
import { stateOf, diagnosisLink } from './overview.js';

const TABS = {
  live: {
    label: 'Live overview',
    charts: [
      { id: 'e2e', title: 'E2E latency P50 / P95 / P99', unit: 's', latency: true,
        lines: [['e2e_p50', 'P50'], ['e2e_p95', 'P95'], ['e2e_p99', 'P99']], band: 'e2e_p95' },
      { id: 'rate', title: 'Request rate', unit: '1/s', lines: [['request_rate', 'finished requests']] },
      { id: 'gpu', title: 'GPU utilisation (max over GPUs)', unit: '%', lines: [['gpu_util', 'GPU util']] },
      { id: 'kv', title: 'KV-cache usage (max over engines)', unit: 'ratio', lines: [['kv_cache_usage', 'KV cache']] },
      { id: 'queue', title: 'Waiting / running requests', unit: 'requests',
        lines: [['waiting', 'waiting'], ['running', 'running']] },
    ],
  },
  ttft: {
    label: 'TTFT / TPOT',
    charts: [
      { id: 'ttft', title: 'Time to first token P50 / P95 / P99', unit: 's', latency: true,
        lines: [['ttft_p50', 'P50'], ['ttft_p95', 'P95'], ['ttft_p99', 'P99']], band: 'ttft_p95' },
      { id: 'tpot', title: 'Time per output token (TPOT / ITL) P50 / P95 / P99', unit: 's', latency: true,
        lines: [['tpot_p50', 'P50'], ['tpot_p95', 'P95'], ['tpot_p99', 'P99']], band: 'tpot_p95' },
      { id: 'tokens', title: 'Token throughput', unit: 'tokens/s',
        lines: [['prompt_tokens*request_rate', 'prompt tok/s'], ['generation_tokens*request_rate', 'generated tok/s']] },
      { id: 'lengths', title: 'Prompt and generation length (mean per request)', unit: 'tokens',
        lines: [['prompt_tokens', 'prompt'], ['generation_tokens', 'generation']] },
    ],
  },
};

function signalsOf(tab) {
  const s = new Set();
  for (const c of tab.charts) for (const [k] of c.lines) k.split('*').forEach(x => s.add(x));
  return [...s];
}

/** Values of a line key: an indicator, or a product such as prompt_tokens*request_rate. */
function valuesOf(bySignal, key) {
  const parts = key.split('*').map(k => (bySignal[k] && bySignal[k].raw) || []);
  if (parts.length === 1) return parts[0];
  const n = Math.max(...parts.map(p => p.length));
  return Array.from({ length: n }, (_, i) =>
    parts.every(p => p[i] != null) ? parts.reduce((a, p) => a * p[i], 1) : null);
}

export async function renderTarget(app, parts, stale) {
  const id = parts[0];
  const params = current().params;
  const tabKey = TABS[params.tab] ? params.tab : 'live';
  const tab = TABS[tabKey];
  const { start, end } = timeRange('6h');
  const data = await get('/api/v1/dashboard', { target: id, signal: signalsOf(tab).join(','),
    start, end, smoothing: 'none' });
  if (stale()) return;
  const bySignal = Object.fromEntries(data.signals.map(s => [s.signal, s]));
  const lastTs = data.timestamps.length ? data.timestamps[data.timestamps.length - 1] / 1000 : end;
  const periods = data.diagnoses.map(d => ({ start: Date.parse(d.start) / 1000,
    end: d.end ? Date.parse(d.end) / 1000 : lastTs, severity: d.severity, cause: d.cause }));
  const state = stateOf(data.diagnoses);

  const tabs = h('nav', { class: 'tabs', role: 'tablist', 'aria-label': 'Dashboards' },
    Object.entries(TABS).map(([k, t]) => h('a', { role: 'tab', href: link(current().path, { ...params, tab: k }),
      'aria-selected': String(k === tabKey), 'data-tab': k }, t.label)));
  const diagList = data.diagnoses.length
    ? h('ul', { class: 'plain periods' }, data.diagnoses.map(d => h('li', {},
      h('a', { href: diagnosisLink(d, id), class: 'diag-link', 'data-cause': d.cause },
        (d.severity === 'critical' ? '▲ critical ' : '◆ warning ') + d.cause),
      h('span', { class: 'muted small' }, ` ${new Date(d.start).toLocaleString()} → ${d.end ? new Date(d.end).toLocaleString() : 'ongoing'}`))))
    : h('p', { class: 'muted' }, '✔ No diagnosed period in this range.');
  const grid = h('div', { class: 'charts' });
  app.replaceChildren(
    h('div', { class: 'title-row' }, h('h1', {}, targetName(data.target)), badge(state),
      h('a', { href: link('/trends/' + id, { range: '30d', from: null, to: null }) }, 'Trends →')),
    h('p', { class: 'muted small' }, Object.entries(data.target).map(([k, v]) => `${k}="${v}"`).join(' · '),
      ` · step ${data.step} s`),
    tabs,
    h('section', { class: 'card' }, h('h2', {}, 'Diagnosed periods (hatched on every chart)'), diagList),
    grid);

  for (const c of tab.charts) {
    const box = h('div', { class: 'chart-box' });
    const mode = () => current().params['sm_' + c.id] || 'ema';
    const draw = () => {
      box.replaceChildren();
      const lines = c.lines.map(([key, label]) => {
        const raw = valuesOf(bySignal, key);
        return { label, values: c.latency ? smooth(raw, mode()) : raw };
      });
      const bandSig = c.band && bySignal[c.band];
      // A static default threshold far above the data would flatten it on the floor.
      timeChart(box, { ts: data.timestamps, unit: c.unit, lines, periods, sync: 'target-' + id,
        band: bandSig ? { threshold: thresholdToDraw(bandSig.threshold, bandSig.basis, lines.map(l => l.values)),
          baseline: bandSig.baseline } : null });
    };
    const toggle = c.latency ? h('div', { class: 'toggle', role: 'group', 'aria-label': `${c.title} smoothing` },
      ['raw', 'sma', 'ema'].map(m => h('button', { type: 'button', 'data-smoothing': m,
        'aria-pressed': String(mode() === m),
        onclick: e => {
          // Keep the choice in the URL without re-fetching: replaceState fires no hashchange.
          const p = { ...current().params, ['sm_' + c.id]: m };
          history.replaceState(null, '', link(current().path, p, false));
          e.target.parentElement.querySelectorAll('button').forEach(b =>
            b.setAttribute('aria-pressed', String(b.dataset.smoothing === m)));
          draw();
        } }, m === 'raw' ? 'Raw' : m.toUpperCase()))) : null;
    const hasData = c.lines.some(([key]) => valuesOf(bySignal, key).some(v => v != null));
    grid.append(h('section', { class: 'card chart', 'data-chart': c.id },
      h('div', { class: 'chart-head' }, h('h2', {}, c.title), toggle,
        c.band ? h('span', { class: 'legend-note muted small' }, 'band: baseline → threshold (dashed)') : null),
      hasData ? box : h('p', { class: 'muted' }, 'No series for this chart on this target.')));
    if (hasData) draw();
  }
}
