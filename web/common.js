// Helpers shared by the floor and the console: building elements without innerHTML (text from
// fans and accounts is never parsed as markup), durations, money, and how each grade looks.

/**
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @param {...(Node | string | number | null | undefined)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  for (const c of children) {
    if (c === null || c === undefined) continue;
    node.append(typeof c === 'object' ? c : String(c));
  }
  return node;
}

/** @param {number} sec */
export function duration(sec) {
  const s = Math.max(0, Math.round(sec));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86400)}d ${Math.floor((s % 86400) / 3600)}h`;
}

/** @param {number | null | undefined} cents */
export const money = (cents) => (cents === null || cents === undefined ? '—' : `$${(cents / 100).toFixed(2)}`);

/**
 * How each grade the API sends looks: a colour and the word shown beside it (docs/api.md, "The
 * floor and the console"). The API decides every grade (src/domain/sla.ts, src/read-side/floor.ts);
 * the pages decide none, so a page and the server cannot disagree about a wait.
 * @typedef {{ level: 'ok' | 'warn' | 'bad' | 'muted', word: string }} Look
 * @type {Record<string, Look>}
 */
const LOOKS = {
  // A wait against the threshold.
  ok: { level: 'ok', word: 'OK' }, 'at-risk': { level: 'warn', word: 'AT RISK' }, breached: { level: 'bad', word: 'OVER' },
  // Fans over the threshold.
  none: { level: 'ok', word: 'NONE' }, some: { level: 'warn', word: 'SOME' }, high: { level: 'bad', word: 'HIGH' },
  // % answered within the threshold.
  'no-data': { level: 'ok', word: 'NO DATA' }, 'on-target': { level: 'ok', word: 'ON TARGET' }, below: { level: 'warn', word: 'BELOW' }, missed: { level: 'bad', word: 'MISSED' },
  // The worst open alert.
  clear: { level: 'ok', word: 'CLEAR' }, warning: { level: 'warn', word: 'WARNING' }, critical: { level: 'bad', word: 'CRITICAL' },
};

/** @param {string | null | undefined} grade @returns {Look} */
export function look(grade) {
  return (grade && LOOKS[grade]) || { level: 'muted', word: '' };
}

/** @param {string | null | undefined} grade @param {string | number} text */
export function graded(grade, text) {
  const g = look(grade);
  return h('span', { class: g.level }, text, ' ', h('span', { class: 'tag' }, g.word));
}
