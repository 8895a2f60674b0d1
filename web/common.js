// Helpers shared by the floor and the console: building elements without innerHTML (text from
// fans and accounts is never parsed as markup), durations, money, and the colour thresholds.

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
 * The floor's thresholds (docs: README, "The floor and the console"). Each returns a level and
 * the word shown beside the colour.
 * @typedef {{ level: 'ok' | 'warn' | 'bad', word: string }} Grade
 */
/** @returns {Grade} */
export function gradeWait(sec, thresholdSec) {
  if (sec >= thresholdSec) return { level: 'bad', word: 'OVER' };
  if (sec >= 0.8 * thresholdSec) return { level: 'warn', word: 'AT RISK' };
  return { level: 'ok', word: 'OK' };
}
/** @returns {Grade} */
export function gradeBreached(n) {
  if (n >= 3) return { level: 'bad', word: 'HIGH' };
  if (n >= 1) return { level: 'warn', word: 'SOME' };
  return { level: 'ok', word: 'NONE' };
}
/** @param {number | null} pct @returns {Grade} */
export function gradeWithin(pct) {
  if (pct === null) return { level: 'ok', word: 'NO DATA' };
  if (pct >= 90) return { level: 'ok', word: 'ON TARGET' };
  if (pct >= 75) return { level: 'warn', word: 'BELOW' };
  return { level: 'bad', word: 'MISSED' };
}
/** @returns {Grade} */
export function gradeAlerts(critical, warning) {
  if (critical > 0) return { level: 'bad', word: 'CRITICAL' };
  if (warning > 0) return { level: 'warn', word: 'WARNING' };
  return { level: 'ok', word: 'CLEAR' };
}

/** @param {Grade} g @param {string | number} text */
export function graded(g, text) {
  return h('span', { class: g.level }, text, ' ', h('span', { class: 'tag' }, g.word));
}
