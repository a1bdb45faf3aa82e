// uPlot wrappers: sparklines, time charts with a threshold band, shaded diagnosed periods and a
// cursor synchronised across the charts of a page.
import uPlot from '/webjars/uplot/1.6.30/dist/uPlot.esm.js';

const live = new Set();

/** @returns {string} a CSS custom property of the current theme */
export function cssVar(name) {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/** Destroys every chart of the previous view. */
export function destroyAll() {
  for (const c of live) c.destroy();
  live.clear();
}

let resizeTimer = 0;
window.addEventListener('resize', () => {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    for (const c of live) {
      const w = c.root.parentElement ? c.root.parentElement.clientWidth : 0;
      if (w > 0 && !c.spark) c.setSize({ width: w, height: c.height });
    }
  }, 100);
});

/** Formats a value in an indicator unit for people. */
export function fmt(v, unit) {
  if (v == null || Number.isNaN(v)) return '–';
  switch (unit) {
    case 's':
      if (v === 0) return '0';
      if (Math.abs(v) < 1) return (v * 1000).toFixed(Math.abs(v) < 0.01 ? 1 : 0) + ' ms';
      return v.toFixed(v < 10 ? 2 : 1) + ' s';
    case 'ratio': return (v * 100).toFixed(0) + ' %';
    case '%': return v.toFixed(0) + ' %';
    case '1/s': return v.toFixed(v < 10 ? 2 : 1) + ' /s';
    case 'tokens/s': return v >= 1000 ? (v / 1000).toFixed(v >= 10000 ? 0 : 1) + 'k tok/s' : v.toFixed(0) + ' tok/s';
    case 'tokens': return v >= 1000 ? (v / 1000).toFixed(v >= 10000 ? 0 : 1) + 'k tok' : v.toFixed(0) + ' tok';
    case 'requests': return v.toFixed(v < 10 && v % 1 ? 1 : 0);
    default: return String(Math.round(v * 100) / 100) + (unit ? ' ' + unit : '');
  }
}

/** Last non-null value of an array, or null. */
export function last(values) {
  for (let i = values.length - 1; i >= 0; i--) if (values[i] != null) return values[i];
  return null;
}

/** Simple moving average over the last n non-null values (nulls stay null). */
export function sma(values, n = 10) {
  const out = new Array(values.length).fill(null);
  const win = [];
  let sum = 0;
  values.forEach((v, i) => {
    if (v == null) return;
    win.push(v); sum += v;
    if (win.length > n) sum -= win.shift();
    out[i] = sum / win.length;
  });
  return out;
}

/** Exponential moving average, α = 2/(n+1) (docs/DESIGN.md section 3); nulls stay null. */
export function ema(values, n = 10) {
  const a = 2 / (n + 1);
  const out = new Array(values.length).fill(null);
  let s = null;
  values.forEach((v, i) => {
    if (v == null) return;
    s = s == null ? v : a * v + (1 - a) * s;
    out[i] = s;
  });
  return out;
}

/** Applies 'raw' | 'sma' | 'ema' smoothing. */
export function smooth(values, mode) {
  return mode === 'sma' ? sma(values) : mode === 'ema' ? ema(values) : values;
}

/**
 * A sparkline: one series, no axes, no cursor.
 * @param {HTMLElement} el container
 * @param {number[]} ts timestamps, ms
 * @param {(number|null)[]} values
 */
export function sparkline(el, ts, values, { width = 140, height = 36, color } = {}) {
  const stroke = color || cssVar('--c1');
  const u = new uPlot({
    width, height, class: 'spark',
    cursor: { show: false }, legend: { show: false }, select: { show: false },
    // From 0 (or below), padded so a flat line (no requests waiting) stays in sight.
    scales: { x: { time: true }, y: { range: (u, min, max) => {
      const lo = Math.min(0, min), hi = max > lo ? max : lo + 1, pad = (hi - lo) * 0.08;
      return [lo - pad, hi + pad];
    } } },
    axes: [{ show: false }, { show: false }],
    series: [{}, { stroke, width: 1.5, fill: cssVar('--c1-fill'), spanGaps: false }],
  }, [ts.map(t => t / 1000), values], el);
  u.spark = true;
  live.add(u);
  return u;
}

function hatch(ctx, x0, y0, w, h, color) {
  ctx.save();
  ctx.beginPath();
  ctx.rect(x0, y0, w, h);
  ctx.clip();
  ctx.strokeStyle = color;
  ctx.lineWidth = 1;
  for (let x = x0 - h; x < x0 + w; x += 8) {
    ctx.moveTo(x, y0 + h);
    ctx.lineTo(x + h, y0);
  }
  ctx.stroke();
  ctx.restore();
}

/** Plugin shading diagnosed periods ({start, end, severity, cause} in seconds) under the series. */
function periodsPlugin(periods) {
  return {
    hooks: {
      drawClear: [u => {
        if (!periods || !periods.length) return;
        const { ctx, bbox } = u;
        const xmin = u.scales.x.min;
        const xmax = u.scales.x.max;
        for (const p of periods) {
          const s = Math.max(p.start, xmin);
          const e = Math.min(p.end, xmax);
          if (e <= s) continue;
          const x0 = u.valToPos(s, 'x', true);
          const x1 = u.valToPos(e, 'x', true);
          const crit = p.severity === 'critical';
          ctx.save();
          ctx.fillStyle = cssVar(crit ? '--crit-fill' : '--warn-fill');
          ctx.fillRect(x0, bbox.top, Math.max(1, x1 - x0), bbox.height);
          ctx.restore();
          hatch(ctx, x0, bbox.top, Math.max(1, x1 - x0), bbox.height,
            cssVar(crit ? '--crit-hatch' : '--warn-hatch'));
          ctx.save();
          ctx.fillStyle = cssVar('--fg');
          ctx.font = `${Math.round(11 * devicePixelRatio)}px system-ui, sans-serif`;
          ctx.textBaseline = 'top';
          const label = (crit ? '▲ ' : '◆ ') + (p.cause || p.severity);
          if (x1 - x0 > ctx.measureText(label).width + 8) ctx.fillText(label, x0 + 4, bbox.top + 4);
          ctx.restore();
        }
      }],
    },
  };
}

/** A static default threshold is drawn only when the data reaches this share of it. */
export const STATIC_NEAR = 0.5;

/**
 * The threshold line a chart draws: learned (baseline) and SLO thresholds always; a static default
 * (basis "static": no baseline yet, e.g. 600 s E2E) only where the data comes within
 * STATIC_NEAR of it, so that the y axis fits the data instead of a limit far above it.
 * @param {(number|null)[]} threshold per step, in the chart's unit
 * @param {(string|null)[]|null} basis per step: 'slo', 'baseline', 'static' or null
 * @param {(number|null)[][]} lines the chart's data lines
 * @returns {(number|null)[]} the threshold with far static values nulled
 */
export function thresholdToDraw(threshold, basis, lines) {
  if (!threshold || !basis) return threshold;
  let max = -Infinity;
  for (const l of lines) for (const v of l) if (v != null && v > max) max = v;
  return threshold.map((t, i) => t != null && basis[i] === 'static' && !(max >= STATIC_NEAR * t) ? null : t);
}

/**
 * A time chart on the page's shared axis.
 * @param {HTMLElement} el container (the chart takes its width)
 * @param {Object} o
 * @param {number[]} o.ts timestamps, ms
 * @param {{label: string, values: (number|null)[], color?: string, width?: number, dash?: number[]}[]} o.lines
 * @param {string} o.unit unit for the axis and legend (see fmt)
 * @param {{threshold?: (number|null)[], baseline?: (number|null)[]}} [o.band] threshold band
 * @param {{start:number,end:number,severity:string,cause:string}[]} [o.periods] seconds
 * @param {string} [o.sync] cursor sync key
 */
export function timeChart(el, o) {
  const height = o.height || 190;
  const width = Math.max(300, el.clientWidth || 600);
  const palette = ['--c1', '--c2', '--c3', '--c4'].map(cssVar);
  const axis = { stroke: cssVar('--muted'), grid: { stroke: cssVar('--grid'), width: 1 },
    ticks: { stroke: cssVar('--grid'), width: 1 } };
  const series = [{}];
  const data = [o.ts.map(t => t / 1000)];
  o.lines.forEach((l, i) => {
    series.push({ label: l.label, stroke: l.color || palette[i % palette.length], width: l.width || 1.5,
      dash: l.dash, spanGaps: false, value: (u, v) => fmt(v, o.unit) });
    data.push(l.values);
  });
  const bands = [];
  if (o.band && o.band.threshold && o.band.threshold.some(v => v != null)) {
    series.push({ label: 'threshold', stroke: cssVar('--crit'), width: 1.5, dash: [6, 4],
      value: (u, v) => fmt(v, o.unit) });
    data.push(o.band.threshold);
    const thr = series.length - 1;
    if (o.band.baseline && o.band.baseline.some(v => v != null)) {
      series.push({ label: 'baseline', stroke: cssVar('--muted'), width: 1, dash: [2, 3],
        value: (u, v) => fmt(v, o.unit) });
      data.push(o.band.baseline);
      bands.push({ series: [thr, series.length - 1], fill: cssVar('--band') });
    }
  }
  const u = new uPlot({
    width, height,
    cursor: o.sync ? { sync: { key: o.sync, setSeries: false } } : {},
    scales: { x: { time: true }, y: { range: (u, min, max) => [Math.min(0, min), max > 0 ? max * 1.08 : 1] } },
    axes: [{ ...axis }, { ...axis, size: o.unit === 'tokens/s' || o.unit === 'tokens' ? 84 : 64, values: (u, vals) => vals.map(v => fmt(v, o.unit)) }],
    series, bands,
    plugins: [periodsPlugin(o.periods)],
    // The y range drawn, for tests and for anyone inspecting the page.
    hooks: { setScale: [(u, key) => { if (key === 'y') el.dataset.yRange = `${u.scales.y.min},${u.scales.y.max}`; }] },
  }, data, el);
  live.add(u);
  return u;
}

/** Bars/points of daily values (x: day start in seconds). */
export function dailyChart(el, { days, lines, unit, height = 220 }) {
  const palette = ['--c1', '--c2', '--c3', '--c4'].map(cssVar);
  const axis = { stroke: cssVar('--muted'), grid: { stroke: cssVar('--grid'), width: 1 },
    ticks: { stroke: cssVar('--grid'), width: 1 } };
  const series = [{ value: (u, v) => v == null ? '–' : new Date(v * 1000).toISOString().slice(0, 10) }];
  lines.forEach((l, i) => series.push({ label: l.label, stroke: palette[i % palette.length], width: 2,
    points: { show: true, size: 6 }, spanGaps: true, dash: i === 1 ? [8, 3] : i === 2 ? [2, 3] : undefined,
    value: (u, v) => fmt(v, unit) }));
  const u = new uPlot({
    width: Math.max(300, el.clientWidth || 600), height,
    // The x axis spans the data plus half a day each side: uPlot's own range for one or two
    // days of data ran over years (Dec 2026 to Jun 2029 for a single day).
    scales: { x: { time: true, range: (u, min, max) => [min - 43200, max + 43200] },
      y: { range: (u, min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [{ ...axis }, { ...axis, size: 64, values: (u, vals) => vals.map(v => fmt(v, unit)) }],
    series,
    // The x range drawn (Unix seconds), for tests and for anyone inspecting the page.
    hooks: { setScale: [(u, key) => { if (key === 'x') el.dataset.xRange = `${u.scales.x.min},${u.scales.x.max}`; }] },
  }, [days, ...lines.map(l => l.values)], el);
  // uPlot pads a time axis with one or two points by years, whatever the range function says.
  if (days.length) u.setScale('x', { min: days[0] - 43200, max: days[days.length - 1] + 43200 });
  live.add(u);
  return u;
}
