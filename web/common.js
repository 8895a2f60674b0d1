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

// The reader's own locale for separators ("$1,771.00", "1.771,00 $"); the API's figures as
// they are (a percentage keeps the API's one decimal: the page rounds nothing the API did not).
const USD = new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD' });
const DECIMAL = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/** @param {number | null | undefined} cents */
export const money = (cents) => (cents === null || cents === undefined ? '—' : USD.format(cents / 100));

/** A percentage the API gave (0–100, one decimal at most), as it gave it. @param {number | null | undefined} value */
export const percent = (value) => (value === null || value === undefined ? '—' : `${DECIMAL.format(value)}%`);

/** A count with the locale's thousands separator. @param {number} n */
export const count = (n) => DECIMAL.format(n);

/**
 * An account's name for a narrow cell: its display name, else its id shortened to its start and
 * end (`acct_0100…0000`); the cell's title carries the whole id.
 * @param {string} id @param {string | null | undefined} displayName
 */
export function accountName(id, displayName) {
  if (displayName) return displayName;
  return id.length > 16 ? `${id.slice(0, 9)}…${id.slice(-4)}` : id;
}

/** What the alert rules are called on the pages (src/intelligence/rules.ts has their ids and definitions). */
export const RULE_NAMES = {
  'sla.fan-waiting': 'Fan waiting',
  'vip.waiting': 'VIP waiting',
  'session.open-no-reply': 'Open with no reply',
  'ppv.no-follow-up': 'PPV not followed up',
  'language.churn-risk': 'Fan may leave',
  'chatter.slow-streak': 'Slow streak',
  'coverage.gap': 'Nobody on shift',
  'shift.no-show': 'Shift no-show',
};

/** @param {string} ruleId */
export const ruleName = (ruleId) => RULE_NAMES[ruleId] ?? ruleId;

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
