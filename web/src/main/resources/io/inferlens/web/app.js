// InferLens web UI: hash router, header controls (tenant, range, auto-refresh, theme) and views.
import { current, link, tenantLink, update, RANGES, toSeconds } from './state.js';
import { TENANT_HEADER } from './api.js';
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

// Tenants (--multitenancy): the URL's `tenant` names the store every request reads (api.js).
const TENANT_KEY = 'inferlens-tenant';
/** Tenant ids as the server accepts them (Tenants.check). */
const TENANT_ID = /^[A-Za-z0-9!\-_.*'()]{1,150}$/;
/** /api/v1/tenants's answer, read once at start-up. */
let tenancy = { multitenancy: false, tenants: [] };

/**
 * Reads /api/v1/tenants, which needs no tenant: sent without one, so that a URL's unusable tenant
 * cannot hide the picker. A server that cannot answer is taken as single-store (its requests then
 * show their own errors).
 * @returns {Promise<{multitenancy: boolean, tenants: {id: string}[]}>}
 */
async function loadTenancy() {
  try {
    const r = await fetch('/api/v1/tenants', { headers: { Accept: 'application/json' } });
    const t = (await r.json()).data;
    return { multitenancy: !!t.multitenancy, tenants: t.tenants || [] };
  } catch (e) {
    return { multitenancy: false, tenants: [] };
  }
}

/** @returns {string|null} the tenant last used in this browser */
function savedTenant() {
  try { return localStorage.getItem(TENANT_KEY); } catch (e) { return null; }
}

/** The tenant for a URL without one: the last one used while still listed, else the first listed. */
function defaultTenant() {
  const ids = tenancy.tenants.map(t => t.id);
  const last = savedTenant();
  return ids.includes(last) ? last : ids[0] || null;
}

/**
 * Fills the header's tenant picker: the listed tenants, the URL's own when not listed (written
 * since start-up, or not at all yet), and "other…" to type an id.
 * @param {string|undefined} tenant the URL's tenant
 */
function renderTenant(tenant) {
  const box = document.getElementById('tenant-box');
  box.hidden = !tenancy.multitenancy;
  if (!tenancy.multitenancy) return;
  const ids = tenancy.tenants.map(t => t.id);
  if (tenant && !ids.includes(tenant)) ids.push(tenant);
  const select = document.getElementById('tenant');
  // '' is no tenant id: it stands for "other…".
  select.replaceChildren(...ids.map(id => h('option', { value: id }, id)), h('option', { value: '' }, 'other…'));
  select.value = tenant || '';
  showOtherTenant(!tenant);
}

/**
 * Shows or hides the form for typing a tenant id.
 * @param {boolean} show whether to show it
 * @param {boolean} focus whether to move the focus to its input (the user chose "other…")
 */
function showOtherTenant(show, focus = false) {
  const form = document.getElementById('tenant-other');
  form.hidden = !show;
  if (show && focus) form.elements.namedItem('org').focus();
}

/**
 * Opens the current view on another tenant. Targets, diagnoses and incidents are per tenant, so a
 * page of one of them goes to its list (the overview, or the incidents) instead.
 * @param {string} tenant the tenant id
 */
function switchTenant(tenant) {
  const { parts } = current();
  if (parts.length > 1) location.hash = link(parts[0] === 'incidents' ? '/incidents' : '/', { tenant });
  else update({ tenant });
}

document.getElementById('tenant').addEventListener('change', e => {
  if (e.target.value) switchTenant(e.target.value);
  else showOtherTenant(true, true);
});
document.getElementById('tenant-other').addEventListener('submit', e => {
  e.preventDefault();
  const input = e.target.elements.namedItem('org');
  const id = input.value.trim();
  const ok = TENANT_ID.test(id) && id !== '.' && id !== '..';
  input.setCustomValidity(ok ? '' : "1 to 150 characters of a-z A-Z 0-9 ! - _ . * ' ( )");
  if (!ok) { input.reportValidity(); return; }
  input.value = '';
  switchTenant(id);
});
document.getElementById('tenant-other').addEventListener('input', e => e.target.setCustomValidity(''));

/** How senders name their tenant: shown when there is none to read, or a request lacked one. */
function tenantHelp() {
  return [
    h('p', {}, `Every request names its tenant in the ${TENANT_HEADER} header. Senders set it; Prometheus, for example:`),
    h('pre', { class: 'snippet card' }, `remote_write:\n  - url: ${location.origin}/api/v1/write\n    headers:\n      ${TENANT_HEADER}: team-a`),
    h('p', {}, 'A sender that cannot set headers (Debian\'s Prometheus 2.42 drops them) names it in the URL instead:'),
    h('pre', { class: 'snippet card' }, `remote_write:\n  - url: ${location.origin}/api/v1/write?tenant=team-a`),
    h('p', { class: 'muted' }, 'Pick a tenant under Tenant above (other… to type an id), or add ?tenant=<id> to the URL.'),
  ];
}

/** The view when --multitenancy is on and no tenant has written yet. */
function noTenant() {
  return h('section', { id: 'no-tenant' }, h('h1', {}, 'No tenant has written yet'),
    h('p', {}, 'This server keeps one store per tenant (--multitenancy), and none has data yet.'),
    tenantHelp());
}

matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
  if (theme() === 'auto') render();
});

async function render() {
  const gen = ++generation;
  const { route, parts } = routeOf();
  clearInterval(refreshTimer);
  delete app.dataset.ready;
  destroyAll();
  if (tenancy.multitenancy && !current().params.tenant) {
    // Name the tenant in the URL so that links and a shared URL keep it; no history entry.
    const t = defaultTenant();
    if (t) history.replaceState(null, '', link(current().path, { ...current().params, tenant: t }, false));
  }
  const tenant = current().params.tenant;
  if (tenancy.multitenancy && tenant) {
    try { localStorage.setItem(TENANT_KEY, tenant); } catch (e) { /* ignore */ }
  }
  renderTenant(tenant);
  document.getElementById('nav-incidents').href = tenantLink('/incidents');
  document.getElementById('nav-cardinality').href = tenantLink('/cardinality');
  document.querySelector('.brand').href = tenantLink('/');
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
  if (tenancy.multitenancy && !tenant) {
    app.replaceChildren(noTenant());
    app.dataset.ready = 'true';
    return;
  }
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
    app.replaceChildren(h('p', { class: 'error', role: 'alert' }, '✖ ' + e.message),
      ...(e.status === 401 ? tenantHelp() : []));
    app.dataset.ready = 'error';
  }
  if (gen !== generation) return;
  document.getElementById('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
  const every = REFRESH[current().params.refresh];
  if (every) refreshTimer = setInterval(render, every);
}

applyTheme(theme());
tenancy = await loadTenancy();
window.addEventListener('hashchange', render);
render();
