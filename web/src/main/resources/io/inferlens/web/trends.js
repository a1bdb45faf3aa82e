// Trends: daily P95 per signal over up to the full retention, week-over-week change, and model
// versions of the instance side by side.
import { get } from './api.js';
import { timeRange, link } from './state.js';
import { dailyChart, fmt } from './charts.js';
import { h, targetName } from './dom.js';

const SIGNALS = [['e2e_p95', 'E2E P95'], ['ttft_p95', 'TTFT P95'], ['tpot_p95', 'TPOT P95']];

function change(c) {
  if (c == null) return h('span', { class: 'muted' }, '– (not enough history)');
  const pct = (c * 100).toFixed(1) + ' %';
  if (Math.abs(c) < 0.05) return h('span', { class: 'change same' }, '● ' + (c >= 0 ? '+' : '') + pct + ' (about the same)');
  return c > 0 ? h('span', { class: 'change worse' }, '▲ +' + pct + ' (slower)')
    : h('span', { class: 'change better' }, '▼ ' + pct + ' (faster)');
}

export async function renderTrends(app, parts, stale) {
  const id = parts[0];
  const { start, end } = timeRange('30d');
  const data = await get('/api/v1/trends', { target: id, signal: SIGNALS.map(s => s[0]).join(','), start, end });
  if (stale()) return;
  const allDays = [...new Set(data.signals.flatMap(s => s.days.map(d => d.day)))].sort();
  const xs = allDays.map(d => Date.parse(d + 'T00:00:00Z') / 1000);
  const lines = data.signals.map(s => {
    const byDay = Object.fromEntries(s.days.map(d => [d.day, d.p95]));
    return { label: (SIGNALS.find(x => x[0] === s.signal) || [0, s.signal])[1], values: allDays.map(d => byDay[d] ?? null) };
  });
  const boxes = lines.map(() => h('div', { class: 'chart-box' }));
  const versionsBox = h('section', { class: 'card', id: 'versions' }, h('h2', {}, 'Model versions on this instance'),
    h('p', { class: 'muted' }, 'Loading…'));
  app.replaceChildren(
    h('div', { class: 'title-row' }, h('h1', {}, 'Trends · ' + targetName(data.target)),
      h('a', { href: link('/target/' + id, { tab: 'live', range: '24h', from: null, to: null }) }, 'Live charts →')),
    h('p', { class: 'muted small' }, `Daily P95 (UTC days) of each signal from its ${data.resolution} rollups over ${allDays.length} day(s); server: target lookup ${data.targetsMs} ms, rollups ${data.analyzeMs} ms.`),
    allDays.length ? h('div', { class: 'charts trend-charts' }, lines.map((l, i) =>
      h('section', { class: 'card chart', 'data-chart': 'daily-' + data.signals[i].signal },
        h('h2', {}, 'Daily ' + l.label), boxes[i])))
      : h('section', { class: 'card' }, h('p', { class: 'muted' }, 'No data in this range.')),
    h('section', { class: 'card' }, h('h2', {}, 'Week over week (median of daily P95)'),
      h('table', { class: 'wow' },
        h('thead', {}, h('tr', {}, ['signal', 'last 7 days', 'previous 7 days', 'change'].map(c => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, data.signals.map(s => h('tr', { 'data-signal': s.signal },
          h('th', { scope: 'row' }, s.signal),
          h('td', { class: 'num' }, fmt(s.weekOverWeek.thisWeek, s.unit)),
          h('td', { class: 'num' }, fmt(s.weekOverWeek.lastWeek, s.unit)),
          h('td', {}, change(s.weekOverWeek.change))))))),
    versionsBox);
  if (allDays.length) {
    lines.forEach((l, i) => dailyChart(boxes[i], { days: xs, lines: [l], unit: data.signals[i].unit, height: 170 }));
  }
  performance.mark('inferlens-trend-chart-drawn');
  app.dataset.chartMs = performance.now().toFixed(1);
  // Versions: best effort, it does not hold up the trend chart.
  try {
    // After the chart: on a small machine two long-range reads at once only slow each other down.
    const v = await get('/api/v1/trends/versions', { instance: data.target.instance, start, end });
    if (stale()) return;
    const rows = v.versions;
    versionsBox.replaceChildren(h('h2', {}, `Model versions on ${v.instance}`),
      h('table', { class: 'versions' },
        h('thead', {}, h('tr', {}, ['model_name', 'served', 'E2E P95', 'TTFT P95', 'TPOT P95', 'request rate', 'E2E vs previous']
          .map(c => h('th', { scope: 'col' }, c)))),
        h('tbody', {}, rows.map((r, i) => h('tr', { 'data-model': r.model_name },
          h('th', { scope: 'row' }, h('a', { href: link('/trends/' + r.id) }, r.model_name || '(none)'),
            r.id === id ? h('span', { class: 'muted small' }, ' (shown above)') : null),
          h('td', { class: 'small' }, r.first ? `${new Date(r.first).toLocaleDateString()} → ${new Date(r.last).toLocaleDateString()}` : '–'),
          h('td', { class: 'num' }, fmt(r.e2e_p95, 's')),
          h('td', { class: 'num' }, fmt(r.ttft_p95, 's')),
          h('td', { class: 'num' }, fmt(r.tpot_p95, 's')),
          h('td', { class: 'num' }, fmt(r.request_rate, '1/s')),
          h('td', {}, i > 0 && rows[i - 1].e2e_p95 && r.e2e_p95 != null ? change(r.e2e_p95 / rows[i - 1].e2e_p95 - 1) : '–'))))),
      h('p', { class: 'muted small' }, 'Median over the range of each version\'s per-step P95.'));
  } catch (e) {
    versionsBox.replaceChildren(h('h2', {}, 'Model versions'), h('p', { class: 'error' }, '✖ ' + e.message));
  }
}
