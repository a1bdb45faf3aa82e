// A tiny DOM builder: h('a', {href, onclick}, 'text', child…).

/**
 * @param {string} tag element name
 * @param {Object} [attrs] attributes; on* functions become listeners; null/false are skipped
 * @param {...(Node|string|number|null|false|Array)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v == null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  const add = c => {
    if (c == null || c === false) return;
    if (Array.isArray(c)) c.forEach(add);
    else el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  };
  children.forEach(add);
  return el;
}

const STATE = {
  healthy: { icon: '✔', label: 'healthy' },
  warning: { icon: '◆', label: 'warning' },
  critical: { icon: '▲', label: 'critical' },
  unknown: { icon: '?', label: 'no data' },
};

/** A state badge: icon + text + colour, never colour alone. */
export function badge(state) {
  const s = STATE[state] || STATE.unknown;
  return h('span', { class: `badge ${state}`, 'data-state': state },
    h('span', { 'aria-hidden': 'true' }, s.icon + ' '), s.label);
}

const VERDICT = {
  breached: '▲', saturated: '▲', exploding: '▲', normal: '✔', unknown: '?',
};

/** A chain verdict with an icon and its text. */
export function verdict(v) {
  return h('span', { class: `verdict ${v}`, 'data-verdict': v },
    h('span', { 'aria-hidden': 'true' }, (VERDICT[v] || '•') + ' '), v);
}

/**
 * Target display name: model @ instance; a store-level finding's target (CARDINALITY_EXPLOSION:
 * job, instance when single, metric) reads "metric from job @ instance".
 */
export function targetName(labels) {
  if (labels.metric && !labels.model_name) {
    return `${labels.metric} from ${labels.job || '?'}${labels.instance ? ' @ ' + labels.instance : ''}`;
  }
  const model = labels.model_name || '(no model label)';
  return `${model} @ ${labels.instance || '?'}`;
}

/** Same labels, order-insensitive. */
export function sameLabels(a, b) {
  const ka = Object.keys(a || {});
  return ka.length === Object.keys(b || {}).length && ka.every(k => a[k] === b[k]);
}
