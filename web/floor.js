// The wallboard: one EventSource on /api/floor/stream; the server pushes a snapshot when the
// figures change (at most once a second, so every second while a fan waits). The page shows each
// figure with the grade the server sent beside it and works out none, and it says how old its
// figures are when the stream falls silent (the browser reconnects by itself).
import { accountName, count, duration, graded, h, look, percent, ruleName } from './common.js';

/** @type {any} */
let snapshot = null;
const $ = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (document.querySelector(sel));
const figure = (/** @type {string} */ name) => $(`[data-figure="${name}"]`);

function setText(el, content) {
  el.replaceChildren(content);
}

function render() {
  if (!snapshot) return;
  const s = snapshot;
  const t = s.totals;
  setText(figure('open'), count(t.open));
  setText(figure('awaiting'), count(t.awaiting));
  // READ_AUTH=required and no key: totals only, the server sends no rows and no names.
  const aggregate = s.view === 'aggregate';
  // Accounts as the rows below count them: those with a session open, of every account known.
  const withOpen = s.accounts.filter((a) => a.open > 0).length;
  setText(figure('awaiting-note'), aggregate ? 'totals only' : `in ${withOpen} of ${s.accounts.length} account${s.accounts.length === 1 ? '' : 's'} · ${s.chatters.length} chatter${s.chatters.length === 1 ? '' : 's'}`);
  figure('breached').className = `value ${look(t.breachedGrade).level}`;
  setText(figure('breached'), count(t.breached));
  setText(figure('breached-note'), graded(t.breachedGrade, `threshold ${duration(s.thresholdSec)}`));
  figure('longest').className = `value ${look(t.longestWaitGrade).level}`;
  setText(figure('longest'), duration(t.longestWaitSec));
  setText(figure('longest-note'), graded(t.longestWaitGrade, ''));
  const pct = t.today.withinThresholdPct;
  figure('within').className = `value ${look(t.today.withinThresholdGrade).level}`;
  setText(figure('within'), percent(pct));
  setText(figure('within-note'), graded(t.today.withinThresholdGrade, `${t.today.sessions} sessions today`));

  const hidden = (/** @type {number} */ columns) => [h('tr', {}, h('td', { colspan: String(columns), class: 'muted' }, 'Not shown without an access key'))];
  // Each cell names its column (data-label): a phone shows a row as a card of labelled figures.
  $('#accounts').replaceChildren(...aggregate ? hidden(7) : s.accounts.map((a) => h('tr', { 'data-account': a.id },
    // Any name fits: shortened here and by the cell's ellipsis, the whole id on hover.
    h('th', { scope: 'row', class: 'name', title: a.displayName ? `${a.displayName} (${a.id})` : a.id }, accountName(a.id, a.displayName)),
    h('td', { class: 'num', 'data-label': 'Open' }, count(a.open)),
    h('td', { class: 'num', 'data-label': 'Waiting' }, count(a.awaiting)),
    h('td', { class: `num ${look(a.breachedGrade).level}`, 'data-label': 'Over' }, count(a.breached)),
    h('td', { class: `num ${look(a.longestWaitGrade).level}`, 'data-label': 'Longest wait' }, a.longestWaitSec > 0 ? duration(a.longestWaitSec) : '—'),
    h('td', { class: 'num', 'data-label': 'Alerts' }, count(a.openAlerts)),
    // Who is clocked in; fans waiting with nobody on stand out.
    h('td', { class: `on-now ${a.waitingWithNobodyOn > 0 ? 'bad' : ''}`, 'data-label': 'On now', 'data-on-now': a.onNow.join(' ') }, a.onNow.length > 0 ? a.onNow.join(', ') : a.waitingWithNobodyOn > 0 ? `nobody on, ${a.waitingWithNobodyOn} waiting` : '—'))));
  $('#chatters').replaceChildren(...aggregate ? hidden(5) : s.chatters.map((c) => h('tr', { 'data-chatter': c.id },
    h('th', { scope: 'row', class: 'name', title: c.id }, c.id),
    h('td', { class: 'num', 'data-label': 'Open' }, count(c.openSessions)),
    h('td', { class: 'num', 'data-label': 'Waiting' }, count(c.awaiting)),
    h('td', { class: `num ${look(c.breachedGrade).level}`, 'data-label': 'Over' }, count(c.breached)),
    h('td', { class: 'num', 'data-label': 'Alerts' }, count(c.openAlerts)))));
  const sev = t.severity;
  const alerts = sev.critical + sev.warning + sev.info;
  $('#alert-grade').replaceChildren(graded(t.alertGrade, count(alerts)), alerts > 0 ? h('span', { class: 'muted', 'data-figure': 'alerted-fans' }, ` on ${count(t.alertedFans)} fan${t.alertedFans === 1 ? '' : 's'}`) : '');
  const names = new Map(s.accounts.map((a) => [a.id, accountName(a.id, a.displayName)]));
  $('#alerts').replaceChildren(...(s.topAlerts.length === 0 ? [h('li', { class: 'muted' }, 'No open alerts')] : s.topAlerts.map((a) =>
    h('li', { title: a.ruleId, 'data-rule': a.ruleId }, h('span', { class: a.severity === 'critical' ? 'bad' : a.severity === 'warning' ? 'warn' : 'muted' }, a.severity.toUpperCase()), ' ',
      [ruleName(a.ruleId), names.get(a.accountId) ?? accountName(a.accountId, null), a.chatterId].filter(Boolean).join(' · '),
      a.count > 1 ? h('span', { class: 'muted', 'data-count': String(a.count) }, ` ×${a.count}`) : null))));
  const silent = (Date.now() - heardAt) / 1000;
  setText($('#updated'), `figures of ${new Date(s.at).toLocaleTimeString()}${silent > 20 ? ` (no word from the server for ${duration(silent)})` : ''}`);
}

/** When the stream last said anything (a snapshot or a heartbeat): figures are stale only when it falls silent. */
let heardAt = 0;
let retryMs = 1000;

function connect() {
  const source = new EventSource('/api/floor/stream');
  source.addEventListener('open', () => { retryMs = 1000; $('#connection').className = 'ok'; setText($('#connection'), 'live'); });
  source.addEventListener('snapshot', (e) => {
    snapshot = JSON.parse(/** @type {MessageEvent} */ (e).data);
    heardAt = Date.now();
    document.body.dataset.snapshotAt = snapshot.at;
    render();
  });
  source.addEventListener('heartbeat', () => { heardAt = Date.now(); });
  source.addEventListener('error', () => {
    $('#connection').className = 'warn';
    setText($('#connection'), 'reconnecting…');
    // The browser retries a dropped stream by itself, but not one refused (a 429, a 503, a
    // proxy's 502 during a deploy): then this page does, backing off up to a minute.
    if (source.readyState === EventSource.CLOSED) {
      source.close();
      setTimeout(connect, retryMs + Math.floor(Math.random() * 1000));
      retryMs = Math.min(60_000, retryMs * 2);
    }
  });
}

connect();
setInterval(render, 1000);
