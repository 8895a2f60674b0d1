// The manager's console: the public API only, with the access key the person types in (kept for
// this tab in sessionStorage, sent as a bearer token, never put in a URL).
import { accountName, count, duration, h, look, money, percent, ruleName } from './common.js';

const $ = (/** @type {string} */ sel) => /** @type {HTMLElement} */ (document.querySelector(sel));
const view = $('#view');
let current = 'inbox';
/** @type {ReturnType<typeof setInterval> | null} */
let ticker = null;

const key = () => sessionStorage.getItem('convops-key');

/** @param {string} path @param {RequestInit} [init] */
async function api(path, init = {}) {
  const headers = new Headers(init.headers);
  const k = key();
  if (k) headers.set('authorization', `Bearer ${k}`);
  const res = await fetch(path, { ...init, headers });
  const body = res.status === 204 ? null : await res.json().catch(() => null);
  if (!res.ok) throw new Error(body?.message ? `${res.status}: ${body.message}` : `${res.status}`);
  return body;
}

const daysAgo = (n) => new Date(Date.now() - n * 86400_000).toISOString().slice(0, 10);

/** Who a sale is credited to (docs/api.md, "Money"): the four models, in the API's words. */
const CREDIT_MODELS = [
  ['session', 'Last reply in its session'],
  ['converter', 'Last message before it (a day)'],
  ['sender', 'Who sent the PPV bought'],
  ['shift', 'Who was clocked in (shared)'],
];

function periodForm(onSubmit, from = daysAgo(7), to = '', withModel = false, withClock = false) {
  const f = h('form', { class: 'inline' },
    h('label', {}, 'From', h('input', { type: 'date', name: 'from', value: from })),
    h('label', {}, 'To (exclusive)', h('input', { type: 'date', name: 'to', value: to })),
    withModel ? h('label', {}, 'Credit sales to', h('select', { name: 'model', 'data-model': '' }, ...CREDIT_MODELS.map(([v, label]) => h('option', { value: v }, label)))) : '',
    // Waits on the wall clock, or only the seconds inside each account's business hours.
    withClock ? h('label', {}, 'Count waits', h('select', { name: 'clock', 'data-clock': '' }, h('option', { value: 'wall' }, 'around the clock'), h('option', { value: 'business' }, 'in business hours'))) : '',
    h('button', { type: 'submit' }, 'Show'));
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(/** @type {HTMLFormElement} */ (f));
    const q = new URLSearchParams();
    for (const k of ['from', 'to', 'model', 'clock']) if (data.get(k)) q.set(k, String(data.get(k)));
    void onSubmit(q);
  });
  return f;
}

function table(headers, rows) {
  return h('table', {}, h('thead', {}, h('tr', {}, ...headers.map(([label, num]) => h('th', { scope: 'col', class: num ? 'num' : '' }, label)))),
    h('tbody', {}, ...rows));
}

const views = {
  async inbox(_arg, current = () => true) {
    const [data, floor] = await Promise.all([api('/api/sessions?sort=priority&awaiting=1&limit=100'), api('/api/floor')]);
    if (!current()) return;
    const names = new Map(floor.accounts.map((a) => [a.id, accountName(a.id, a.displayName)]));
    const loadedAt = Date.now();
    const rows = data.items.map((s) => {
      const cell = h('td', { class: `num ${look(s.grade).level}`, 'data-wait': String(s.waitSec), 'data-grade': s.grade ?? '' }, duration(s.waitSec));
      // Why this row is where it is: the server's reasons, the wait among them kept running.
      const reasons = h('td', { class: 'reasons', 'data-reasons': (s.priorityReasons ?? []).map((x) => x.kind).join(' ') },
        ...(s.priorityReasons ?? []).flatMap((x, i) => [i > 0 ? ' · ' : null,
          x.kind === 'waiting' ? h('span', { 'data-wait-reason': String(s.waitSec) }, `waiting ${duration(s.waitSec)}`) : h('span', { class: x.kind === 'past-sla' ? 'bad' : x.kind === 'sla-at-risk' ? 'warn' : '' }, x.text)]));
      return h('tr', { 'data-session': s.id },
        h('td', { title: s.accountId }, names.get(s.accountId) ?? accountName(s.accountId, null)), h('td', {}, chatLink(s.chatId)), cell, reasons,
        h('td', { class: 'num' }, money(s.fanSpendCents)), h('td', { class: 'num' }, count(s.fanMessageCount)), h('td', {}, s.lastHumanChatterId ?? '—'), h('td', {}, whyLink(s.id)));
    });
    view.replaceChildren(h('h2', {}, `Waiting fans (${data.items.length})`),
      h('p', { class: 'muted', 'data-order-note': '' }, 'Most urgent first: each fan ranks by their wait plus a head start for what they have spent; "Why first" says the wait each row ranks as.'),
      data.items.length === 0 ? h('p', { class: 'muted' }, 'Nobody is waiting.') :
      table([['Account'], ['Chat'], ['Waiting', true], ['Why first'], ['Fan spend', true], ['Fan messages', true], ['Last chatter'], ['Figures']], rows));
    // Running wait timers, without asking the server every second: a timer counts whole seconds
    // on from the wait the server sent, and its grade moves at the second the server named
    // (`gradeSteps`), so the figure and its colour always agree with the server's.
    /** @type {{ grade: string, fromSec: number }[]} */
    const steps = data.gradeSteps ?? [];
    ticker = setInterval(() => {
      const elapsed = Math.floor((Date.now() - loadedAt) / 1000);
      for (const cell of view.querySelectorAll('td[data-wait]')) {
        const sec = Number(cell.getAttribute('data-wait')) + elapsed;
        const grade = steps.filter((st) => sec >= st.fromSec).pop()?.grade ?? cell.getAttribute('data-grade');
        cell.textContent = duration(sec);
        cell.className = `num ${look(grade).level}`;
      }
      for (const span of view.querySelectorAll('span[data-wait-reason]')) span.textContent = `waiting ${duration(Number(span.getAttribute('data-wait-reason')) + elapsed)}`;
    }, 1000);
  },
  async sla() {
    const show = async (q) => {
      const r = await api(`/api/sla?${q}`);
      const g = look(r.withinThresholdGrade);
      const clockNote = r.clock === 'business'
        ? ` Waits counted in business hours${r.businessHoursAccounts.length === 0 ? ' (no account has them: around the clock)' : ` for ${r.businessHoursAccounts.length} account${r.businessHoursAccounts.length === 1 ? '' : 's'} with them`}.`
        : '';
      out.replaceChildren(
        h('p', { 'data-clock-shown': r.clock }, 'Within ', h('strong', { class: g.level, 'data-figure': 'sla-within' }, percent(r.withinThresholdPct)), ` of ${count(r.sessions)} sessions (threshold ${duration(r.thresholdSec)}); median first response ${r.medianFirstResponseSec === null ? '—' : duration(r.medianFirstResponseSec)}, p90 ${r.p90FirstResponseSec === null ? '—' : duration(r.p90FirstResponseSec)}; ${r.breaches} breaches, ${r.pending} pending.${clockNote}`),
        h('h3', {}, 'By chatter'),
        table([['Chatter'], ['Sessions', true], ['Within %', true], ['Median FRT', true], ['Breaches', true]], r.byChatter.map((c) => h('tr', {},
          h('td', { class: c.chatterId === null ? 'muted' : '' }, c.chatterId ?? 'not named (webhook replies)'), h('td', { class: 'num' }, count(c.sessions)), h('td', { class: 'num' }, percent(c.withinThresholdPct)),
          h('td', { class: 'num' }, c.medianFirstResponseSec === null ? '—' : duration(c.medianFirstResponseSec)), h('td', { class: 'num' }, count(c.breaches))))),
        h('h3', {}, 'Sessions behind it, newest first'),
        await sessionsTable((await api('/api/sessions?sort=opened&limit=20')).items, 'sla'));
    };
    const out = h('div');
    view.replaceChildren(h('h2', {}, 'First-response SLA'), periodForm((q) => show(q).catch(showError), daysAgo(7), '', false, true), out);
    await show(new URLSearchParams({ from: daysAgo(7) }));
  },
  async scorecard() {
    const show = async (q) => {
      const r = await api(`/api/chatters/scorecard?${q}`);
      const u = r.unattributed;
      // How much of the window nobody is named for: a high share makes the rows below say little.
      const note = h('p', { class: u && (u.sessionsPct ?? 0) >= 50 ? 'warn' : 'muted', 'data-unattributed': u ? `${u.sessionsPct ?? ''} ${u.revenuePct ?? ''}` : '' },
        u ? `Unattributed: ${u.sessions} sessions first answered without a named chatter (${u.sessionsPct ?? '—'}%), ${money(u.revenueCents)} of revenue (${u.revenuePct ?? '—'}%). Replies reach convops with their chatter only through the connector.` : '');
      const coaching = h('p', { class: 'muted', 'data-coach-note': '' }, 'Coach priority (0 to 100, coach the highest first) adds up points for what needs coaching, each named under "Why": up to 40 for SLA breaches, 20 for a slow tail of first responses, 20 for revenue per message below the team\'s, 10 for an unlock ratio below the team\'s, 10 for open alerts.');
      out.replaceChildren(note, coaching, table([['Chatter'], ['Sessions', true], ['Revenue', true], ['Within %', true], ['Median FRT', true], ['Revenue / message', true], ['Unlock ratio', true], ['Open alerts', true], ['Coach priority', true], ['Why']],
        r.items.map((c) => h('tr', { 'data-scorecard': c.chatterId }, h('td', { title: c.chatterId }, c.displayName ?? c.chatterId), h('td', { class: 'num' }, count(c.sessions)), h('td', { class: 'num' }, money(c.revenueCents)),
          h('td', { class: 'num' }, percent(c.sla?.withinThresholdPct)), h('td', { class: 'num' }, c.sla?.medianFirstResponseSec == null ? '—' : duration(c.sla.medianFirstResponseSec)),
          h('td', { class: 'num' }, money(c.revenuePerDirectMessageCents)), h('td', { class: 'num' }, percent(c.unlockRatioPct)),
          h('td', { class: 'num' }, count(c.openAlerts)), h('td', { class: 'num' }, count(c.coachPriority)),
          h('td', { class: 'reasons', 'data-reasons': (c.coachReasons ?? []).map((x) => x.kind).join(' ') }, (c.coachReasons ?? []).map((x) => `${x.text} (+${x.points})`).join(' · '), ' ', chatterSessionsLink(c.chatterId))))));
    };
    const out = h('div');
    view.replaceChildren(h('h2', {}, 'Chatter scorecard'), periodForm((q) => show(q).catch(showError), daysAgo(7), '', true, true), out);
    await show(new URLSearchParams({ from: daysAgo(7) }));
  },
  async chatterSessions(chatterId, current = () => true) {
    const r = await api('/api/sessions?sort=opened&limit=500');
    if (!current()) return;
    const mine = r.items.filter((s) => s.firstResponderId === chatterId);
    view.replaceChildren(h('h2', {}, `Sessions ${chatterId} answered first`), h('p', { class: 'muted' }, `Of the newest ${r.items.length} sessions. "why?" shows how each figure was decided.`),
      await sessionsTable(mine, 'chatter'));
  },
  async why(sessionId, current = () => true) {
    const e = await api(`/api/sessions/${encodeURIComponent(sessionId)}/explain`);
    if (!current()) return;
    const value = (v) => (v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v));
    view.replaceChildren(h('h2', {}, 'Why these figures'),
      h('p', { class: e.agrees ? 'muted' : 'bad', 'data-agrees': String(e.agrees) }, `Session ${e.sessionId}: decided again from its chat's ${e.recordsRead} inbound records under the definitions in force (idle gap ${duration(e.definitions.sessionIdleSec)}, lateness ${duration(e.definitions.allowedLatenessSec)}, unanswered limit ${duration(e.definitions.unansweredCloseSec)}). `
        + (e.agrees ? 'They give exactly the figures shown everywhere else.' : `They differ from the stored session in ${e.differences.map((d) => d.field).join(', ')}.`)),
      table([['Figure'], ['Value'], ['Set by'], ['From the record']], e.figures.map((f) => h('tr', { 'data-figure-row': f.figure },
        h('td', {}, f.figure), h('td', {}, value(f.value)), h('td', {}, f.event ? `${f.event.type} at ${new Date(f.event.at).toLocaleString()}` : '—'), h('td', {}, recordText(f.record))))),
      h('h3', {}, 'Payments and who is credited'),
      e.payments.length === 0 ? h('p', { class: 'muted' }, 'No payments in this session.') :
        table([['Payment'], ['Amount', true], ['Last reply (session)'], ['Sender of the PPV'], ['Last message before it'], ['Reassigned to'], ['From the record']], e.payments.map((p) => h('tr', { 'data-payment': p.paymentId },
          h('td', {}, `${p.kind} ${p.paymentId}`), h('td', { class: 'num' }, money(p.grossCents)), h('td', {}, p.credits.session ?? 'nobody'),
          h('td', {}, p.credits.sender ? `${p.credits.sender.chatterId ?? 'nobody'} (${p.credits.sender.rule})` : '—'),
          h('td', {}, p.credits.converter ? `${p.credits.converter.chatterId ?? 'nobody'} (${p.credits.converter.rule})` : '—'),
          h('td', {}, p.credits.reassignedTo ?? '—'), h('td', {}, recordText(p.record))))),
      h('h3', {}, 'The chart\'s steps'),
      h('ol', { 'data-steps': '' }, ...e.steps.map((st) => h('li', {}, `${recordText(st.record)}: ${stateText(st.stateBefore)} → ${stateText(st.stateAfter)}; ${st.events.map((x) => x.type).join(', ')}`))));
  },
  async money(_arg, current = () => true) {
    const show = async (q) => {
      const [r, daily, floor] = await Promise.all([api(`/api/conversion?${q}`), api(`/api/conversion/daily?${q}`), api('/api/floor')]);
      if (!current()) return;
      const names = new Map(floor.accounts.map((a) => [a.id, accountName(a.id, a.displayName)]));
      const minutes = (m) => (m === null || m === undefined ? '—' : duration(m * 60));
      const strays = r.accounts.filter((a) => a.unlinkedUnlocks + a.unseenSendUnlocks > 0);
      out.replaceChildren(
        dailyChart(daily.days),
        h('h3', {}, 'By chatter (direct messages only: mass and automated sends are under campaigns)'),
        r.chatters.length === 0 ? h('p', { class: 'muted' }, 'No direct messages in this period.') :
          table([['Chatter'], ['Direct messages', true], ['Fans chatted', true], ['PPVs sent', true], ['Golden ratio', true], ['Unlocked', true], ['Unlock ratio', true], ['PPV revenue', true], ['Credited', true], ['Revenue / message', true], ['Median price', true], ['Median to unlock', true], ['Quality: contact / pay / banned', true]],
            r.chatters.map((c) => h('tr', { 'data-chatter': c.chatterId ?? '' }, h('td', {}, c.chatterId ?? 'not named'), h('td', { class: 'num' }, count(c.directMessages)), h('td', { class: 'num', 'data-fans': String(c.fansChatted) }, count(c.fansChatted)), h('td', { class: 'num' }, count(c.directPpvsSent)),
              h('td', { class: 'num' }, percent(c.goldenRatioPct)), h('td', { class: 'num' }, count(c.ppvsUnlocked)), h('td', { class: 'num' }, percent(c.unlockRatioPct)), h('td', { class: 'num' }, money(c.ppvRevenueCents)),
              h('td', { class: 'num', 'data-credited': String(c.revenueCents) }, money(c.revenueCents)),
              h('td', { class: 'num' }, money(c.revenuePerDirectMessageCents)), h('td', { class: 'num' }, money(c.medianPpvPriceCents)), h('td', { class: 'num' }, minutes(c.medianMinutesToUnlock)),
              h('td', { class: `num ${c.qaFlags.offPlatformContact + c.qaFlags.offPlatformPayment + c.qaFlags.bannedPhrase > 0 ? 'warn' : ''}`, 'data-qa': `${c.qaFlags.offPlatformContact} ${c.qaFlags.offPlatformPayment} ${c.qaFlags.bannedPhrase}` }, `${c.qaFlags.offPlatformContact} / ${c.qaFlags.offPlatformPayment} / ${c.qaFlags.bannedPhrase}`)))),
        h('h3', {}, 'By campaign (mass messages)'),
        r.campaigns.length === 0 ? h('p', { class: 'muted' }, 'No campaigns in this period.') :
          table([['Account'], ['Campaign'], ['Fans reached', true], ['PPVs sent', true], ['Unlocks', true], ['Unlock rate', true], ['Revenue', true]],
            r.campaigns.map((c) => h('tr', { 'data-campaign': c.campaignId ?? '' }, h('td', {}, names.get(c.accountId) ?? c.accountId), h('td', {}, c.campaignId ?? 'automated'), h('td', { class: 'num' }, count(c.fansReached)),
              h('td', { class: 'num' }, count(c.ppvsSent)), h('td', { class: 'num' }, count(c.unlocks)), h('td', { class: 'num' }, percent(c.unlockRatePct)), h('td', { class: 'num' }, money(c.revenueCents))))),
        strays.length === 0 ? '' : h('p', { class: 'muted', 'data-strays': '' }, `Unlocks not linked to a send: ${strays.map((a) => `${names.get(a.accountId) ?? a.accountId}: ${a.unlinkedUnlocks} without a usable link, ${a.unseenSendUnlocks} of PPVs never seen sent`).join('; ')}.`),
        h('p', { class: 'muted' }, 'Exports: ', h('a', { href: `/api/exports/conversion.csv?${q}`, 'data-export': 'conversion' }, 'conversion.csv'), ' · ', h('a', { href: `/api/exports/campaigns.csv?${q}`, 'data-export': 'campaigns' }, 'campaigns.csv'), ' (with a key, open them from the API: the links carry none).'));
    };
    const out = h('div');
    view.replaceChildren(h('h2', {}, 'Money'), periodForm((q) => show(q).catch(showError), daysAgo(7), '', true), out);
    await show(new URLSearchParams({ from: daysAgo(7) }));
  },
  async shifts(_arg, current = () => true) {
    // This week's planned shifts against clocked time, and who is on now.
    const [r, people, floor] = await Promise.all([api('/api/shifts'), api('/api/chatters'), api('/api/floor')]);
    if (!current()) return;
    const names = new Map(floor.accounts.map((a) => [a.id, accountName(a.id, a.displayName)]));
    const when = (iso) => new Date(iso).toLocaleString([], { weekday: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
    const late = (s) => (s === null ? '—' : duration(s));
    const on = people.items.filter((c) => c.onNow.length > 0);
    view.replaceChildren(h('h2', {}, 'Shifts this week'),
      h('p', { 'data-on-now': on.map((c) => c.chatterId).join(' ') }, on.length === 0 ? 'Nobody is clocked in now.' : `On now: ${on.map((c) => `${c.displayName ?? c.chatterId} (${c.onNow.map((o) => names.get(o.accountId) ?? o.accountId).join(', ')})`).join('; ')}.`),
      h('h3', {}, 'Per chatter'),
      r.chatters.length === 0 ? h('p', { class: 'muted' }, 'No roster plans a shift this week (PUT /api/admin/chatters/:chatterId/roster).') :
        table([['Chatter'], ['Shifts', true], ['Planned', true], ['Clocked in shifts', true], ['Clocked in all', true], ['Late starts', true], ['Early ends', true], ['No-shows', true], ['Fans waited', true], ['Answered', true], ['Within %', true], ['Revenue', true]],
          r.chatters.map((c) => h('tr', { 'data-roster-chatter': c.chatterId }, h('td', {}, c.displayName ?? c.chatterId), h('td', { class: 'num' }, count(c.shifts)), h('td', { class: 'num' }, duration(c.plannedSec)),
            h('td', { class: 'num' }, duration(c.clockedInShiftsSec)), h('td', { class: 'num' }, duration(c.clockedSec)), h('td', { class: 'num' }, count(c.lateStarts)), h('td', { class: 'num' }, count(c.earlyEnds)),
            h('td', { class: `num ${c.noShows > 0 ? 'bad' : ''}` }, c.noShows), h('td', { class: 'num' }, count(c.fansWaited)), h('td', { class: 'num' }, count(c.sessionsAnswered)),
            h('td', { class: 'num' }, percent(c.withinThresholdPct)), h('td', { class: 'num' }, money(c.revenueCents))))),
      h('h3', {}, 'Coverage per account'),
      r.accounts.length === 0 ? h('p', { class: 'muted' }, 'No fan waited and nobody clocked in this week.') :
        table([['Account'], ['Fans waiting', true], ['With nobody on', true], ['Someone on', true]],
          r.accounts.map((a) => h('tr', { 'data-coverage': a.accountId, 'data-uncovered': a.uncoveredWaitingSec }, h('td', {}, names.get(a.accountId) ?? a.accountId),
            h('td', { class: 'num' }, duration(a.waitingSec)), h('td', { class: `num ${a.uncoveredWaitingSec > 0 ? 'bad' : ''}` }, duration(a.uncoveredWaitingSec)),
            h('td', { class: 'num' }, duration(a.staffedSec))))),
      h('h3', {}, 'Planned against clocked'),
      table([['Chatter'], ['Account'], ['Planned'], ['Status'], ['Clocked', true], ['Late start', true], ['Early end', true]],
        r.shifts.map((s) => h('tr', { 'data-shift': s.shiftId, 'data-status': s.status }, h('td', {}, s.displayName ?? s.chatterId), h('td', {}, names.get(s.accountId) ?? s.accountId),
          h('td', {}, `${when(s.plannedStart)} – ${when(s.plannedEnd)}`), h('td', { class: s.noShow ? 'bad' : s.status === 'on' ? 'ok' : '' }, s.noShow ? `${s.status}, no-show` : s.status),
          h('td', { class: 'num' }, duration(s.clockedSec)), h('td', { class: 'num' }, late(s.lateStartSec)), h('td', { class: 'num' }, late(s.earlyEndSec))))),
      h('p', { class: 'muted' }, 'Exports: ', h('a', { href: '/api/exports/shifts.csv', 'data-export': 'shifts' }, 'shifts.csv'), ' · ', h('a', { href: '/api/exports/pay.csv', 'data-export': 'pay' }, 'pay.csv'), ' · ', h('a', { href: '/api/exports/coverage.csv', 'data-export': 'coverage' }, 'coverage.csv'), ' (this week; with a key, open them from the API: the links carry none).'));
  },
  async alerts(_arg, current = () => true) {
    const r = await api('/api/alerts?status=open&limit=100');
    if (!current()) return;
    // One line per waiting fan: a fan past the SLA who has spent a lot raises two alerts (the SLA
    // and the VIP rule), and a manager acts on the fan once. Alerts about no one chat keep a line each.
    const groups = groupByFan(r.items);
    const fans = groups.filter((g) => g.chatId !== null).length;
    const rank = { critical: 0, warning: 1, info: 2 };
    view.replaceChildren(h('h2', {}, `Open alerts (${r.total})`),
      h('p', { class: 'muted', 'data-alert-groups': String(groups.length) }, `One line per fan (${fans}), with every alert about them; ${groups.length - fans} about no single fan. Acknowledge takes a line's alerts together.`),
      r.items.length === 0 ? h('p', { class: 'muted' }, 'No open alerts.') :
        table([['Severity'], ['Alerts'], ['Reasons'], ['Chat'], ['Chatter'], ['']], groups.map((g) => {
          const worst = g.alerts.map((a) => a.severity).sort((x, y) => (rank[x] ?? 3) - (rank[y] ?? 3))[0];
          const ack = h('button', { type: 'button', 'data-ack': g.alerts.map((a) => a.id).join(' ') }, 'Acknowledge');
          ack.addEventListener('click', () => {
            // Each on its own: one that resolved meanwhile must not hide that the others were taken.
            Promise.allSettled(g.alerts.map((a) => api(`/api/alerts/${encodeURIComponent(a.id)}/ack`, { method: 'POST' }))).then(async (results) => {
              await show('alerts');
              const failed = results.filter((r) => r.status === 'rejected');
              if (failed.length > 0) showError(new Error(`${failed.length} of ${results.length} not acknowledged: ${failed[0].reason instanceof Error ? failed[0].reason.message : String(failed[0].reason)}`));
            });
          });
          return h('tr', { 'data-alert-group': g.key, 'data-alert-count': String(g.alerts.length) },
            h('td', { class: worst === 'critical' ? 'bad' : worst === 'warning' ? 'warn' : '' }, worst),
            h('td', {}, ...g.alerts.flatMap((a, i) => [i > 0 ? ' · ' : null, h('span', { title: a.ruleId, 'data-rule': a.ruleId }, ruleName(a.ruleId))])),
            h('td', {}, ...g.alerts.flatMap((a, i) => [i > 0 ? h('br') : null, a.reason])),
            h('td', {}, g.chatId ? chatLink(g.chatId) : '—'), h('td', {}, g.chatterId ?? '—'), h('td', {}, ack));
        })), await hooksSection(current));
  },
  async chat(chatId = '') {
    const form = h('form', { class: 'inline' }, h('label', {}, 'Chat id', h('input', { name: 'chatId', value: chatId, required: '' })), h('button', { type: 'submit' }, 'Open'));
    const out = h('div');
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      const id = String(new FormData(/** @type {HTMLFormElement} */ (form)).get('chatId') ?? '');
      showChat(id, out).catch(showError);
    });
    view.replaceChildren(h('h2', {}, 'Chat'), form, out);
    if (chatId) await showChat(chatId, out);
  },
};

/** Alerts grouped by the fan they are about (account and chat), in the order the API gave the first of each. */
function groupByFan(items) {
  /** @type {Map<string, { key: string, chatId: string | null, chatterId: string | null, alerts: any[] }>} */
  const groups = new Map();
  for (const a of items) {
    const key = a.chatId ? `${a.accountId}:${a.chatId}` : a.id;
    const g = groups.get(key) ?? { key, chatId: a.chatId ?? null, chatterId: a.chatterId ?? null, alerts: [] };
    g.alerts.push(a);
    groups.set(key, g);
  }
  return [...groups.values()];
}

/**
 * Revenue from PPVs per local day, direct and campaign stacked, as bars (SVG attributes, not
 * styles: the page's policy allows no inline style). Each bar says its figures on hover and to
 * a screen reader.
 */
function dailyChart(days) {
  const NS = 'http://www.w3.org/2000/svg';
  const el = (tag, attrs, ...children) => {
    const node = document.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    for (const c of children) node.append(c);
    return node;
  };
  const W = 36; const H = 120; const top = Math.max(1, ...days.map((d) => d.ppvRevenueCents + d.campaignRevenueCents));
  const svg = el('svg', { viewBox: `0 0 ${days.length * W} ${H + 34}`, width: String(Math.min(900, days.length * W * 1.6)), role: 'img', 'aria-label': 'PPV revenue per day, direct and campaign', 'data-chart': 'daily' });
  days.forEach((d, i) => {
    const direct = Math.round((d.ppvRevenueCents / top) * H);
    const camp = Math.round((d.campaignRevenueCents / top) * H);
    const label = `${d.day}: ${money(d.ppvRevenueCents)} direct PPV revenue (${d.ppvsUnlocked} unlocked of ${d.directPpvsSent} sent, ${d.directMessages} direct messages), ${money(d.campaignRevenueCents)} from campaigns`;
    svg.append(el('g', { 'data-day': d.day },
      el('title', {}, label),
      el('rect', { x: i * W + 6, y: H - direct, width: W - 12, height: direct, class: 'bar-direct' }),
      el('rect', { x: i * W + 6, y: H - direct - camp, width: W - 12, height: camp, class: 'bar-campaign' }),
      el('text', { x: i * W + W / 2, y: H + 14, 'text-anchor': 'middle', class: 'bar-label' }, d.day.slice(5))));
  });
  return h('figure', { class: 'chart' }, svg, h('figcaption', { class: 'muted' }, 'PPV revenue per day (', h('span', { class: 'key-direct' }, 'direct'), ', ', h('span', { class: 'key-campaign' }, 'campaign'), `), ${dayRange(days)}`));
}

const dayRange = (days) => (days.length === 0 ? 'no days' : `${days[0].day} to ${days[days.length - 1].day}`);

/** Where alerts go besides this page: the alert hooks and how their last delivery went (admin keys only). */
async function hooksSection(current) {
  const r = await api('/api/admin/alert-hooks').catch((err) => err);
  if (!current()) return h('div');
  if (r instanceof Error) return h('p', { class: 'muted', id: 'hooks' }, /^40[13]/.test(r.message) ? 'Alert hooks: an admin key shows them.' : `Alert hooks: ${r.message}`);
  const last = (d) => (d === null ? 'none yet' : `${d.status}${d.attempts > 1 ? ` after ${d.attempts} attempts` : ''}${d.lastHttpStatus ? ` (HTTP ${d.lastHttpStatus})` : ''}${d.lastError && d.status !== 'delivered' ? ` · ${d.lastError}` : ''} · ${new Date(d.lastAttemptAt ?? d.createdAt).toLocaleString()}`);
  return h('div', { id: 'hooks' }, h('h2', {}, `Alert hooks (${r.count})`), r.items.length === 0 ? h('p', { class: 'muted' }, 'No alert hooks: POST /api/admin/alert-hooks adds one.') :
    table([['URL'], ['Events'], ['Status'], ['Last delivery'], ['']], r.items.map((hook) => {
      let action = '';
      if (hook.status === 'disabled') {
        action = h('button', { type: 'button', 'data-enable': hook.id }, 'Enable');
        action.addEventListener('click', () => {
          api(`/api/admin/alert-hooks/${encodeURIComponent(hook.id)}/enable`, { method: 'POST' }).then(() => show('alerts')).catch(showError);
        });
      }
      return h('tr', { 'data-hook': hook.id }, h('td', {}, hook.url), h('td', {}, hook.events.join(', ')),
        h('td', { class: hook.status === 'disabled' ? 'bad' : '' }, hook.status === 'disabled' ? `disabled: ${hook.disabledBecause ?? ''}` : 'active'),
        h('td', { class: hook.lastDelivery?.status === 'failed' ? 'bad' : hook.lastDelivery?.status === 'pending' && hook.lastDelivery.attempts > 0 ? 'warn' : '' }, last(hook.lastDelivery)),
        h('td', {}, action));
    })));
}

async function showChat(chatId, out) {
  const [chat, msgs] = await Promise.all([api(`/api/chats?chatId=${encodeURIComponent(chatId)}`), api(`/api/messages?chatId=${encodeURIComponent(chatId)}&limit=200`)]);
  const sessions = chat.sessions ?? [];
  out.replaceChildren(
    h('h3', {}, `Sessions (${sessions.length})`),
    table([['Opened'], ['Status'], ['Messages', true], ['First response', true], ['Revenue', true], ['Figures']], sessions.map((s) => h('tr', {},
      h('td', {}, new Date(s.openedAt).toLocaleString()), h('td', {}, s.status), h('td', { class: 'num' }, count(s.messageCount)),
      h('td', { class: 'num' }, s.firstResponseSec === null ? '—' : duration(s.firstResponseSec)), h('td', { class: 'num' }, money(s.revenueCents)), h('td', {}, whyLink(s.id))))),
    h('h3', {}, 'Messages'),
    h('ul', { class: 'messages' }, ...(msgs.items ?? []).slice().reverse().map((m) => h('li', { class: m.sender },
      h('div', { class: 'muted' }, `${m.sender}${m.chatterId ? ` · ${m.chatterId}` : ''} · ${new Date(m.sentAt).toLocaleString()}${m.priceCents ? ` · ${money(m.priceCents)}` : ''}`),
      m.text ?? ''))));
}

/** Sessions with their first response, who gave it and a "why?" each: what a report's figures are made of. */
async function sessionsTable(items, place) {
  if (items.length === 0) return h('p', { class: 'muted' }, 'No sessions.');
  return table([['Opened'], ['Chat'], ['First response', true], ['By'], ['Closed as'], ['Why']], items.map((s) => h('tr', { [`data-${place}-session`]: s.id },
    h('td', {}, new Date(s.openedAt).toLocaleString()), h('td', {}, s.chatId), h('td', { class: 'num' }, s.firstResponseSec === null ? '—' : duration(s.firstResponseSec)),
    h('td', {}, s.firstResponderId ?? '—'), h('td', {}, s.closeReason ?? (s.awaiting ? 'open, waiting' : 'open')), h('td', {}, whyLink(s.id)))));
}

/** A scorecard row's sessions: the newest 500 sessions' that this chatter answered first, each with its "why?". */
function chatterSessionsLink(chatterId) {
  const b = h('button', { type: 'button', class: 'link', 'data-chatter-sessions': chatterId }, 'sessions');
  b.addEventListener('click', () => void show('chatterSessions', chatterId));
  return b;
}

/** Opens "why these figures" for a session (GET /api/sessions/:id/explain). */
function whyLink(sessionId) {
  const b = h('button', { type: 'button', class: 'link', 'data-explain': sessionId }, 'why?');
  b.addEventListener('click', () => void show('why', sessionId));
  return b;
}

/** An inbound record as a manager reads it: what it was, where it came from, when. */
function recordText(r) {
  if (!r) return '—';
  const what = r.input ? `${r.input.type.replace('chat.', '')}${r.input.id ? ` ${r.input.id}` : ''}` : r.event;
  return `${what} (${r.source}, received ${new Date(r.receivedAt).toLocaleString()}, inbound ${r.partition}:${r.offset})`;
}

const stateText = (v) => (typeof v === 'string' ? v : JSON.stringify(v).replace(/[{}"]/g, '').replace(/:/g, '.'));

function chatLink(chatId) {
  const b = h('button', { type: 'button', class: 'link', 'data-chat': chatId }, chatId);
  b.addEventListener('click', () => void show('chat', chatId));
  return b;
}

function showError(err) {
  $('#error').textContent = err instanceof Error ? err.message : String(err);
}

/** Each view load has a number; a slow one that finishes after another began leaves the page alone. */
let generation = 0;

async function show(name, arg) {
  const mine = ++generation;
  current = name;
  if (ticker) clearInterval(ticker);
  ticker = null;
  $('#error').textContent = '';
  for (const tab of document.querySelectorAll('[role="tab"]')) tab.setAttribute('aria-selected', String(tab.getAttribute('data-view') === name));
  try {
    await views[name](arg, () => mine === generation);
  } catch (err) {
    if (mine !== generation) return;
    view.replaceChildren();
    showError(err);
  }
}

function whoami() {
  $('#who').textContent = key() ? 'key in use for this tab' : 'no key: open reads only';
}

$('#key-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const input = /** @type {HTMLInputElement} */ ($('#key'));
  if (input.value.trim()) sessionStorage.setItem('convops-key', input.value.trim());
  input.value = '';
  whoami();
  void show(current);
});
$('#forget').addEventListener('click', () => { sessionStorage.removeItem('convops-key'); whoami(); void show(current); });
const tabs = [...document.querySelectorAll('[role="tab"]')];
for (const tab of tabs) {
  tab.addEventListener('click', () => void show(tab.getAttribute('data-view') ?? 'inbox'));
  // Arrow keys move between tabs, as the ARIA tabs pattern expects.
  tab.addEventListener('keydown', (e) => {
    const i = tabs.indexOf(tab);
    const next = e.key === 'ArrowRight' ? tabs[(i + 1) % tabs.length] : e.key === 'ArrowLeft' ? tabs[(i - 1 + tabs.length) % tabs.length] : null;
    if (next) { /** @type {HTMLElement} */ (next).focus(); /** @type {HTMLElement} */ (next).click(); }
  });
}
whoami();
void show('inbox');
