// InferLens web UI: hash router, header controls (range, auto-refresh, theme) and views.
import { current, link, update, RANGES, toSeconds } from './state.js';
import { destroyAll } from './charts.js';
import { renderOverview } from './overview.js';
import { renderTarget } from './target.js';
import { renderDiagnosis } from './diagnosis.js';
import { renderTrends } from './trends.js';
import { renderIncidents } from './incidents.js';
import { renderCardinality } from './cardinality.js';
import { h } from './dom.js';

const app = document.getElementById('app');
const REFRESH = { '30s': 30e3, '1m': 60e3, '5m': 300e3 };
let refreshTimer = 0;
let generation = 0;

const ROUTES = {
  '': { render: renderOverview, range: '6h', title: 'Overview' },
  target: { render: renderTarget, range: '6h', title: 'Target' },
  diagnosis: { render: renderDiagnosis, range: '24h', title: 'Diagnosis' },
  trends: { render: renderTrends, range: '30d', title: 'Trends' },
  incidents: { render: renderIncidents, range: '7d', title: 'Incidents' },
  cardinality: { render: renderCardinality, range: '7d', title: 'Cardinality' },
};

function routeOf() {
  const { parts } = current();
  return { route: ROUTES[parts[0] || ''] || null, parts };
}

function renderControls(route) {
  const { params } = current();
  const active = params.range || route.range;
  const range = document.getElementById('range');
  range.replaceChildren(...[...Object.keys(RANGES), 'custom'].map(k => h('button', {
    type: 'button', 'data-range': k, 'aria-pressed': String(k === active),
    onclick: () => k === 'custom' ? showCustom(true) : update({ range: k, from: null, to: null }),
  }, k)));
  showCustom(active === 'custom');
  document.getElementById('refresh').value = params.refresh || 'off';
}

function toLocalInput(sec) {
  const d = new Date(sec * 1000 - new Date().getTimezoneOffset() * 60e3);
  return d.toISOString().slice(0, 16);
}

function showCustom(show) {
  const form = document.getElementById('custom');
  form.hidden = !show;
  if (show) {
    const p = current().params;
    const now = Date.now() / 1000;
    // from/to may be Unix seconds, Unix ms or RFC 3339; an unreadable one falls back to the default.
    form.from.value = form.from.value || toLocalInput(toSeconds(p.from || '') ?? now - 86400);
    form.to.value = form.to.value || toLocalInput(toSeconds(p.to || '') ?? now);
  }
}

document.getElementById('custom').addEventListener('submit', e => {
  e.preventDefault();
  const f = e.target;
  const from = new Date(f.from.value);
  const to = new Date(f.to.value);
  if (!(to > from)) { f.to.setCustomValidity('must be after From'); f.reportValidity(); return; }
  f.to.setCustomValidity('');
  update({ range: 'custom', from: from.toISOString(), to: to.toISOString() });
});

document.getElementById('refresh').addEventListener('change', e =>
  update({ refresh: e.target.value === 'off' ? null : e.target.value }));

// Theme: follow the system (prefers-color-scheme) unless the user picked one.
const THEMES = ['auto', 'light', 'dark'];
function theme() {
  try { return localStorage.getItem('inferlens-theme') || 'auto'; } catch (e) { return 'auto'; }
}
function applyTheme(t) {
  if (t === 'auto') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = t;
  const btn = document.getElementById('theme');
  btn.textContent = { auto: '◐ Theme: auto', light: '☀ Theme: light', dark: '☾ Theme: dark' }[t];
  btn.setAttribute('aria-label', `Theme ${t}; switch theme`);
}
document.getElementById('theme').addEventListener('click', () => {
  const next = THEMES[(THEMES.indexOf(theme()) + 1) % THEMES.length];
  try { localStorage.setItem('inferlens-theme', next); } catch (e) { /* ignore */ }
  applyTheme(next);
  render(); // charts read their colours from the theme
});
matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  if (theme() === 'auto') render();
});

async function render() {
  const gen = ++generation;
  const { route, parts } = routeOf();
  clearInterval(refreshTimer);
  delete app.dataset.ready;
  destroyAll();
  if (!route) {
    app.replaceChildren(h('p', { class: 'error', role: 'alert' }, '✖ No such page. ',
      h('a', { href: link('/') }, 'Back to the overview')));
    app.dataset.ready = 'error';
    return;
  }
  renderControls(route);
  const crumbs = document.getElementById('crumbs');
  crumbs.replaceChildren(h('a', { href: link('/') }, 'Overview'),
    ...(parts[0] ? [h('span', { 'aria-hidden': 'true' }, ' › '), h('span', {}, route.title)] : []));
  document.title = `InferLens · ${route.title}`;
  try {
    await route.render(app, parts.slice(1), () => gen !== generation);
    if (gen === generation) {
      // Browser tests and the benchmark read this: ms from navigation start to "view drawn".
      performance.mark('inferlens-ready');
      app.dataset.readyMs = performance.now().toFixed(1);
      app.dataset.ready = 'true';
    }
  } catch (e) {
    if (gen !== generation) return;
    app.replaceChildren(h('p', { class: 'error', role: 'alert' }, '✖ ' + e.message));
    app.dataset.ready = 'error';
  }
  if (gen !== generation) return;
  document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  const every = REFRESH[current().params.refresh];
  if (every) refreshTimer = setInterval(render, every);
}

applyTheme(theme());
window.addEventListener('hashchange', render);
render();
