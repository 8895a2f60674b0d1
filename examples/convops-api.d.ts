// Generated from docs/openapi.json by scripts/openapi.ts: do not edit.
export interface paths {
    "/": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Service metadata and the catalogue of every route */
        get: operations["getRoot"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Service metadata and the catalogue of every route */
        get: operations["getApi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/go-live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** How to connect a real platform account and its webhook */
        get: operations["getGoLive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/platform": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Platform webhook: verified, appended to the inbound log, counted once however often it is redelivered (a message or transaction by its id, any other event by its idempotency key). With a secret set, missing or wrong signatures get 401 and are counted per client address; past REFUSAL_LIMIT_MAX in a window, that address gets 429 before its signature is checked */
        post: operations["postWebhooksPlatform"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Session and message aggregates over all accounts (those of a scoped key): all time, or over a window */
        get: operations["getOverview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/stats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Live analytics: who is waiting now, the longest wait and its grade, SLA breached and at risk (from 80% of the threshold) now, and today (in REPORT_TIMEZONE): % within threshold and its grade, median FRT, revenue */
        get: operations["getStats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sla": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** First-response SLA report over sessions whose first fan message falls in the window: count, % within threshold, median and p90 FRT, breaches, by account and by chatter */
        get: operations["getSla"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/fans": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Fan CRM: one row per fan and account, with lifetime spend when known, highest spend first */
        get: operations["getFans"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Accounts seen by the pipeline (those of a scoped key), with session statistics: all time, or over a window */
        get: operations["getAccounts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Sessions: the priority inbox (waiting fans by priority score, then the rest by last message) or the recency view. A waiting fan's session carries its wait and the wait's grade; `gradeSteps` names the whole seconds of waiting from which each grade holds, for timers that keep counting */
        get: operations["getSessions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sessions/{id}/analysis": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One session: metrics snapshot, alerts, model labels and recommendations, and the quality rules that fired on its replies */
        get: operations["getSessionsByIdAnalysis"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/messages": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Messages in conversation order: of one chat, or the latest across all chats */
        get: operations["getMessages"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chats": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Chats, newest activity first; with chatId, that chat with its sessions and messages */
        get: operations["getChats"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chatters/scorecard": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Per chatter over a window: sessions first answered (by first fan message time), revenue credited (by payment time), SLA (median and p90 FRT, % within threshold), revenue per direct message and unlock ratio (as GET /api/conversion), open alerts now, coachPriority and its reasons; `unattributed`: the sessions first answered and the revenue credited without a named chatter, and their share of all (see docs/connector.md) */
        get: operations["getChattersScorecard"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/alerts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Alerts: stored records merged with live evaluation of waiting fans (stored wins on the same id) */
        get: operations["getAlerts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/alerts/{id}/ack": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Acknowledge an alert (stored durably with who and when); idempotent; 404 for an unknown id */
        post: operations["postAlertsByIdAck"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/intelligence/run": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Run the rules (and the model provider when configured) for one session, or for up to 20 open sessions, most urgent first */
        post: operations["postAdminIntelligenceRun"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/floor": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The floor wallboard: totals (open, awaiting, severity), accounts, chatters and top alerts. Public and rate-limited. With a key: the key's accounts, full alerts. Without one: while reads are open, every account and chatter, alerts without fan ids or text; with READ_AUTH=required, totals only (no account, name or chatter) */
        get: operations["getFloor"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/conversion": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Which messages make money: per chatter and per account, direct messages, direct PPVs sent (golden ratio), PPVs unlocked (unlock ratio), PPV revenue, credited revenue per direct message, median PPV price and time to unlock; per campaign (queue), fans reached, unlocks, unlock rate and revenue (see docs/api.md, "Money") */
        get: operations["getConversion"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/conversion/daily": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The money figures per local day (REPORT_TIMEZONE) of the window, summed over the accounts in scope: the console's chart. Default: the last 14 days up to today; at most 92 days (400 naming from) */
        get: operations["getConversionDaily"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/exports/sessions.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Sessions opened in the window (of a scoped key's accounts), oldest first, as CSV or JSON lines, streamed */
        get: operations["getExportsSessionsCsv"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/exports/payments.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Payments paid in the window (of a scoped key's accounts), oldest first, as CSV or JSON lines, streamed */
        get: operations["getExportsPaymentsCsv"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/exports/scorecard.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The chatter scorecard of the window (GET /api/chatters/scorecard), one row per chatter with its SLA figures as columns, as CSV or JSON lines */
        get: operations["getExportsScorecardCsv"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/exports/conversion.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The conversion report of the window (GET /api/conversion): one row per account, then one per chatter, as CSV or JSON lines */
        get: operations["getExportsConversionCsv"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/exports/campaigns.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The campaigns of the conversion report (GET /api/conversion `campaigns`): one row per queue (and automated sends from no queue) per account, as CSV or JSON lines */
        get: operations["getExportsCampaignsCsv"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/exports/sla.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The first-response SLA report of the window (GET /api/sla): a total row, then one per account and one per chatter of the first reply, as CSV or JSON lines */
        get: operations["getExportsSlaCsv"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/exports/shifts.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The shift report of the window (GET /api/shifts): one row per chatter per planned shift, as CSV or JSON lines */
        get: operations["getExportsShiftsCsv"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/exports/coverage.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Coverage per account over the window (GET /api/shifts `accounts`; default this local week, at most 92 days): time fans waited, of it the time nobody was clocked in, and the time someone was, as CSV or JSON lines */
        get: operations["getExportsCoverageCsv"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/exports/pay.csv": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The pay view of the window (GET /api/chatters/pay): one row per chatter, clocked time, credited revenue and commission, as CSV or JSON lines */
        get: operations["getExportsPayCsv"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/floor/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The floor without a key as server-sent events: a `snapshot` event (the body of GET /api/floor without a key: every account and chatter while reads are open, totals only with READ_AUTH=required) when the figures change, at most once a second, and `heartbeat` events */
        get: operations["getFloorStream"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/sessions/{id}/explain": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Why a session's figures are what they are: each figure with the session event that set it and the inbound record behind that event, and the chart's steps, decided again from the log as the processor decides */
        get: operations["getSessionsByIdExplain"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/close-session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Force-close a session: appends a close command to inbound; the machine emits SessionClosed (reason forced) */
        post: operations["postAdminCloseSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/reassignments": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Reassignments of payments' credit, newest first: who, when, from, to and why (of the key's accounts) */
        get: operations["getAdminReassignments"];
        put?: never;
        /** Reassign a payment's credit to a chatter, with a reason (toChatterId null: undo, back to the model's own credit). Appends a command to the inbound log; every report credits the chatter named once it is processed */
        post: operations["postAdminReassignments"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chatters": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Chatters: every chatter with a record or seen in the pipeline (of the key's accounts), with their record and the accounts they are clocked in on now */
        get: operations["getChatters"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/chatters/{chatterId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Create or replace a chatter's record: display name, the accounts they work, commission share, active */
        put: operations["putAdminChattersByChatterId"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/chatters/{chatterId}/clock": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Clock a chatter in or out of an account. Appends a command to the inbound log (the chatter's clock chat); GET /api/chatters shows them on once it is processed. A chatter idle for CLOCK_IDLE_SEC is clocked out automatically: clocking in again after that starts a new interval */
        post: operations["postAdminChattersByChatterIdClock"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chatters/clocked": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Clocked time per chatter and account over a window: clocked seconds (an interval still on counts until now), intervals, automatic clock-outs, on now; with the intervals themselves */
        get: operations["getChattersClocked"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/chatters/{chatterId}/roster": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /** Replace a chatter's roster: weekly slots (several a day, across midnight), one-off shifts and absences, on a time zone's wall clock. A manager of every account it names */
        put: operations["putAdminChattersByChatterIdRoster"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chatters/{chatterId}/roster": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A chatter's roster as planned */
        get: operations["getChattersByChatterIdRoster"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/shifts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Planned shifts against clocked time: per shift, clocked seconds, late start, early end, no-show and status, and what the chatter did while clocked in on it (fans whose wait began, sessions answered first and how fast, revenue credited); per chatter, the totals; per account, coverage (time fans waited with nobody clocked in). Default window: this local week (REPORT_TIMEZONE, Monday first); at most 92 days */
        get: operations["getShifts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/chatters/pay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A pay view per chatter over a window: clocked time, the revenue credited to them under `model`, and their commission on it (their record's commissionPct). Default window: this local week; at most 92 days */
        get: operations["getChattersPay"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/replay": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Recent replay jobs, newest first */
        get: operations["getAdminReplay"];
        put?: never;
        /** Rebuild the read models from session-events into a new version, then switch (202 with a job id; 409 while one runs) */
        post: operations["postAdminReplay"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/replay/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Progress of one replay: state, events applied, lag */
        get: operations["getAdminReplayById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Access keys (never their secrets), newest first */
        get: operations["getAdminKeys"];
        put?: never;
        /** Create an access key: a role (viewer, manager, admin) and optionally the accounts it may see. The secret is in this answer only */
        post: operations["postAdminKeys"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/keys/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke an access key: it stops working at once (idempotent) */
        delete: operations["deleteAdminKeysById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/set-aside": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Records and events set aside because a processing step threw on them, newest first (error message and a body prefix of at most 4 KB) */
        get: operations["getAdminSetAside"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/set-aside/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One set-aside record: stage, position, error and body prefix */
        get: operations["getAdminSetAsideById"];
        put?: never;
        post?: never;
        /** Drop a set-aside record an operator has dealt with (the record stays in the log; it is not processed again) */
        delete: operations["deleteAdminSetAsideById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/set-aside/{id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Retry a set-aside inbound record: its original is read from the log and appended again as new work (same key and partition, header convops-retry-of), and its set-aside record removed; a copy that fails again is set aside under its new position with `retryOf`. 409 for a clock tick, a session event (rebuild with a replay) or a record the log no longer holds */
        post: operations["postAdminSetAsideByIdRetry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/definitions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Every definitions version (session gap, lateness, unanswered limit, attribution lookback), oldest first, and the live one */
        get: operations["getAdminDefinitions"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/definitions/generations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Definitions generations: the live one, previews, and those kept after a switch */
        get: operations["getAdminDefinitionsGenerations"];
        put?: never;
        /** Preview changed definitions: the whole inbound log is computed again under them beside the live pipeline (202); apply it once caught up. 409 while another preview runs */
        post: operations["postAdminDefinitionsGenerations"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/definitions/generations/{n}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One generation: its status, progress and audit trail */
        get: operations["getAdminDefinitionsGenerationsByN"];
        put?: never;
        post?: never;
        /** Cancel a preview, or drop a generation kept after a switch: its chat states and read models go. The live one is refused (409) */
        delete: operations["deleteAdminDefinitionsGenerationsByN"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/definitions/generations/{n}/diff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Before (live) and after (this generation), overall and per account: sessions, closes by reason, first-response median and p90, % within the SLA threshold, missed, revenue; revenue per chatter */
        get: operations["getAdminDefinitionsGenerationsByNDiff"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/definitions/generations/{n}/apply": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make a caught-up preview live: its read models and its pipeline replace the live ones in one switch; the generation switched away from is kept. 409 if it has not caught up or was built over another live generation */
        post: operations["postAdminDefinitionsGenerationsByNApply"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/definitions/generations/{n}/resume": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Bring a generation kept after a switch up to date again as a preview (202), so it can be applied back: the undo of a switch */
        post: operations["postAdminDefinitionsGenerationsByNResume"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Recompute every account's totals from the read-model documents and name each figure the totals or the report buckets hold differently (reads every document: minutes on millions) */
        get: operations["getAdminVerify"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/backup": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Copy the embedded log and store into a new folder under BACKUP_DIR while the service runs: one consistent state (positions, then the store, then the records), restored by copying the folder to DATA_DIR. One at a time; embedded deployments only */
        post: operations["postAdminBackup"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/alert-hooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Alert hooks (never their secrets), oldest first, each with its latest delivery */
        get: operations["getAdminAlertHooks"];
        put?: never;
        /** Register a URL that hears of alert transitions (opened, acked, resolved), signed the Standard Webhooks way. The secret is in this answer only */
        post: operations["postAdminAlertHooks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/alert-hooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One alert hook (never its secret) */
        get: operations["getAdminAlertHooksById"];
        put?: never;
        post?: never;
        /** Delete an alert hook and its deliveries: nothing more is sent to it (an attempt already under way finishes) */
        delete: operations["deleteAdminAlertHooksById"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/alert-hooks/{id}/enable": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Enable a hook that was disabled because its deliveries kept failing; its alert resolves. Deliveries dropped meanwhile are not sent */
        post: operations["postAdminAlertHooksByIdEnable"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/alert-hooks/{id}/test": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Send a signed test event (type alert.test) to the hook now, through the same guard, timeout and signing as deliveries, and answer how it went; nothing is stored or retried */
        post: operations["postAdminAlertHooksByIdTest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/alert-hooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A hook's recent deliveries, newest first, with their status, attempts and last answer */
        get: operations["getAdminAlertHooksByIdDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/accounts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Register (or update) an account by hand: 201 when new, 200 when it existed */
        post: operations["postAdminAccounts"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/accounts/seed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Register the demo accounts (source demo) */
        post: operations["postAdminAccountsSeed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/accounts/sync": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pull the accounts connected on the platform (needs PLATFORMAPI_KEY) */
        post: operations["postAdminAccountsSync"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/accounts/auth/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start the platform's connection flow for an account (needs PLATFORMAPI_KEY) */
        post: operations["postAdminAccountsAuthStart"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/accounts/auth/poll": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Poll an authentication attempt; registers the account once it is connected (needs PLATFORMAPI_KEY) */
        post: operations["postAdminAccountsAuthPoll"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/accounts/auth/2fa": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Submit the two-factor code of an authentication attempt (needs PLATFORMAPI_KEY) */
        post: operations["postAdminAccountsAuth2fa"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/accounts/{id}/disconnect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Mark an account disconnected; its history stays */
        post: operations["postAdminAccountsByIdDisconnect"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/accounts/{id}/business-hours": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An account's business hours; 404 when it has none (it measures wall-clock time) */
        get: operations["getAdminAccountsByIdBusinessHours"];
        /** Set an account's business hours (replaces any schedule): clock=business reports and its wait alerts then count open hours only */
        put: operations["putAdminAccountsByIdBusinessHours"];
        post?: never;
        /** Remove an account's business hours (idempotent): back to wall-clock time */
        delete: operations["deleteAdminAccountsByIdBusinessHours"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/accounts/{id}/banned-phrases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An account's banned phrases in force now, and the lists before them (who set each, and from when) */
        get: operations["getAdminAccountsByIdBannedPhrases"];
        /** Set an account's banned phrases (replaces the list; [] clears it): from now on, each direct reply received is flagged `banned-phrase` for the phrases it contains, counted per chatter in GET /api/conversion and listed per session in its analysis. Replies received before keep the flags they got */
        put: operations["putAdminAccountsByIdBannedPhrases"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/backfill": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Recent backfill jobs, newest first */
        get: operations["getAdminBackfill"];
        put?: never;
        /** Pull chats and messages (with their transactions, in time order) from the platform into inbound; 202 with a job id (needs PLATFORMAPI_KEY) */
        post: operations["postAdminBackfill"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/backfill-transactions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Pull tips, pay-per-view purchases and subscriptions from the platform into inbound; 202 with a job id (needs PLATFORMAPI_KEY) */
        post: operations["postAdminBackfillTransactions"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/backfill/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Progress and errors of one backfill job */
        get: operations["getAdminBackfillById"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/demo/ingest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Signed fixture ingest (up to 500 records a call, within the body limit): an admin credential and records signed with DEMO_SECRET; refused in production */
        post: operations["postDemoIngest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/seed-demo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Load the shipped demo fixtures through the pipeline and register the demo accounts with their names (development only). By default the timeline is moved so its last records are minutes old */
        post: operations["postAdminSeedDemo"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/admin/purge-demo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Remove everything of the demo accounts (documents, totals, report buckets, chat states, dedupe ledger, set-aside records, alerts, analyses, registry entries); with full=true, reset the whole pipeline (consumers skip the existing log, read models are dropped). Either is sent to a process that runs both the processor and the projector (409 otherwise, or while a replay, purge or reset runs). A purge first lets the consumers apply what the log already holds, then keeps them stopped while the data goes (503, removing nothing, if they cannot catch up within a minute) */
        post: operations["postAdminPurgeDemo"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/connector/ingest": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Browser connector feed: outbound messages with the chatter who sent them (Bearer CONNECTOR_TOKEN) */
        post: operations["postConnectorIngest"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Prometheus metrics (text format): webhooks, latencies, lag, freshness, jobs, alerts, process */
        get: operations["getMetrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health/live": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Liveness: the process is up and its event loop turns (no dependency is checked) */
        get: operations["getHealthLive"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health/ready": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Readiness by role: an API process when the log takes appends, a worker when its consumers run; 503 otherwise and while shutting down */
        get: operations["getHealthReady"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Health and readiness of the log, the store and the consumers, with their lag */
        get: operations["getHealth"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    alertTransition: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * What convops POSTs to an alert hook for each alert transition it asked for, retried with the same webhook-id until it answers 2xx
         * @description Verify webhook-signature before trusting the body: v1, and the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body` under the base64-decoded part of the hook secret after `whsec_` (any Standard Webhooks library does it). Dedupe on webhook-id. Deliveries may arrive out of order: order by `timestamp`.
         */
        post: operations["alertHookDelivery"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description Every error, in one shape: the catalogue's `code`, a message naming the field and the reason, and the request id (also in the x-request-id header) */
        Error: {
            statusCode: number;
            error: string;
            /** @enum {string} */
            code: "INVALID_INPUT" | "UNAUTHORIZED" | "FORBIDDEN" | "NOT_FOUND" | "CONFLICT" | "GONE" | "PAYLOAD_TOO_LARGE" | "UNSUPPORTED_MEDIA_TYPE" | "UNPROCESSABLE" | "RATE_LIMITED" | "INTERNAL" | "PLATFORM_ERROR" | "NOT_READY";
            message: string;
            requestId: string;
        };
    };
    responses: {
        /** @description CONFLICT (409): a job of this kind is already running, or the state does not allow it */
        Conflict: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description FORBIDDEN (403): the key is valid but its role may not do this */
        Forbidden: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description GONE (410): what it needs is past the log's retention: nothing is guessed */
        Gone: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description INVALID_INPUT (400): a parameter, header or body field is malformed or out of range; the message names it */
        InvalidInput: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description NOT_FOUND (404): what the path or a parameter names does not exist, or is an account the key may not see */
        NotFound: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description NOT_READY (503): the store or the log is unavailable; retry later */
        NotReady: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description PAYLOAD_TOO_LARGE (413): the body is over the limit */
        PayloadTooLarge: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description PLATFORM_ERROR (502): the platform's API failed or answered something unusable */
        PlatformError: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description RATE_LIMITED (429): too many requests; wait as Retry-After says */
        RateLimited: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description UNAUTHORIZED (401): no credential where one is needed, or one that is not valid */
        Unauthorized: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description UNPROCESSABLE (422): the request is well formed but would take more work than the route allows; the message says how much */
        Unprocessable: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description UNSUPPORTED_MEDIA_TYPE (415): the body is not application/json */
        UnsupportedMediaType: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
        /** @description any other error (a bug answers 500 INTERNAL), in the same shape */
        Error: {
            headers: {
                [name: string]: unknown;
            };
            content: {
                "application/json": components["schemas"]["Error"];
            };
        };
    };
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    getRoot: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        service: "convops";
                        platformApi: {
                            /** @description PLATFORMAPI_KEY is set */
                            configured: boolean;
                            /** @description the platform API answers with that key */
                            ready: boolean;
                        };
                        /** @description the log and the store answer */
                        pipelineReady: boolean;
                        /** @description the OpenAPI UI */
                        docs: string;
                        /** @description the OpenAPI document */
                        openapi: string;
                        /** @description how to connect a real account */
                        goLive: string;
                        /** @description "METHOD /path" → what it does */
                        routes: {
                            [key: string]: string;
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getApi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        service: "convops";
                        platformApi: {
                            /** @description PLATFORMAPI_KEY is set */
                            configured: boolean;
                            /** @description the platform API answers with that key */
                            ready: boolean;
                        };
                        /** @description the log and the store answer */
                        pipelineReady: boolean;
                        /** @description the OpenAPI UI */
                        docs: string;
                        /** @description the OpenAPI document */
                        openapi: string;
                        /** @description how to connect a real account */
                        goLive: string;
                        /** @description "METHOD /path" → what it does */
                        routes: {
                            [key: string]: string;
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getGoLive: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the guide, in Markdown */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/markdown": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postWebhooksPlatform: {
        parameters: {
            query?: never;
            header?: {
                "x-ofapi-idempotency-key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the event name, e.g. messages.received, messages.sent, transactions.new */
                    event: string;
                    /** @description the creator account the event is about */
                    account_id: string;
                    /** @description the event's object (a message, a transaction, a notification); ids are JSON numbers and may exceed 2^53 */
                    payload: Record<string, never>;
                };
            };
        };
        responses: {
            /** @description in the log (or a redelivery of what is): the platform may stop retrying */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        accepted: true;
                        /** @description the event name, as sent */
                        event: string;
                        /** @description the creator account it belongs to */
                        accountId: string;
                        /** @description the fan's chat it belongs to; _account for events about the account as a whole */
                        chatId: string;
                        /** @description its idempotency key (trimmed), or for keyless ephemeral events (users.typing, users.online, users.offline) body_ and a hash of the body. Redeliveries of a message or transaction are recognised by its own id, of any other event by this key */
                        dedupeKey: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getOverview: {
        parameters: {
            query?: {
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description only this account */
                accountId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accounts: number;
                        chats: number;
                        sessions: {
                            total: number;
                            open: number;
                            closed: number;
                            awaiting: number;
                        };
                        messages: {
                            total: number;
                            fromFans: number;
                            outbound: number;
                        };
                        revenue: {
                            /** @description US cents */
                            cents: number;
                            payments: number;
                        };
                        lateRecords: number | null;
                        /** @description the report window; null for an open end */
                        window: {
                            from: string | null;
                            to: string | null;
                            /** @description the definitions versions the window's figures may have been decided under, oldest first: every version begun before the window's end, since a chat keeps the version it was first seen under (GET /api/sessions/:id/explain names a chat's own). Empty before any processor has run */
                            definitions: {
                                version: number;
                                /**
                                 * Format: date-time
                                 * @description when a processor first decided under it
                                 */
                                since: string;
                                /** @description when the next version took over for chats first seen from then; null: in force now */
                                until: string | null;
                                values: {
                                    sessionIdleSec: number;
                                    allowedLatenessSec: number;
                                    unansweredCloseSec: number;
                                    attributionLookbackSec: number;
                                };
                            }[];
                        };
                        readModelVersion: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getStats: {
        parameters: {
            query?: {
                /** @description first-response SLA threshold in seconds (default 300) */
                thresholdSec?: number;
                /** @description `wall` (default): waits in wall-clock seconds; `business`: only the seconds inside each account's business hours (PUT /api/admin/accounts/:id/business-hours), by the schedule in force when each session last changed (a definitions preview with restateBusinessHours measures history by today's), wall-clock seconds for an account without them; any window */
                clock?: "wall" | "business";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        at: string | null;
                        thresholdSec: number;
                        /** @description how the waits were measured */
                        clock: "wall" | "business";
                        /** @description with clock=business: the accounts in scope with business hours now (their sessions measured in open hours by the schedule in force when each changed; an account without one: wall-clock seconds); empty with clock=wall */
                        businessHoursAccounts: string[];
                        openSessions: number;
                        awaitingReply: number;
                        longestWaitSec: number;
                        longestWaitGrade: "ok" | "at-risk" | "breached";
                        breachedNow: number;
                        atRiskNow: number;
                        /** @description today in REPORT_TIMEZONE */
                        today: {
                            since: string | null;
                            until: string | null;
                            timezone: string;
                            sessions: number;
                            withinThreshold: number;
                            breaches: number;
                            missed: number;
                            withinThresholdPct: number | null;
                            /** @description `on-target` 90% or more, `below` from 75%, `missed` under it, `no-data` no session judged */
                            withinThresholdGrade: "no-data" | "on-target" | "below" | "missed";
                            medianFirstResponseSec: number | null;
                            /** @description US cents */
                            revenueCents: number;
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getSla: {
        parameters: {
            query?: {
                /** @description first-response SLA threshold in seconds (default 300) */
                thresholdSec?: number;
                /** @description only this account */
                accountId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description `wall` (default): waits in wall-clock seconds; `business`: only the seconds inside each account's business hours (PUT /api/admin/accounts/:id/business-hours), by the schedule in force when each session last changed (a definitions preview with restateBusinessHours measures history by today's), wall-clock seconds for an account without them; any window */
                clock?: "wall" | "business";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sessions: number;
                        responded: number;
                        withinThreshold: number;
                        breaches: number;
                        /** @description closed at the unanswered limit without a human reply */
                        missed: number;
                        /** @description open, unanswered, still within the threshold (a session that closed unanswered is a breach) */
                        pending: number;
                        withinThresholdPct: number | null;
                        medianFirstResponseSec: number | null;
                        p90FirstResponseSec: number | null;
                        thresholdSec: number;
                        byAccount: {
                            accountId: string;
                            sessions: number;
                            responded: number;
                            withinThreshold: number;
                            breaches: number;
                            /** @description closed at the unanswered limit without a human reply */
                            missed: number;
                            /** @description open, unanswered, still within the threshold (a session that closed unanswered is a breach) */
                            pending: number;
                            withinThresholdPct: number | null;
                            medianFirstResponseSec: number | null;
                            p90FirstResponseSec: number | null;
                        }[];
                        /** @description by the chatter of the first reply, named ones by id, then the unnamed ones; unanswered sessions are left out */
                        byChatter: {
                            /** @description null: the sessions first answered without a named chatter (webhook replies carry none), last */
                            chatterId: string | null;
                            sessions: number;
                            responded: number;
                            withinThreshold: number;
                            breaches: number;
                            /** @description closed at the unanswered limit without a human reply */
                            missed: number;
                            /** @description open, unanswered, still within the threshold (a session that closed unanswered is a breach) */
                            pending: number;
                            withinThresholdPct: number | null;
                            medianFirstResponseSec: number | null;
                            p90FirstResponseSec: number | null;
                        }[];
                        /** @description `on-target` 90% or more, `below` from 75%, `missed` under it, `no-data` no session judged */
                        withinThresholdGrade: "no-data" | "on-target" | "below" | "missed";
                        accountId: string | null;
                        /** @description the report window; null for an open end */
                        window: {
                            from: string | null;
                            to: string | null;
                            /** @description the definitions versions the window's figures may have been decided under, oldest first: every version begun before the window's end, since a chat keeps the version it was first seen under (GET /api/sessions/:id/explain names a chat's own). Empty before any processor has run */
                            definitions: {
                                version: number;
                                /**
                                 * Format: date-time
                                 * @description when a processor first decided under it
                                 */
                                since: string;
                                /** @description when the next version took over for chats first seen from then; null: in force now */
                                until: string | null;
                                values: {
                                    sessionIdleSec: number;
                                    allowedLatenessSec: number;
                                    unansweredCloseSec: number;
                                    attributionLookbackSec: number;
                                };
                            }[];
                        };
                        /** @description how the waits were measured */
                        clock: "wall" | "business";
                        /** @description with clock=business: the accounts in scope with business hours now (their sessions measured in open hours by the schedule in force when each changed; an account without one: wall-clock seconds); empty with clock=wall */
                        businessHoursAccounts: string[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getFans: {
        parameters: {
            query?: {
                /** @description only fans of this account */
                accountId?: string;
                /** @description the fan's platform user id */
                ofUserId?: string;
                /** @description spend (default) or recent activity */
                sort?: "spend" | "recent";
                /** @description rows to return (default 50, max 500) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            accountId: string;
                            fanId: string;
                            chatId: string;
                            lifetimeSpendCents: number | null;
                            spendKnown: boolean;
                            platformReportedSpendCents: number | null;
                            /** @description US cents */
                            recordedPaymentsCents: number;
                            paymentCount: number;
                            lastPaymentAt: string | null;
                            messageCount: number;
                            sessionCount: number;
                            lastActivityAt: string | null;
                            awaiting: boolean;
                            waitingSince: string | null;
                        }[];
                        count: number;
                        limit: number;
                        sort: "spend" | "recent";
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAccounts: {
        parameters: {
            query?: {
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description only this account */
                accountId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            displayName: string | null;
                            /** @description registry status (connected, disconnected, …), or unregistered */
                            status: string;
                            /** @description how it became known: webhook, synced, manual, demo */
                            source: string;
                            chats: number;
                            sessions: number;
                            openSessions: number;
                            messages: number;
                            fanMessages: number;
                            /** @description US cents */
                            revenueCents: number;
                            paymentCount: number;
                            lastActivityAt: string | null;
                            lastStatusEvent: string | null;
                            lastStatusState: string | null;
                            awaiting: number;
                        }[];
                        count: number;
                        /** @description the report window; null for an open end */
                        window: {
                            from: string | null;
                            to: string | null;
                            /** @description the definitions versions the window's figures may have been decided under, oldest first: every version begun before the window's end, since a chat keeps the version it was first seen under (GET /api/sessions/:id/explain names a chat's own). Empty before any processor has run */
                            definitions: {
                                version: number;
                                /**
                                 * Format: date-time
                                 * @description when a processor first decided under it
                                 */
                                since: string;
                                /** @description when the next version took over for chats first seen from then; null: in force now */
                                until: string | null;
                                values: {
                                    sessionIdleSec: number;
                                    allowedLatenessSec: number;
                                    unansweredCloseSec: number;
                                    attributionLookbackSec: number;
                                };
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getSessions: {
        parameters: {
            query?: {
                /** @description rows to return (default 50, max 500) */
                limit?: number;
                /** @description first-response SLA threshold in seconds (default 300) */
                thresholdSec?: number;
                /** @description priority (default) or opened (newest first) */
                sort?: "priority" | "opened";
                /** @description 1: only sessions whose fan is waiting; 0: only the others */
                awaiting?: "1" | "0" | "true" | "false";
                /** @description only sessions of this account */
                accountId?: string;
                status?: "open" | "closed";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description the session id: account:chat:number */
                            id: string;
                            accountId: string;
                            /** @description the fan's platform user id */
                            chatId: string;
                            /** @description as the clock has it: a session past its deadline shows closed before the processor closes it */
                            status: "open" | "closed";
                            openedAt: string | null;
                            closedAt: string | null;
                            closeReason: ("idle" | "unanswered" | "forced") | null;
                            lastMessageAt: string | null;
                            messageCount: number;
                            fanMessageCount: number;
                            replyCount: number;
                            /** @description the fan wrote last and waits for a reply */
                            awaiting: boolean;
                            waitingSince: string | null;
                            waitSec: number;
                            grade: ("ok" | "at-risk" | "breached") | null;
                            priorityScore: number;
                            /** @description why it stands where it does in the inbox */
                            priorityReasons: {
                                kind: "waiting" | "past-sla" | "sla-at-risk" | "spend" | "open-alerts";
                                text: string;
                            }[];
                            firstResponseAt: string | null;
                            firstResponseSec: number | null;
                            firstResponseBusinessSec: number | null;
                            waitBusinessSec: number | null;
                            firstResponderId: string | null;
                            lastHumanChatterId: string | null;
                            /** @description US cents */
                            revenueCents: number;
                            paymentCount: number;
                            fanSpendCents: number | null;
                        }[];
                        count: number;
                        limit: number;
                        sort: "priority" | "opened";
                        thresholdSec: number;
                        /** @description the whole seconds of waiting from which each grade holds */
                        gradeSteps: {
                            grade: "at-risk" | "breached";
                            fromSec: number;
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getSessionsByIdAnalysis: {
        parameters: {
            query?: {
                /** @description first-response SLA threshold in seconds (default 300) */
                thresholdSec?: number;
            };
            header?: never;
            path: {
                /** @description session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        session: {
                            /** @description the session id: account:chat:number */
                            id: string;
                            accountId: string;
                            /** @description the fan's platform user id */
                            chatId: string;
                            /** @description as the clock has it: a session past its deadline shows closed before the processor closes it */
                            status: "open" | "closed";
                            openedAt: string | null;
                            closedAt: string | null;
                            closeReason: ("idle" | "unanswered" | "forced") | null;
                            lastMessageAt: string | null;
                            messageCount: number;
                            fanMessageCount: number;
                            replyCount: number;
                            /** @description the fan wrote last and waits for a reply */
                            awaiting: boolean;
                            waitingSince: string | null;
                            waitSec: number;
                            grade: ("ok" | "at-risk" | "breached") | null;
                            priorityScore: number;
                            /** @description why it stands where it does in the inbox */
                            priorityReasons: {
                                kind: "waiting" | "past-sla" | "sla-at-risk" | "spend" | "open-alerts";
                                text: string;
                            }[];
                            firstResponseAt: string | null;
                            firstResponseSec: number | null;
                            firstResponseBusinessSec: number | null;
                            waitBusinessSec: number | null;
                            firstResponderId: string | null;
                            lastHumanChatterId: string | null;
                            /** @description US cents */
                            revenueCents: number;
                            paymentCount: number;
                            fanSpendCents: number | null;
                        };
                        metrics: {
                            durationSec: number;
                            messageCount: number;
                            fanMessageCount: number;
                            replyCount: number;
                            firstResponseSec: number | null;
                            waitSec: number;
                            slaThresholdSec: number;
                            slaOutcome: ("within" | "breach" | "pending") | null;
                            /** @description US cents */
                            revenueCents: number;
                            paymentCount: number;
                            fanSpendCents: number | null;
                        };
                        alerts: {
                            id: string;
                            ruleId: string;
                            ruleVersion: number;
                            severity: "critical" | "warning" | "info";
                            status: "open" | "acked" | "resolved";
                            reason: string;
                            recommendation: string;
                            labels: string[];
                            sessionId: string | null;
                            accountId: string | null;
                            chatId: string | null;
                            chatterId: string | null;
                            openedAt: string | null;
                            updatedAt: string | null;
                            ackedAt: string | null;
                            ackedBy: string | null;
                            resolvedAt: string | null;
                            resolvedBecause: string | null;
                            /** @description stored, or found by the live evaluation and not stored yet */
                            origin: "stored" | "live";
                        }[];
                        labels: {
                            label: string;
                            source: "rules" | "model";
                            confidence: number;
                            /** @description the model that gave a `model` label */
                            model?: string;
                            /** @description the prompt version of a `model` label */
                            promptVersion?: string;
                        }[];
                        recommendations: string[];
                        summary: string | null;
                        analysedAt: string | null;
                        modelError: string | null;
                        /** @description the quality rules that fired on the session's direct replies, oldest first (docs/api.md, "Money") */
                        qaFlags: {
                            messageId: string;
                            sentAt: string | null;
                            chatterId: string | null;
                            /** @description banned-phrase: one of the account's banned phrases (PUT /api/admin/accounts/:id/banned-phrases), by the list in force when the reply was received; `match` is the phrase */
                            rule: "off-platform-contact" | "off-platform-payment" | "banned-phrase";
                            /** @description what in the reply made it fire (at most 80 characters) */
                            match: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getMessages: {
        parameters: {
            query?: {
                /** @description the chat (the fan id on the platform) */
                chatId?: string;
                /** @description the account, to tell apart one fan chatting with several accounts */
                accountId?: string;
                /** @description rows to return (default 50, max 500) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description the platform's message id */
                            id: string;
                            accountId: string;
                            chatId: string;
                            sessionId: string | null;
                            /** @description the fan, a person answering (a chatter or the creator), or an automated send */
                            sender: "fan" | "human" | "automated";
                            chatterId: string | null;
                            text: string;
                            /** @description US cents */
                            priceCents: number;
                            sentAt: string | null;
                            deleted: boolean;
                        }[];
                        count: number;
                        limit: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getChats: {
        parameters: {
            query?: {
                /** @description show this chat (the fan id) in detail */
                chatId?: string;
                /** @description only chats of this account */
                accountId?: string;
                /** @description rows to return (default 50, max 500) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description without chatId, the list; with it, that chat in detail */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            accountId: string;
                            chatId: string;
                            firstSeenAt: string | null;
                            lastActivityAt: string | null;
                            lastMessageAt: string | null;
                            lastMessageText: string | null;
                            lastSender: ("fan" | "human" | "automated") | null;
                            messageCount: number;
                            fanMessageCount: number;
                            sessionCount: number;
                            openSessionId: string | null;
                            awaiting: boolean;
                            waitingSince: string | null;
                        }[];
                        count: number;
                        limit: number;
                    } | {
                        chatId: string;
                        /** @description one per account the fan chats with */
                        chats: {
                            accountId: string;
                            chatId: string;
                            firstSeenAt: string | null;
                            lastActivityAt: string | null;
                            lastMessageAt: string | null;
                            lastMessageText: string | null;
                            lastSender: ("fan" | "human" | "automated") | null;
                            messageCount: number;
                            fanMessageCount: number;
                            sessionCount: number;
                            openSessionId: string | null;
                            awaiting: boolean;
                            waitingSince: string | null;
                        }[];
                        /** @description newest first, at most `limit` */
                        sessions: {
                            /** @description the session id: account:chat:number */
                            id: string;
                            accountId: string;
                            /** @description the fan's platform user id */
                            chatId: string;
                            /** @description as the clock has it: a session past its deadline shows closed before the processor closes it */
                            status: "open" | "closed";
                            openedAt: string | null;
                            closedAt: string | null;
                            closeReason: ("idle" | "unanswered" | "forced") | null;
                            lastMessageAt: string | null;
                            messageCount: number;
                            fanMessageCount: number;
                            replyCount: number;
                            /** @description the fan wrote last and waits for a reply */
                            awaiting: boolean;
                            waitingSince: string | null;
                            waitSec: number;
                            grade: ("ok" | "at-risk" | "breached") | null;
                            priorityScore: number;
                            /** @description why it stands where it does in the inbox */
                            priorityReasons: {
                                kind: "waiting" | "past-sla" | "sla-at-risk" | "spend" | "open-alerts";
                                text: string;
                            }[];
                            firstResponseAt: string | null;
                            firstResponseSec: number | null;
                            firstResponseBusinessSec: number | null;
                            waitBusinessSec: number | null;
                            firstResponderId: string | null;
                            lastHumanChatterId: string | null;
                            /** @description US cents */
                            revenueCents: number;
                            paymentCount: number;
                            fanSpendCents: number | null;
                        }[];
                        /** @description at most `limit` */
                        messages: {
                            /** @description the platform's message id */
                            id: string;
                            accountId: string;
                            chatId: string;
                            sessionId: string | null;
                            /** @description the fan, a person answering (a chatter or the creator), or an automated send */
                            sender: "fan" | "human" | "automated";
                            chatterId: string | null;
                            text: string;
                            /** @description US cents */
                            priceCents: number;
                            sentAt: string | null;
                            deleted: boolean;
                        }[];
                        limit: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getChattersScorecard: {
        parameters: {
            query?: {
                /** @description first-response SLA threshold in seconds (default 300) */
                thresholdSec?: number;
                /** @description only this account */
                accountId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description `wall` (default): waits in wall-clock seconds; `business`: only the seconds inside each account's business hours (PUT /api/admin/accounts/:id/business-hours), by the schedule in force when each session last changed (a definitions preview with restateBusinessHours measures history by today's), wall-clock seconds for an account without them; any window */
                clock?: "wall" | "business";
                /** @description `session` (default): the chatter of the last human message before the payment in its session; `sender`: the chatter who sent the PPV a purchase bought (named by the unlock nearest the payment), for other earnings the converter's; `converter`: the chatter of the last human message to the fan before the payment, across sessions, within ATTRIBUTION_LOOKBACK_SEC (a day). `shift`: the chatters clocked in on the payment's account when it was paid, shared equally (worked out at read time from the window's payments and clock intervals: a window of at most 92 days, `from` required). A manager's reassignment overrides every model */
                model?: "session" | "sender" | "converter" | "shift";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        thresholdSec: number;
                        items: {
                            chatterId: string;
                            /** @description the chatter's record's name (PUT /api/admin/chatters/:chatterId); null: none set */
                            displayName: string | null;
                            sessions: number;
                            /** @description US cents */
                            revenueCents: number;
                            paymentCount: number;
                            sla: {
                                sessions: number;
                                responded: number;
                                withinThreshold: number;
                                breaches: number;
                                /** @description closed at the unanswered limit without a human reply */
                                missed: number;
                                /** @description open, unanswered, still within the threshold (a session that closed unanswered is a breach) */
                                pending: number;
                                withinThresholdPct: number | null;
                                medianFirstResponseSec: number | null;
                                p90FirstResponseSec: number | null;
                            };
                            openAlerts: number;
                            /** @description revenue credited ÷ direct messages in the window (as GET /api/conversion); null without a direct message */
                            revenuePerDirectMessageCents: number | null;
                            /** @description direct PPVs unlocked ÷ sent in the window, percent (as GET /api/conversion) */
                            unlockRatioPct: number | null;
                            /** @description higher: coach first; the sum of coachReasons' points */
                            coachPriority: number;
                            /** @description why the chatter is where they are: the parts of coachPriority, the largest first (see docs/api.md) */
                            coachReasons: {
                                kind: "sla-misses" | "slow-tail" | "low-revenue-per-message" | "low-unlock-ratio" | "open-alerts";
                                points: number;
                                text: string;
                            }[];
                        }[];
                        count: number;
                        /** @description first answered, or revenue credited, without a named chatter */
                        unattributed: {
                            sessions: number;
                            sessionsPct: number | null;
                            /** @description US cents */
                            revenueCents: number;
                            revenuePct: number | null;
                        };
                        /** @description the report window; null for an open end */
                        window: {
                            from: string | null;
                            to: string | null;
                            /** @description the definitions versions the window's figures may have been decided under, oldest first: every version begun before the window's end, since a chat keeps the version it was first seen under (GET /api/sessions/:id/explain names a chat's own). Empty before any processor has run */
                            definitions: {
                                version: number;
                                /**
                                 * Format: date-time
                                 * @description when a processor first decided under it
                                 */
                                since: string;
                                /** @description when the next version took over for chats first seen from then; null: in force now */
                                until: string | null;
                                values: {
                                    sessionIdleSec: number;
                                    allowedLatenessSec: number;
                                    unansweredCloseSec: number;
                                    attributionLookbackSec: number;
                                };
                            }[];
                        };
                        /** @description the attribution model revenue was credited under (the `model` asked for) */
                        model: "session" | "sender" | "converter" | "shift";
                        /** @description how the waits were measured */
                        clock: "wall" | "business";
                        /** @description with clock=business: the accounts in scope with business hours now (their sessions measured in open hours by the schedule in force when each changed; an account without one: wall-clock seconds); empty with clock=wall */
                        businessHoursAccounts: string[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAlerts: {
        parameters: {
            query?: {
                /** @description open (default), acked, resolved or all */
                status?: "open" | "acked" | "resolved" | "all";
                sessionId?: string;
                accountId?: string;
                /** @description rows to return (default 50, max 500) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            ruleId: string;
                            ruleVersion: number;
                            severity: "critical" | "warning" | "info";
                            status: "open" | "acked" | "resolved";
                            reason: string;
                            recommendation: string;
                            labels: string[];
                            sessionId: string | null;
                            accountId: string | null;
                            chatId: string | null;
                            chatterId: string | null;
                            openedAt: string | null;
                            updatedAt: string | null;
                            ackedAt: string | null;
                            ackedBy: string | null;
                            resolvedAt: string | null;
                            resolvedBecause: string | null;
                            /** @description stored, or found by the live evaluation and not stored yet */
                            origin: "stored" | "live";
                        }[];
                        count: number;
                        /** @description alerts of this status in scope, before the limit */
                        total: number;
                        status: "open" | "acked" | "resolved" | "all";
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAlertsByIdAck: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description the alert, acknowledged */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        ruleId: string;
                        ruleVersion: number;
                        severity: "critical" | "warning" | "info";
                        status: "open" | "acked" | "resolved";
                        reason: string;
                        recommendation: string;
                        labels: string[];
                        sessionId: string | null;
                        accountId: string | null;
                        chatId: string | null;
                        chatterId: string | null;
                        openedAt: string | null;
                        updatedAt: string | null;
                        ackedAt: string | null;
                        ackedBy: string | null;
                        resolvedAt: string | null;
                        resolvedBecause: string | null;
                        /** @description stored, or found by the live evaluation and not stored yet */
                        origin: "stored" | "live";
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminIntelligenceRun: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description the session to analyse */
                    sessionId?: string;
                    /** @description open sessions to analyse when no sessionId (default and maximum 20) */
                    limit?: number;
                } | null;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        analysed: number;
                        /** @description whether a model provider runs beside the rules */
                        model: {
                            /** @enum {boolean} */
                            enabled: true;
                            model: string;
                        } | {
                            /** @enum {boolean} */
                            enabled: false;
                            reason: string;
                        };
                        sessions: {
                            sessionId: string;
                            labels: string[];
                            /** @description ids of the alerts the rules raised */
                            alerts: string[];
                            recommendations: string[];
                            model: {
                                model: string;
                                promptVersion: string;
                                labels: {
                                    label: string;
                                    confidence: number;
                                }[];
                            } | null;
                            modelError: string | null;
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getFloor: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** Format: date-time */
                        at: string;
                        thresholdSec: number;
                        totals: {
                            open: number;
                            awaiting: number;
                            breached: number;
                            /** @description fans over the threshold: `none` 0, `some` 1–2, `high` 3 or more */
                            breachedGrade: "none" | "some" | "high";
                            longestWaitSec: number;
                            /** @description the wait beside it against the threshold: `breached` over it, `at-risk` from 80% of it (in whole seconds, to the nearest) */
                            longestWaitGrade: "ok" | "at-risk" | "breached";
                            severity: {
                                critical: number;
                                warning: number;
                                info: number;
                            };
                            /** @description fans (account and chat) with at least one open alert: a VIP past the SLA raises two alerts about one fan */
                            alertedFans: number;
                            /** @description the worst open alert */
                            alertGrade: "clear" | "warning" | "critical";
                            today: {
                                since: string | null;
                                timezone: string;
                                sessions: number;
                                withinThresholdPct: number | null;
                                /** @description `on-target` 90% or more, `below` from 75%, `missed` under it, `no-data` no session judged yet */
                                withinThresholdGrade: "no-data" | "on-target" | "below" | "missed";
                            };
                        };
                        /** @description empty in the `aggregate` view */
                        accounts: {
                            id: string;
                            displayName: string | null;
                            open: number;
                            awaiting: number;
                            breached: number;
                            /** @description fans over the threshold: `none` 0, `some` 1–2, `high` 3 or more */
                            breachedGrade: "none" | "some" | "high";
                            longestWaitSec: number;
                            /** @description the wait beside it against the threshold: `breached` over it, `at-risk` from 80% of it (in whole seconds, to the nearest) */
                            longestWaitGrade: "ok" | "at-risk" | "breached";
                            openAlerts: number;
                            /** @description the chatters clocked in on the account now (POST /api/admin/chatters/:chatterId/clock) */
                            onNow: string[];
                            waitingWithNobodyOn: number;
                        }[];
                        /** @description empty in the `aggregate` view */
                        chatters: {
                            id: string;
                            openSessions: number;
                            awaiting: number;
                            breached: number;
                            /** @description fans over the threshold: `none` 0, `some` 1–2, `high` 3 or more */
                            breachedGrade: "none" | "some" | "high";
                            openAlerts: number;
                        }[];
                        topAlerts: {
                            /** @description alerts this line stands for: without a key, alerts that look the same (rule, severity, account, chatter) are one line */
                            count: number;
                            ruleId: string;
                            severity: "critical" | "warning" | "info";
                            status: string;
                            openedAt: string | null;
                            accountId?: string | null;
                            chatterId?: string | null;
                            id?: string;
                            ruleVersion?: number;
                            reason?: string;
                            recommendation?: string;
                            labels?: string[];
                            sessionId?: string | null;
                            chatId?: string | null;
                            updatedAt?: string | null;
                            ackedAt?: string | null;
                            ackedBy?: string | null;
                            resolvedAt?: string | null;
                            resolvedBecause?: string | null;
                            origin?: "stored" | "live";
                        }[];
                        /** @description `full`: with a key, its accounts; `public`: no key, reads open; `aggregate`: no key, READ_AUTH=required (totals only) */
                        view: "full" | "public" | "aggregate";
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getConversion: {
        parameters: {
            query?: {
                /** @description only this account */
                accountId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description `session` (default): the chatter of the last human message before the payment in its session; `sender`: the chatter who sent the PPV a purchase bought (named by the unlock nearest the payment), for other earnings the converter's; `converter`: the chatter of the last human message to the fan before the payment, across sessions, within ATTRIBUTION_LOOKBACK_SEC (a day). `shift`: the chatters clocked in on the payment's account when it was paid, shared equally (worked out at read time from the window's payments and clock intervals: a window of at most 92 days, `from` required). A manager's reassignment overrides every model */
                model?: "session" | "sender" | "converter" | "shift";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description one row per chatter with direct work in the window, the most revenue per direct message first */
                        chatters: {
                            /** @description null: human sends no chatter was named for (webhooks name none; the connector does) */
                            chatterId: string | null;
                            /** @description human sends not from a queue (mass, automated and welcome messages are not direct), PPVs included, sent in the window */
                            directMessages: number;
                            /** @description distinct fans those direct messages went to (a fan of two accounts counts once per account) */
                            fansChatted: number;
                            /** @description direct sends that are PPVs (priced, or said not free), sent in the window */
                            directPpvsSent: number;
                            /** @description direct PPVs sent ÷ direct messages, percent with one decimal; null without a direct message */
                            goldenRatioPct: number | null;
                            /** @description direct PPVs unlocked in the window (each once, however often the platform said so) */
                            ppvsUnlocked: number;
                            /** @description PPVs unlocked ÷ direct PPVs sent in the window, percent; null with none sent (may pass 100 when older PPVs sell) */
                            unlockRatioPct: number | null;
                            /** @description the prices of the direct PPVs unlocked in the window, as their sends said, US cents */
                            ppvRevenueCents: number;
                            /** @description revenue credited (transactions paid in the window, credited as the scorecard credits), US cents */
                            revenueCents: number;
                            /** @description revenueCents ÷ directMessages, rounded, US cents; null without a direct message */
                            revenuePerDirectMessageCents: number | null;
                            /** @description median price of the direct PPVs sent, US cents (nearest rank) */
                            medianPpvPriceCents: number | null;
                            /** @description median whole minutes from a direct PPV's send to its unlock, of those unlocked in the window (nearest rank) */
                            medianMinutesToUnlock: number | null;
                            /** @description direct replies in the window a quality rule fired on (each session lists them in GET /api/sessions/:id/analysis) */
                            qaFlags: {
                                /** @description direct replies with a link off the platform or a named messaging app */
                                offPlatformContact: number;
                                /** @description direct replies naming a payment app, crypto or a $cashtag */
                                offPlatformPayment: number;
                                /** @description direct replies with one of the account's banned phrases (by the list in force when each was received) */
                                bannedPhrase: number;
                            };
                        }[];
                        /** @description one row per account, by accountId */
                        accounts: {
                            accountId: string;
                            /** @description human sends not from a queue (mass, automated and welcome messages are not direct), PPVs included, sent in the window */
                            directMessages: number;
                            /** @description distinct fans those direct messages went to (a fan of two accounts counts once per account) */
                            fansChatted: number;
                            /** @description direct sends that are PPVs (priced, or said not free), sent in the window */
                            directPpvsSent: number;
                            /** @description direct PPVs sent ÷ direct messages, percent with one decimal; null without a direct message */
                            goldenRatioPct: number | null;
                            /** @description direct PPVs unlocked in the window (each once, however often the platform said so) */
                            ppvsUnlocked: number;
                            /** @description PPVs unlocked ÷ direct PPVs sent in the window, percent; null with none sent (may pass 100 when older PPVs sell) */
                            unlockRatioPct: number | null;
                            /** @description the prices of the direct PPVs unlocked in the window, as their sends said, US cents */
                            ppvRevenueCents: number;
                            /** @description revenue credited (transactions paid in the window, credited as the scorecard credits), US cents */
                            revenueCents: number;
                            /** @description revenueCents ÷ directMessages, rounded, US cents; null without a direct message */
                            revenuePerDirectMessageCents: number | null;
                            /** @description median price of the direct PPVs sent, US cents (nearest rank) */
                            medianPpvPriceCents: number | null;
                            /** @description median whole minutes from a direct PPV's send to its unlock, of those unlocked in the window (nearest rank) */
                            medianMinutesToUnlock: number | null;
                            /** @description unlocks whose notification names no PPV of its chat (no readable link, or a link to another fan's chat): counted here, linked to no send */
                            unlinkedUnlocks: number;
                            /** @description unlocks of PPVs convops never saw sent: counted here, linked to no chatter */
                            unseenSendUnlocks: number;
                        }[];
                        /** @description queued and automated sends, per campaign, the most revenue first */
                        campaigns: {
                            accountId: string;
                            /** @description the platform's queue id (queueId); null: automated sends from no queue */
                            campaignId: string | null;
                            /** @description sends of the campaign in the window, one per fan reached */
                            fansReached: number;
                            /** @description of them, PPVs */
                            ppvsSent: number;
                            /** @description its PPVs unlocked in the window */
                            unlocks: number;
                            /** @description unlocks ÷ PPVs sent, percent; null with none sent */
                            unlockRatePct: number | null;
                            /** @description the prices of its PPVs unlocked in the window, US cents */
                            revenueCents: number;
                        }[];
                        /** @description the attribution model revenue was credited under (the `model` asked for) */
                        model: "session" | "sender" | "converter" | "shift";
                        /** @description the report window; null for an open end */
                        window: {
                            from: string | null;
                            to: string | null;
                            /** @description the definitions versions the window's figures may have been decided under, oldest first: every version begun before the window's end, since a chat keeps the version it was first seen under (GET /api/sessions/:id/explain names a chat's own). Empty before any processor has run */
                            definitions: {
                                version: number;
                                /**
                                 * Format: date-time
                                 * @description when a processor first decided under it
                                 */
                                since: string;
                                /** @description when the next version took over for chats first seen from then; null: in force now */
                                until: string | null;
                                values: {
                                    sessionIdleSec: number;
                                    allowedLatenessSec: number;
                                    unansweredCloseSec: number;
                                    attributionLookbackSec: number;
                                };
                            }[];
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getConversionDaily: {
        parameters: {
            query?: {
                /** @description only this account */
                accountId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description `session` (default): the chatter of the last human message before the payment in its session; `sender`: the chatter who sent the PPV a purchase bought (named by the unlock nearest the payment), for other earnings the converter's; `converter`: the chatter of the last human message to the fan before the payment, across sessions, within ATTRIBUTION_LOOKBACK_SEC (a day). `shift`: the chatters clocked in on the payment's account when it was paid, shared equally (worked out at read time from the window's payments and clock intervals: a window of at most 92 days, `from` required). A manager's reassignment overrides every model */
                model?: "session" | "sender" | "converter" | "shift";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description oldest first, one per local day, days without activity included */
                        days: {
                            /** @description the local date (YYYY-MM-DD) in REPORT_TIMEZONE */
                            day: string;
                            from: string | null;
                            to: string | null;
                            directMessages: number;
                            directPpvsSent: number;
                            /** @description direct PPVs unlocked that day */
                            ppvsUnlocked: number;
                            /** @description their prices */
                            ppvRevenueCents: number;
                            /** @description campaign PPVs unlocked that day */
                            campaignUnlocks: number;
                            /** @description their prices */
                            campaignRevenueCents: number;
                            /** @description all revenue paid that day */
                            revenueCents: number;
                        }[];
                        timezone: string;
                        /** @description the attribution model revenue was credited under (the `model` asked for) */
                        model: "session" | "sender" | "converter" | "shift";
                        /** @description the whole days the series covers */
                        window: {
                            from: string | null;
                            to: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getExportsSessionsCsv: {
        parameters: {
            query?: {
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description only this account */
                accountId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One row per session opened in the window. text/csv (the default): RFC 4180 with a header row (sessionId, accountId, chatId, status, openedAt, closedAt, closeReason, lastMessageAt, messageCount, fanMessageCount, replyCount, awaiting, waitingSince, firstFanMessageAt, firstResponseAt, firstResponseSec, firstResponseBusinessSec, waitBusinessSec, firstResponderId, lastHumanChatterId, revenueCents, paymentCount, fanSpendCents), CRLF line ends; a string cell that starts with =, +, - or @ (or a tab or carriage return) has a single quote before it; numbers are plain; empty for null. With Accept: application/x-ndjson: one JSON object per line, the same fields. Sent as an attachment (Content-Disposition), streamed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getExportsPaymentsCsv: {
        parameters: {
            query?: {
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description only this account */
                accountId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One row per payment paid in the window. text/csv (the default): RFC 4180 with a header row (paymentId, accountId, chatId, kind, grossCents, netCents, paidAt, sessionId, chatterId, reassigned, late, senderChatterId, senderRule, converterChatterId, converterRule), CRLF line ends; a string cell that starts with =, +, - or @ (or a tab or carriage return) has a single quote before it; numbers are plain; empty for null. With Accept: application/x-ndjson: one JSON object per line, the same fields. Sent as an attachment (Content-Disposition), streamed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getExportsScorecardCsv: {
        parameters: {
            query?: {
                /** @description first-response SLA threshold in seconds (default 300) */
                thresholdSec?: number;
                /** @description only this account */
                accountId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description `wall` (default): waits in wall-clock seconds; `business`: only the seconds inside each account's business hours (PUT /api/admin/accounts/:id/business-hours), by the schedule in force when each session last changed (a definitions preview with restateBusinessHours measures history by today's), wall-clock seconds for an account without them; any window */
                clock?: "wall" | "business";
                /** @description `session` (default): the chatter of the last human message before the payment in its session; `sender`: the chatter who sent the PPV a purchase bought (named by the unlock nearest the payment), for other earnings the converter's; `converter`: the chatter of the last human message to the fan before the payment, across sessions, within ATTRIBUTION_LOOKBACK_SEC (a day). `shift`: the chatters clocked in on the payment's account when it was paid, shared equally (worked out at read time from the window's payments and clock intervals: a window of at most 92 days, `from` required). A manager's reassignment overrides every model */
                model?: "session" | "sender" | "converter" | "shift";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One row per chatter, in the scorecard's order (coachPriority, highest first). text/csv (the default): RFC 4180 with a header row (chatterId, thresholdSec, clock, sessions, revenueCents, paymentCount, openAlerts, revenuePerDirectMessageCents, unlockRatioPct, coachPriority, coachReasons, slaSessions, slaResponded, slaWithinThreshold, slaBreaches, slaMissed, slaPending, slaWithinThresholdPct, slaMedianFirstResponseSec, slaP90FirstResponseSec), CRLF line ends; a string cell that starts with =, +, - or @ (or a tab or carriage return) has a single quote before it; numbers are plain; empty for null. With Accept: application/x-ndjson: one JSON object per line, the same fields. Sent as an attachment (Content-Disposition), streamed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getExportsConversionCsv: {
        parameters: {
            query?: {
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description only this account */
                accountId?: string;
                /** @description `session` (default): the chatter of the last human message before the payment in its session; `sender`: the chatter who sent the PPV a purchase bought (named by the unlock nearest the payment), for other earnings the converter's; `converter`: the chatter of the last human message to the fan before the payment, across sessions, within ATTRIBUTION_LOOKBACK_SEC (a day). `shift`: the chatters clocked in on the payment's account when it was paid, shared equally (worked out at read time from the window's payments and clock intervals: a window of at most 92 days, `from` required). A manager's reassignment overrides every model */
                model?: "session" | "sender" | "converter" | "shift";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Rows with level account (by accountId), then level chatter (the report's order). text/csv (the default): RFC 4180 with a header row (level, accountId, chatterId, directMessages, fansChatted, directPpvsSent, goldenRatioPct, ppvsUnlocked, unlockRatioPct, ppvRevenueCents, revenueCents, revenuePerDirectMessageCents, medianPpvPriceCents, medianMinutesToUnlock, qaOffPlatformContact, qaOffPlatformPayment, qaBannedPhrase, unlinkedUnlocks, unseenSendUnlocks), CRLF line ends; a string cell that starts with =, +, - or @ (or a tab or carriage return) has a single quote before it; numbers are plain; empty for null. With Accept: application/x-ndjson: one JSON object per line, the same fields. Sent as an attachment (Content-Disposition), streamed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getExportsCampaignsCsv: {
        parameters: {
            query?: {
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description only this account */
                accountId?: string;
                /** @description `session` (default): the chatter of the last human message before the payment in its session; `sender`: the chatter who sent the PPV a purchase bought (named by the unlock nearest the payment), for other earnings the converter's; `converter`: the chatter of the last human message to the fan before the payment, across sessions, within ATTRIBUTION_LOOKBACK_SEC (a day). `shift`: the chatters clocked in on the payment's account when it was paid, shared equally (worked out at read time from the window's payments and clock intervals: a window of at most 92 days, `from` required). A manager's reassignment overrides every model */
                model?: "session" | "sender" | "converter" | "shift";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One row per campaign, the most revenue first. text/csv (the default): RFC 4180 with a header row (accountId, campaignId, fansReached, ppvsSent, unlocks, unlockRatePct, revenueCents), CRLF line ends; a string cell that starts with =, +, - or @ (or a tab or carriage return) has a single quote before it; numbers are plain; empty for null. With Accept: application/x-ndjson: one JSON object per line, the same fields. Sent as an attachment (Content-Disposition), streamed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getExportsSlaCsv: {
        parameters: {
            query?: {
                /** @description first-response SLA threshold in seconds (default 300) */
                thresholdSec?: number;
                /** @description only this account */
                accountId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description `wall` (default): waits in wall-clock seconds; `business`: only the seconds inside each account's business hours (PUT /api/admin/accounts/:id/business-hours), by the schedule in force when each session last changed (a definitions preview with restateBusinessHours measures history by today's), wall-clock seconds for an account without them; any window */
                clock?: "wall" | "business";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A row with level total, then one per account (level account), then one per chatter (level chatter). text/csv (the default): RFC 4180 with a header row (level, accountId, chatterId, thresholdSec, clock, sessions, responded, withinThreshold, breaches, missed, pending, withinThresholdPct, medianFirstResponseSec, p90FirstResponseSec), CRLF line ends; a string cell that starts with =, +, - or @ (or a tab or carriage return) has a single quote before it; numbers are plain; empty for null. With Accept: application/x-ndjson: one JSON object per line, the same fields. Sent as an attachment (Content-Disposition), streamed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getExportsShiftsCsv: {
        parameters: {
            query?: {
                accountId?: string;
                /** @description the chatter's id, as the connector names them */
                chatterId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description `session` (default): the chatter of the last human message before the payment in its session; `sender`: the chatter who sent the PPV a purchase bought (named by the unlock nearest the payment), for other earnings the converter's; `converter`: the chatter of the last human message to the fan before the payment, across sessions, within ATTRIBUTION_LOOKBACK_SEC (a day). `shift`: the chatters clocked in on the payment's account when it was paid, shared equally (worked out at read time from the window's payments and clock intervals: a window of at most 92 days, `from` required). A manager's reassignment overrides every model */
                model?: "session" | "sender" | "converter" | "shift";
                /** @description first-response threshold in seconds (default SLA_THRESHOLD_SEC, 300) */
                thresholdSec?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One row per planned shift, by planned start. text/csv (the default): RFC 4180 with a header row (shiftId, chatterId, displayName, accountId, kind, plannedStart, plannedEnd, plannedSec, clockedSec, lateStartSec, earlyEndSec, noShow, status, fansWaited, sessionsAnswered, withinThresholdPct, medianFirstResponseSec, p90FirstResponseSec, revenueCents), CRLF line ends; a string cell that starts with =, +, - or @ (or a tab or carriage return) has a single quote before it; numbers are plain; empty for null. With Accept: application/x-ndjson: one JSON object per line, the same fields. Sent as an attachment (Content-Disposition), streamed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getExportsCoverageCsv: {
        parameters: {
            query?: {
                /** @description only this account */
                accountId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One row per account with fans waiting or someone clocked in, by account id. text/csv (the default): RFC 4180 with a header row (accountId, waitingSec, uncoveredWaitingSec, staffedSec), CRLF line ends; a string cell that starts with =, +, - or @ (or a tab or carriage return) has a single quote before it; numbers are plain; empty for null. With Accept: application/x-ndjson: one JSON object per line, the same fields. Sent as an attachment (Content-Disposition), streamed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getExportsPayCsv: {
        parameters: {
            query?: {
                /** @description only this account */
                accountId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description `session` (default): the chatter of the last human message before the payment in its session; `sender`: the chatter who sent the PPV a purchase bought (named by the unlock nearest the payment), for other earnings the converter's; `converter`: the chatter of the last human message to the fan before the payment, across sessions, within ATTRIBUTION_LOOKBACK_SEC (a day). `shift`: the chatters clocked in on the payment's account when it was paid, shared equally (worked out at read time from the window's payments and clock intervals: a window of at most 92 days, `from` required). A manager's reassignment overrides every model */
                model?: "session" | "sender" | "converter" | "shift";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One row per chatter, by chatter id. text/csv (the default): RFC 4180 with a header row (chatterId, displayName, clockedSec, creditedRevenueCents, commissionPct, commissionCents), CRLF line ends; a string cell that starts with =, +, - or @ (or a tab or carriage return) has a single quote before it; numbers are plain; empty for null. With Accept: application/x-ndjson: one JSON object per line, the same fields. Sent as an attachment (Content-Disposition), streamed */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/x-ndjson": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getFloorStream: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description text/event-stream: `snapshot` events (data: the GET /api/floor body), `heartbeat` events (data: {"at": …}) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getSessionsByIdExplain: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description session id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        sessionId: string;
                        chatKey: string;
                        /** @description the definitions the figures were decided under */
                        definitions: {
                            /** @description the definitions version these are (GET /api/admin/definitions); null when no processor has recorded them */
                            version: number | null;
                            sessionIdleSec: number;
                            allowedLatenessSec: number;
                            unansweredCloseSec: number;
                            attributionLookbackSec: number;
                        };
                        figures: {
                            /** @description a field of the session (as GET /api/sessions/:id names it) */
                            figure: string;
                            /** @description its value, as the chat's records decide it again (times as ISO strings) */
                            value: unknown;
                            event: {
                                id: string;
                                type: string;
                                at: string | null;
                            } | null;
                            record: {
                                partition: number;
                                offset: number;
                                receivedAt: string | null;
                                /** @description the platform's event name, or `tick` for a clock tick */
                                event: string;
                                /** @description webhook, connector, backfill, demo, tick, admin */
                                source: string;
                                input: {
                                    /** @description what the record became: chat.message, chat.payment, chat.tick, … */
                                    type: string;
                                    id: string | null;
                                    at: (string | null) | null;
                                } | null;
                            } | null;
                        }[];
                        /** @description the chart's steps that moved this session, in order */
                        steps: {
                            record: {
                                partition: number;
                                offset: number;
                                receivedAt: string | null;
                                /** @description the platform's event name, or `tick` for a clock tick */
                                event: string;
                                /** @description webhook, connector, backfill, demo, tick, admin */
                                source: string;
                                input: {
                                    /** @description what the record became: chat.message, chat.payment, chat.tick, … */
                                    type: string;
                                    id: string | null;
                                    at: (string | null) | null;
                                } | null;
                            } | null;
                            /** @description what the record was to the chart */
                            input: string;
                            /** @description the chart's state before the step */
                            stateBefore: unknown;
                            /** @description the chart's state after it */
                            stateAfter: unknown;
                            events: {
                                id: string;
                                type: string;
                            }[];
                        }[];
                        /** @description the payments the session holds (its revenue) */
                        payments: {
                            paymentId: string;
                            /** @description tip, ppv, subscription, … */
                            kind: string;
                            grossCents: number;
                            paidAt: string | null;
                            /** @description who each attribution model credits (the shift model reads the clock intervals at report time) */
                            credits: {
                                session: string | null;
                                sender: {
                                    chatterId: string | null;
                                    messageId: string | null;
                                    /** @description last-message, ppv-sender, campaign or none */
                                    rule: string;
                                } | null;
                                converter: {
                                    chatterId: string | null;
                                    messageId: string | null;
                                    /** @description last-message, ppv-sender, campaign or none */
                                    rule: string;
                                } | null;
                                reassignedTo: string | null;
                            };
                            record: {
                                partition: number;
                                offset: number;
                                receivedAt: string | null;
                                /** @description the platform's event name, or `tick` for a clock tick */
                                event: string;
                                /** @description webhook, connector, backfill, demo, tick, admin */
                                source: string;
                                input: {
                                    /** @description what the record became: chat.message, chat.payment, chat.tick, … */
                                    type: string;
                                    id: string | null;
                                    at: (string | null) | null;
                                } | null;
                            } | null;
                            creditedBy: {
                                event: {
                                    id: string;
                                    type: string;
                                    at: string | null;
                                };
                                record: {
                                    partition: number;
                                    offset: number;
                                    receivedAt: string | null;
                                    /** @description the platform's event name, or `tick` for a clock tick */
                                    event: string;
                                    /** @description webhook, connector, backfill, demo, tick, admin */
                                    source: string;
                                    input: {
                                        /** @description what the record became: chat.message, chat.payment, chat.tick, … */
                                        type: string;
                                        id: string | null;
                                        at: (string | null) | null;
                                    } | null;
                                } | null;
                            } | null;
                        }[];
                        /** @description inbound records read again: the chat's own and its partition's clock ticks, from its first record */
                        recordsRead: number;
                        /** @description the session decided again equals the stored one */
                        agrees: boolean;
                        differences: {
                            field: string;
                            stored: unknown;
                            derived: unknown;
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            410: components["responses"]["Gone"];
            422: components["responses"]["Unprocessable"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminCloseSession: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description id of the session to close */
                    sessionId: string;
                };
            };
        };
        responses: {
            /** @description the session was already closed: nothing was appended */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "already-closed";
                        sessionId: string;
                        /** @description when it closed (its last activity where the close time is not stored) */
                        closedAt: string | null;
                        closeReason: "idle" | "unanswered" | "forced" | null;
                    };
                };
            };
            /** @description the close command is in the inbound log: the processor closes the session */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "close-requested";
                        sessionId: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminReassignments: {
        parameters: {
            query?: {
                /** @description only this account */
                accountId?: string;
                /** @description only this payment */
                paymentId?: string;
                /** @description rows to return (default 50, max 500) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            accountId: string;
                            /** @description the fan */
                            chatId: string;
                            paymentId: string;
                            /** @description US cents */
                            grossCents: number;
                            paidAt: string | null;
                            /** @description the chatter credited before; null: nobody */
                            from: string | null;
                            /** @description the chatter credited after; on an undo, the model's own credit */
                            to: string | null;
                            /** @description true: a reassignment undone */
                            undo: boolean;
                            /** @description who asked (the key's name, or admin) */
                            by: string;
                            at: string | null;
                            reason: string;
                        }[];
                        count: number;
                        limit: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminReassignments: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the payment's account */
                    accountId: string;
                    /** @description the payment (the transaction id) */
                    paymentId: string;
                    /** @description the chatter to credit; null: undo the reassignment */
                    toChatterId: string | null;
                    /** @description why, for whoever reads the list later */
                    reason: string;
                };
            };
        };
        responses: {
            /** @description the command is in the inbound log: the processor applies it */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "reassign-requested";
                        accountId: string;
                        paymentId: string;
                        from: string | null;
                        toChatterId: string | null;
                        requestedAt: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getChatters: {
        parameters: {
            query?: {
                accountId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            chatterId: string;
                            /** @description as an admin set it; null: none set (show the id) */
                            displayName: string | null;
                            /** @description the accounts they work: as an admin set them, or else those they have worked for (replies, credited sales) */
                            accountIds: string[];
                            /** @description their share of the revenue credited to them, percent; null: none agreed */
                            commissionPct: number | null;
                            active: boolean;
                            /** @description false: seen in the pipeline only; PUT /api/admin/chatters/:chatterId gives them a record */
                            hasRecord: boolean;
                            /** @description the accounts they are clocked in on now */
                            onNow: {
                                accountId: string;
                                since: string | null;
                                intervalId: string;
                            }[];
                        }[];
                        count: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    putAdminChattersByChatterId: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the chatter's id, as the connector names them */
                chatterId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description how the console names them; null: by id */
                    displayName: string | null;
                    /** @description the accounts they work, at most 200 */
                    accountIds: string[];
                    /** @description their share of the revenue credited to them, percent */
                    commissionPct?: number | null;
                    /** @default true */
                    active?: boolean;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chatterId: string;
                        displayName: string | null;
                        accountIds: string[];
                        commissionPct: number | null;
                        active: boolean;
                        updatedAt: string | null;
                        updatedBy: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminChattersByChatterIdClock: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the chatter's id, as the connector names them */
                chatterId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    accountId: string;
                    action: "in" | "out";
                };
            };
        };
        responses: {
            /** @description the command is in the inbound log: the processor applies it */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "clock-requested";
                        chatterId: string;
                        accountId: string;
                        action: "in" | "out";
                        requestedAt: string | null;
                        /** @description the open interval had already ended by idling: it is recorded as ending then */
                        endsIdleIntervalAt: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getChattersClocked: {
        parameters: {
            query?: {
                accountId?: string;
                /** @description the chatter's id, as the connector names them */
                chatterId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description by chatter, then account */
                        items: {
                            accountId: string;
                            chatterId: string;
                            displayName: string | null;
                            /** @description clocked seconds inside the window (an interval still on counts until now) */
                            clockedSec: number;
                            /** @description clock intervals overlapping the window */
                            intervals: number;
                            /** @description of them, ended by idling */
                            automaticClockOuts: number;
                            onNow: boolean;
                        }[];
                        /** @description the clock intervals overlapping the window, oldest first */
                        intervals: {
                            intervalId: string;
                            accountId: string;
                            chatterId: string;
                            clockedInAt: string | null;
                            /** @description null: on now */
                            endedAt: string | null;
                            /** @description ended by idling: no reply of theirs on the account for CLOCK_IDLE_SEC */
                            automatic: boolean;
                            clockedInBy: string;
                            clockedOutBy: string | null;
                        }[];
                        /** @description CLOCK_IDLE_SEC: idle this long without a reply, a chatter is clocked out */
                        clockIdleSec: number;
                        window: {
                            from: string | null;
                            to: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    putAdminChattersByChatterIdRoster: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the chatter's id, as the connector names them */
                chatterId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description an IANA time zone (Europe/Berlin) or an offset (+01:00): the wall clock the slots are on */
                    timezone: string;
                    /** @description weekly slots, at most 100, none overlapping another */
                    weekly: {
                        accountId: string;
                        /** @description the day the slot starts on */
                        day: "mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun";
                        /** @description HH:MM local */
                        start: string;
                        /** @description HH:MM local; at or before the start: the next day (a night shift) */
                        end: string;
                    }[];
                    /** @description one-off shifts, at most 200, overlapping no other shift */
                    oneOff?: {
                        accountId: string;
                        /** @description ISO-8601 date-time with Z or an offset */
                        start: string;
                        /** @description ISO-8601 date-time, at most 24 hours after the start */
                        end: string;
                    }[];
                    /** @description local dates on which no weekly slot starts, at most 200 */
                    absences?: {
                        /** @description YYYY-MM-DD local, inclusive */
                        from: string;
                        /** @description YYYY-MM-DD local, inclusive */
                        to: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chatterId: string;
                        timezone: string;
                        weekly: {
                            accountId: string;
                            day: string;
                            start: string;
                            end: string;
                        }[];
                        oneOff: {
                            accountId: string;
                            start: string | null;
                            end: string | null;
                        }[];
                        absences: {
                            from: string;
                            to: string;
                        }[];
                        updatedAt: string | null;
                        updatedBy: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getChattersByChatterIdRoster: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the chatter's id, as the connector names them */
                chatterId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        chatterId: string;
                        timezone: string;
                        weekly: {
                            accountId: string;
                            day: string;
                            start: string;
                            end: string;
                        }[];
                        oneOff: {
                            accountId: string;
                            start: string | null;
                            end: string | null;
                        }[];
                        absences: {
                            from: string;
                            to: string;
                        }[];
                        updatedAt: string | null;
                        updatedBy: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getShifts: {
        parameters: {
            query?: {
                accountId?: string;
                /** @description the chatter's id, as the connector names them */
                chatterId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description `session` (default): the chatter of the last human message before the payment in its session; `sender`: the chatter who sent the PPV a purchase bought (named by the unlock nearest the payment), for other earnings the converter's; `converter`: the chatter of the last human message to the fan before the payment, across sessions, within ATTRIBUTION_LOOKBACK_SEC (a day). `shift`: the chatters clocked in on the payment's account when it was paid, shared equally (worked out at read time from the window's payments and clock intervals: a window of at most 92 days, `from` required). A manager's reassignment overrides every model */
                model?: "session" | "sender" | "converter" | "shift";
                /** @description first-response threshold in seconds (default SLA_THRESHOLD_SEC, 300) */
                thresholdSec?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description by planned start */
                        shifts: {
                            /** @description stable: the chatter, the weekly slot and its local date, or the one-off's start */
                            shiftId: string;
                            chatterId: string;
                            displayName: string | null;
                            accountId: string;
                            kind: "weekly" | "one-off";
                            plannedStart: string | null;
                            plannedEnd: string | null;
                            plannedSec: number;
                            /** @description clocked seconds on the shift's account inside the planned shift (until now while on) */
                            clockedSec: number;
                            /** @description planned start to the first clock-in inside the shift; null: on time, or never clocked in */
                            lateStartSec: number | null;
                            /** @description last clocked moment inside the shift to the planned end, once the shift is over; null: to the end, or never clocked in */
                            earlyEndSec: number | null;
                            /** @description SHIFT_NO_SHOW_GRACE_SEC after the planned start, still not clocked in on the account */
                            noShow: boolean;
                            /** @description upcoming: not started; on: clocked in now; off: started, not over, not clocked in now; done: over, clocked in for some of it; missed: over, never clocked in */
                            status: "upcoming" | "on" | "off" | "done" | "missed";
                            /** @description sessions of the account whose fan began waiting while the chatter was clocked in */
                            fansWaited: number;
                            /** @description of them, first answered by this chatter */
                            sessionsAnswered: number;
                            /** @description of the sessions they answered, answered within thresholdSec; null: none answered */
                            withinThresholdPct: number | null;
                            /** @description of the sessions they answered (nearest rank) */
                            medianFirstResponseSec: number | null;
                            p90FirstResponseSec: number | null;
                            /** @description payments paid while they were clocked in on the account, credited to them under `model` */
                            revenueCents: number;
                        }[];
                        /** @description by chatter id */
                        chatters: {
                            chatterId: string;
                            displayName: string | null;
                            shifts: number;
                            /** @description planned seconds inside the window */
                            plannedSec: number;
                            /** @description clocked seconds inside their planned shifts, inside the window */
                            clockedInShiftsSec: number;
                            /** @description all clocked seconds inside the window, planned or not */
                            clockedSec: number;
                            lateStarts: number;
                            earlyEnds: number;
                            noShows: number;
                            /** @description over their shifts */
                            fansWaited: number;
                            sessionsAnswered: number;
                            withinThresholdPct: number | null;
                            /** @description credited to them while clocked in on their shifts */
                            revenueCents: number;
                        }[];
                        /** @description coverage of each account with fans waiting or someone clocked in in the window, by account id: everyone's, whatever chatterId asks */
                        accounts: {
                            accountId: string;
                            /** @description seconds of the window (up to now) in which at least one fan whose wait began in the window was waiting for a first reply */
                            waitingSec: number;
                            /** @description of waitingSec, the seconds in which nobody was clocked in on the account */
                            uncoveredWaitingSec: number;
                            /** @description seconds of the window (up to now) in which at least one chatter was clocked in on the account */
                            staffedSec: number;
                        }[];
                        noShowGraceSec: number;
                        thresholdSec: number;
                        /** @description the attribution model revenue was credited under (the `model` asked for) */
                        model: "session" | "sender" | "converter" | "shift";
                        window: {
                            from: string | null;
                            to: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getChattersPay: {
        parameters: {
            query?: {
                accountId?: string;
                /** @description the chatter's id, as the connector names them */
                chatterId?: string;
                /** @description window start, inclusive: an ISO-8601 date-time with Z or an offset, or a date YYYY-MM-DD (midnight in REPORT_TIMEZONE); default: the beginning */
                from?: string;
                /** @description window end, exclusive, in the same forms; default: no end */
                to?: string;
                /** @description `session` (default): the chatter of the last human message before the payment in its session; `sender`: the chatter who sent the PPV a purchase bought (named by the unlock nearest the payment), for other earnings the converter's; `converter`: the chatter of the last human message to the fan before the payment, across sessions, within ATTRIBUTION_LOOKBACK_SEC (a day). `shift`: the chatters clocked in on the payment's account when it was paid, shared equally (worked out at read time from the window's payments and clock intervals: a window of at most 92 days, `from` required). A manager's reassignment overrides every model */
                model?: "session" | "sender" | "converter" | "shift";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description by chatter id */
                        items: {
                            chatterId: string;
                            displayName: string | null;
                            /** @description clocked seconds inside the window, on any account in scope */
                            clockedSec: number;
                            /** @description payments paid in the window credited to them under `model`, US cents */
                            creditedRevenueCents: number;
                            /** @description their record's; null: none agreed */
                            commissionPct: number | null;
                            /** @description creditedRevenueCents × commissionPct ÷ 100, rounded; null without a commission */
                            commissionCents: number | null;
                        }[];
                        /** @description the attribution model revenue was credited under (the `model` asked for) */
                        model: "session" | "sender" | "converter" | "shift";
                        window: {
                            from: string | null;
                            to: string | null;
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminReplay: {
        parameters: {
            query?: {
                /** @description jobs to return (default 20, max 100) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            state: "building" | "switching" | "done" | "failed";
                            /** @description where in session-events the rebuild starts */
                            from: {
                                /** @enum {string} */
                                kind: "beginning";
                            } | {
                                /** @enum {string} */
                                kind: "offset";
                                /** @description every partition starts at this offset */
                                offset: number;
                            } | {
                                /** @enum {string} */
                                kind: "time";
                                /** @description starts at the first event appended at or after this time */
                                time: string | null;
                            };
                            /** @description the read-model version active when it started */
                            fromVersion: number;
                            /** @description the version it builds, active once it is done */
                            targetVersion: number;
                            eventsApplied: number;
                            /** @description events left to reach the end of the log (null: not known yet) */
                            lag: number | null;
                            startedAt: string | null;
                            /** @description the runner's last heartbeat */
                            updatedAt: string | null;
                            /** @description null while it runs */
                            finishedAt: string | null;
                            /** @description why it failed */
                            error: string | null;
                            /** @description where to follow it */
                            statusUrl: string;
                        }[];
                        count: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminReplay: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description start every partition at this offset (default: the beginning) */
                    fromOffset?: number;
                    /**
                     * Format: date-time
                     * @description start at the first event appended at or after this time
                     */
                    fromTime?: string;
                } | null;
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        state: "building" | "switching" | "done" | "failed";
                        /** @description where in session-events the rebuild starts */
                        from: {
                            /** @enum {string} */
                            kind: "beginning";
                        } | {
                            /** @enum {string} */
                            kind: "offset";
                            /** @description every partition starts at this offset */
                            offset: number;
                        } | {
                            /** @enum {string} */
                            kind: "time";
                            /** @description starts at the first event appended at or after this time */
                            time: string | null;
                        };
                        /** @description the read-model version active when it started */
                        fromVersion: number;
                        /** @description the version it builds, active once it is done */
                        targetVersion: number;
                        eventsApplied: number;
                        /** @description events left to reach the end of the log (null: not known yet) */
                        lag: number | null;
                        startedAt: string | null;
                        /** @description the runner's last heartbeat */
                        updatedAt: string | null;
                        /** @description null while it runs */
                        finishedAt: string | null;
                        /** @description why it failed */
                        error: string | null;
                        /** @description where to follow it */
                        statusUrl: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminReplayById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        state: "building" | "switching" | "done" | "failed";
                        /** @description where in session-events the rebuild starts */
                        from: {
                            /** @enum {string} */
                            kind: "beginning";
                        } | {
                            /** @enum {string} */
                            kind: "offset";
                            /** @description every partition starts at this offset */
                            offset: number;
                        } | {
                            /** @enum {string} */
                            kind: "time";
                            /** @description starts at the first event appended at or after this time */
                            time: string | null;
                        };
                        /** @description the read-model version active when it started */
                        fromVersion: number;
                        /** @description the version it builds, active once it is done */
                        targetVersion: number;
                        eventsApplied: number;
                        /** @description events left to reach the end of the log (null: not known yet) */
                        lag: number | null;
                        startedAt: string | null;
                        /** @description the runner's last heartbeat */
                        updatedAt: string | null;
                        /** @description null while it runs */
                        finishedAt: string | null;
                        /** @description why it failed */
                        error: string | null;
                        /** @description where to follow it */
                        statusUrl: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminKeys: {
        parameters: {
            query?: {
                /** @description list revoked keys too */
                includeRevoked?: boolean;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description the key id (the part after cvk_) */
                            id: string;
                            name: string;
                            role: "viewer" | "manager" | "admin";
                            /** @description the accounts it may see; null: every account */
                            accounts: string[] | null;
                            status: "active" | "expired" | "revoked";
                            createdAt: string | null;
                            /** @description who created it */
                            createdBy: string;
                            /** @description null: never expires */
                            expiresAt: string | null;
                            /** @description null: never used */
                            lastUsedAt: string | null;
                            /** @description null: not revoked */
                            revokedAt: string | null;
                        }[];
                        count: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminKeys: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description who or what uses the key */
                    name: string;
                    /** @description viewer: reads; manager: reads, alert acks and session closes; admin: everything */
                    role: "viewer" | "manager" | "admin";
                    /** @description only these accounts (viewer and manager keys); omitted: every account */
                    accounts?: string[];
                    /**
                     * Format: date-time
                     * @description the key stops working at this time
                     */
                    expiresAt?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the key id (the part after cvk_) */
                        id: string;
                        name: string;
                        role: "viewer" | "manager" | "admin";
                        /** @description the accounts it may see; null: every account */
                        accounts: string[] | null;
                        status: "active" | "expired" | "revoked";
                        createdAt: string | null;
                        /** @description who created it */
                        createdBy: string;
                        /** @description null: never expires */
                        expiresAt: string | null;
                        /** @description null: never used */
                        lastUsedAt: string | null;
                        /** @description null: not revoked */
                        revokedAt: string | null;
                        /** @description the key to send as the bearer token (cvk_…); shown in this answer only */
                        secret: string;
                        note: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    deleteAdminKeysById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the key id (the part after cvk_) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the key id (the part after cvk_) */
                        id: string;
                        name: string;
                        role: "viewer" | "manager" | "admin";
                        /** @description the accounts it may see; null: every account */
                        accounts: string[] | null;
                        status: "active" | "expired" | "revoked";
                        createdAt: string | null;
                        /** @description who created it */
                        createdBy: string;
                        /** @description null: never expires */
                        expiresAt: string | null;
                        /** @description null: never used */
                        lastUsedAt: string | null;
                        /** @description null: not revoked */
                        revokedAt: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminSetAside: {
        parameters: {
            query?: {
                /** @description rows to return (default 50, max 500) */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description `<topic>:<partition>:<offset>`, with `|<chat key>` for a clock tick's */
                            id: string;
                            /** @description the step that threw on it (or `conflict`: an event id seen again with other content) */
                            stage: "normalise" | "step" | "fold" | "write" | "conflict";
                            topic: string;
                            partition: number;
                            offset: number;
                            chatKey: string | null;
                            /** @description the inbound event name or the session event type */
                            event: string | null;
                            /** @description the error's message only */
                            error: string;
                            receivedAt: string | null;
                            setAsideAt: string | null;
                            body: {
                                encoding: "utf8" | "base64";
                                /** @description the first 4 KB of the body */
                                prefix: string;
                                bytes: number;
                                truncated: boolean;
                            };
                            /** @description the set-aside record this one retried */
                            retryOf: string | null;
                        }[];
                        count: number;
                        total: number;
                        limit: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminSetAsideById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the id the list gives (`<topic>:<partition>:<offset>[|<chat key>]`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description `<topic>:<partition>:<offset>`, with `|<chat key>` for a clock tick's */
                        id: string;
                        /** @description the step that threw on it (or `conflict`: an event id seen again with other content) */
                        stage: "normalise" | "step" | "fold" | "write" | "conflict";
                        topic: string;
                        partition: number;
                        offset: number;
                        chatKey: string | null;
                        /** @description the inbound event name or the session event type */
                        event: string | null;
                        /** @description the error's message only */
                        error: string;
                        receivedAt: string | null;
                        setAsideAt: string | null;
                        body: {
                            encoding: "utf8" | "base64";
                            /** @description the first 4 KB of the body */
                            prefix: string;
                            bytes: number;
                            truncated: boolean;
                        };
                        /** @description the set-aside record this one retried */
                        retryOf: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    deleteAdminSetAsideById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the id the list gives (`<topic>:<partition>:<offset>[|<chat key>]`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the id removed */
                        dropped: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminSetAsideByIdRetry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the id the list gives (`<topic>:<partition>:<offset>[|<chat key>]`) */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the set-aside record retried (removed) */
                        retried: string;
                        topic: string;
                        partition: number;
                        /** @description where the copy was appended */
                        offset: number;
                        /** @description the id the copy is set aside under if it fails again */
                        id: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminDefinitions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            version: number;
                            /**
                             * Format: date-time
                             * @description when a processor first decided under it, or when it was proposed
                             */
                            since: string;
                            /** @description `environment`: a processor started with these settings; `admin:<key>` or `admin-token`: proposed through the API */
                            recordedBy: string;
                            /** @description the definitions generation it belongs to: 0 the environment's, later ones previews */
                            generation: number;
                            values: {
                                /** @description SESSION_IDLE_SEC: the gap after which a session closes as idle */
                                sessionIdleSec: number;
                                /** @description ALLOWED_LATENESS_SEC: how late a record may arrive and still be placed exactly; less than sessionIdleSec */
                                allowedLatenessSec: number;
                                /** @description UNANSWERED_CLOSE_SEC: how long an unanswered fan keeps a session open (0: until answered) */
                                unansweredCloseSec: number;
                                /** @description ATTRIBUTION_LOOKBACK_SEC: the converter model's lookback */
                                attributionLookbackSec: number;
                                /** @description epoch ms: records received before it are measured by the business hours in force then (a preview asked for restateBusinessHours); absent: each by the schedule in force when it was received */
                                businessHoursRestatedAt?: number;
                            };
                        }[];
                        /** @description the version the live pipeline decides under; null before any processor has run */
                        current: number | null;
                        /** @description the live definitions generation */
                        generation: number;
                        readModelVersion: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminDefinitionsGenerations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        live: number;
                        items: {
                            generation: number;
                            /** @description live: its pipeline feeds the served read models; building: a preview catching up; ready: a preview caught up, can be applied; held: switched away from, kept (bring it up to date to switch back); dropped: its data is gone */
                            status: "live" | "building" | "ready" | "held" | "dropped" | "failed";
                            definitionsVersion: number;
                            values: {
                                /** @description SESSION_IDLE_SEC: the gap after which a session closes as idle */
                                sessionIdleSec: number;
                                /** @description ALLOWED_LATENESS_SEC: how late a record may arrive and still be placed exactly; less than sessionIdleSec */
                                allowedLatenessSec: number;
                                /** @description UNANSWERED_CLOSE_SEC: how long an unanswered fan keeps a session open (0: until answered) */
                                unansweredCloseSec: number;
                                /** @description ATTRIBUTION_LOOKBACK_SEC: the converter model's lookback */
                                attributionLookbackSec: number;
                                /** @description epoch ms: records received before it are measured by the business hours in force then (a preview asked for restateBusinessHours); absent: each by the schedule in force when it was received */
                                businessHoursRestatedAt?: number;
                            };
                            readModelVersion: number;
                            /** @description what was live when the preview started: it applies only over that */
                            basedOn: {
                                generation: number;
                                definitionsVersion: number;
                            };
                            createdAt: string | null;
                            createdBy: string;
                            /** @description null until first measured (each second) */
                            progress: {
                                /** @description inbound records its processor has still to step */
                                recordsBehind: number;
                                /** @description session events its projector has still to fold */
                                eventsBehind: number;
                                /** @description inbound records stepped since it (re)started */
                                recordsDone: number;
                                eventsDone: number;
                                recordsPerSec: number | null;
                                startedAt: string | null;
                                /** @description when it first had (nearly) nothing left; null: not yet, it cannot be applied */
                                caughtUpAt: string | null;
                                updatedAt: string | null;
                            } | null;
                            /** @description who did what, when */
                            audit: {
                                at: string | null;
                                by: string;
                                action: string;
                                detail: string | null;
                            }[];
                            error: string | null;
                            statusUrl: string;
                            diffUrl: string;
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminDefinitionsGenerations: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description what changes; the rest stays as live */
        requestBody?: {
            content: {
                "application/json": {
                    /** @description the new session gap, seconds */
                    sessionIdleSec?: number;
                    /** @description the new allowed lateness, seconds; must stay below the session gap */
                    allowedLatenessSec?: number;
                    /** @description the new unanswered limit, seconds */
                    unansweredCloseSec?: number;
                    /** @description the new converter lookback, seconds */
                    attributionLookbackSec?: number;
                    /** @description true: measure history by the accounts' business hours as they are now (a schedule change reaches past sessions, their figures on clock=business and their unanswered limits); false: each record by the schedule in force when it was received (undoes a restatement); absent: as the live definitions are */
                    restateBusinessHours?: boolean;
                } | null;
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        generation: number;
                        /** @description live: its pipeline feeds the served read models; building: a preview catching up; ready: a preview caught up, can be applied; held: switched away from, kept (bring it up to date to switch back); dropped: its data is gone */
                        status: "live" | "building" | "ready" | "held" | "dropped" | "failed";
                        definitionsVersion: number;
                        values: {
                            /** @description SESSION_IDLE_SEC: the gap after which a session closes as idle */
                            sessionIdleSec: number;
                            /** @description ALLOWED_LATENESS_SEC: how late a record may arrive and still be placed exactly; less than sessionIdleSec */
                            allowedLatenessSec: number;
                            /** @description UNANSWERED_CLOSE_SEC: how long an unanswered fan keeps a session open (0: until answered) */
                            unansweredCloseSec: number;
                            /** @description ATTRIBUTION_LOOKBACK_SEC: the converter model's lookback */
                            attributionLookbackSec: number;
                            /** @description epoch ms: records received before it are measured by the business hours in force then (a preview asked for restateBusinessHours); absent: each by the schedule in force when it was received */
                            businessHoursRestatedAt?: number;
                        };
                        readModelVersion: number;
                        /** @description what was live when the preview started: it applies only over that */
                        basedOn: {
                            generation: number;
                            definitionsVersion: number;
                        };
                        createdAt: string | null;
                        createdBy: string;
                        /** @description null until first measured (each second) */
                        progress: {
                            /** @description inbound records its processor has still to step */
                            recordsBehind: number;
                            /** @description session events its projector has still to fold */
                            eventsBehind: number;
                            /** @description inbound records stepped since it (re)started */
                            recordsDone: number;
                            eventsDone: number;
                            recordsPerSec: number | null;
                            startedAt: string | null;
                            /** @description when it first had (nearly) nothing left; null: not yet, it cannot be applied */
                            caughtUpAt: string | null;
                            updatedAt: string | null;
                        } | null;
                        /** @description who did what, when */
                        audit: {
                            at: string | null;
                            by: string;
                            action: string;
                            detail: string | null;
                        }[];
                        error: string | null;
                        statusUrl: string;
                        diffUrl: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminDefinitionsGenerationsByN: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the generation number */
                n: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        generation: number;
                        /** @description live: its pipeline feeds the served read models; building: a preview catching up; ready: a preview caught up, can be applied; held: switched away from, kept (bring it up to date to switch back); dropped: its data is gone */
                        status: "live" | "building" | "ready" | "held" | "dropped" | "failed";
                        definitionsVersion: number;
                        values: {
                            /** @description SESSION_IDLE_SEC: the gap after which a session closes as idle */
                            sessionIdleSec: number;
                            /** @description ALLOWED_LATENESS_SEC: how late a record may arrive and still be placed exactly; less than sessionIdleSec */
                            allowedLatenessSec: number;
                            /** @description UNANSWERED_CLOSE_SEC: how long an unanswered fan keeps a session open (0: until answered) */
                            unansweredCloseSec: number;
                            /** @description ATTRIBUTION_LOOKBACK_SEC: the converter model's lookback */
                            attributionLookbackSec: number;
                            /** @description epoch ms: records received before it are measured by the business hours in force then (a preview asked for restateBusinessHours); absent: each by the schedule in force when it was received */
                            businessHoursRestatedAt?: number;
                        };
                        readModelVersion: number;
                        /** @description what was live when the preview started: it applies only over that */
                        basedOn: {
                            generation: number;
                            definitionsVersion: number;
                        };
                        createdAt: string | null;
                        createdBy: string;
                        /** @description null until first measured (each second) */
                        progress: {
                            /** @description inbound records its processor has still to step */
                            recordsBehind: number;
                            /** @description session events its projector has still to fold */
                            eventsBehind: number;
                            /** @description inbound records stepped since it (re)started */
                            recordsDone: number;
                            eventsDone: number;
                            recordsPerSec: number | null;
                            startedAt: string | null;
                            /** @description when it first had (nearly) nothing left; null: not yet, it cannot be applied */
                            caughtUpAt: string | null;
                            updatedAt: string | null;
                        } | null;
                        /** @description who did what, when */
                        audit: {
                            at: string | null;
                            by: string;
                            action: string;
                            detail: string | null;
                        }[];
                        error: string | null;
                        statusUrl: string;
                        diffUrl: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    deleteAdminDefinitionsGenerationsByN: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the generation number */
                n: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        generation: number;
                        /** @description live: its pipeline feeds the served read models; building: a preview catching up; ready: a preview caught up, can be applied; held: switched away from, kept (bring it up to date to switch back); dropped: its data is gone */
                        status: "live" | "building" | "ready" | "held" | "dropped" | "failed";
                        definitionsVersion: number;
                        values: {
                            /** @description SESSION_IDLE_SEC: the gap after which a session closes as idle */
                            sessionIdleSec: number;
                            /** @description ALLOWED_LATENESS_SEC: how late a record may arrive and still be placed exactly; less than sessionIdleSec */
                            allowedLatenessSec: number;
                            /** @description UNANSWERED_CLOSE_SEC: how long an unanswered fan keeps a session open (0: until answered) */
                            unansweredCloseSec: number;
                            /** @description ATTRIBUTION_LOOKBACK_SEC: the converter model's lookback */
                            attributionLookbackSec: number;
                            /** @description epoch ms: records received before it are measured by the business hours in force then (a preview asked for restateBusinessHours); absent: each by the schedule in force when it was received */
                            businessHoursRestatedAt?: number;
                        };
                        readModelVersion: number;
                        /** @description what was live when the preview started: it applies only over that */
                        basedOn: {
                            generation: number;
                            definitionsVersion: number;
                        };
                        createdAt: string | null;
                        createdBy: string;
                        /** @description null until first measured (each second) */
                        progress: {
                            /** @description inbound records its processor has still to step */
                            recordsBehind: number;
                            /** @description session events its projector has still to fold */
                            eventsBehind: number;
                            /** @description inbound records stepped since it (re)started */
                            recordsDone: number;
                            eventsDone: number;
                            recordsPerSec: number | null;
                            startedAt: string | null;
                            /** @description when it first had (nearly) nothing left; null: not yet, it cannot be applied */
                            caughtUpAt: string | null;
                            updatedAt: string | null;
                        } | null;
                        /** @description who did what, when */
                        audit: {
                            at: string | null;
                            by: string;
                            action: string;
                            detail: string | null;
                        }[];
                        error: string | null;
                        statusUrl: string;
                        diffUrl: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminDefinitionsGenerationsByNDiff: {
        parameters: {
            query?: {
                from?: string;
                to?: string;
            };
            header?: never;
            path: {
                /** @description the generation number */
                n: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description sessions opened in it, payments made in it; null: open end */
                        window: {
                            from: string | null;
                            to: string | null;
                        };
                        thresholdSec: number;
                        before: {
                            generation: number;
                            readModelVersion: number;
                        };
                        after: {
                            generation: number;
                            readModelVersion: number;
                        };
                        /** @description before: the live read models; after: the generation's */
                        overall: {
                            before: {
                                /** @description sessions opened in the window */
                                sessions: number;
                                closedIdle: number;
                                closedUnanswered: number;
                                closedForced: number;
                                medianFirstResponseSec: number | null;
                                p90FirstResponseSec: number | null;
                                withinThresholdPct: number | null;
                                /** @description on the business clock (clock=business): seconds in each account's open hours; the same as the wall clock's where an account has no schedule; what is still open judged by the schedules now */
                                businessMedianFirstResponseSec: number | null;
                                businessP90FirstResponseSec: number | null;
                                businessWithinThresholdPct: number | null;
                                missed: number;
                                revenueCents: number;
                            };
                            after: {
                                /** @description sessions opened in the window */
                                sessions: number;
                                closedIdle: number;
                                closedUnanswered: number;
                                closedForced: number;
                                medianFirstResponseSec: number | null;
                                p90FirstResponseSec: number | null;
                                withinThresholdPct: number | null;
                                /** @description on the business clock (clock=business): seconds in each account's open hours; the same as the wall clock's where an account has no schedule; what is still open judged by the schedules now */
                                businessMedianFirstResponseSec: number | null;
                                businessP90FirstResponseSec: number | null;
                                businessWithinThresholdPct: number | null;
                                missed: number;
                                revenueCents: number;
                            };
                        };
                        byAccount: {
                            accountId: string;
                            before: {
                                /** @description sessions opened in the window */
                                sessions: number;
                                closedIdle: number;
                                closedUnanswered: number;
                                closedForced: number;
                                medianFirstResponseSec: number | null;
                                p90FirstResponseSec: number | null;
                                withinThresholdPct: number | null;
                                /** @description on the business clock (clock=business): seconds in each account's open hours; the same as the wall clock's where an account has no schedule; what is still open judged by the schedules now */
                                businessMedianFirstResponseSec: number | null;
                                businessP90FirstResponseSec: number | null;
                                businessWithinThresholdPct: number | null;
                                missed: number;
                                revenueCents: number;
                            };
                            after: {
                                /** @description sessions opened in the window */
                                sessions: number;
                                closedIdle: number;
                                closedUnanswered: number;
                                closedForced: number;
                                medianFirstResponseSec: number | null;
                                p90FirstResponseSec: number | null;
                                withinThresholdPct: number | null;
                                /** @description on the business clock (clock=business): seconds in each account's open hours; the same as the wall clock's where an account has no schedule; what is still open judged by the schedules now */
                                businessMedianFirstResponseSec: number | null;
                                businessP90FirstResponseSec: number | null;
                                businessWithinThresholdPct: number | null;
                                missed: number;
                                revenueCents: number;
                            };
                        }[];
                        /** @description revenue credited to each chatter (session model) */
                        revenueByChatter: {
                            chatterId: string;
                            beforeCents: number;
                            afterCents: number;
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminDefinitionsGenerationsByNApply: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the generation number */
                n: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        generation: number;
                        /** @description live: its pipeline feeds the served read models; building: a preview catching up; ready: a preview caught up, can be applied; held: switched away from, kept (bring it up to date to switch back); dropped: its data is gone */
                        status: "live" | "building" | "ready" | "held" | "dropped" | "failed";
                        definitionsVersion: number;
                        values: {
                            /** @description SESSION_IDLE_SEC: the gap after which a session closes as idle */
                            sessionIdleSec: number;
                            /** @description ALLOWED_LATENESS_SEC: how late a record may arrive and still be placed exactly; less than sessionIdleSec */
                            allowedLatenessSec: number;
                            /** @description UNANSWERED_CLOSE_SEC: how long an unanswered fan keeps a session open (0: until answered) */
                            unansweredCloseSec: number;
                            /** @description ATTRIBUTION_LOOKBACK_SEC: the converter model's lookback */
                            attributionLookbackSec: number;
                            /** @description epoch ms: records received before it are measured by the business hours in force then (a preview asked for restateBusinessHours); absent: each by the schedule in force when it was received */
                            businessHoursRestatedAt?: number;
                        };
                        readModelVersion: number;
                        /** @description what was live when the preview started: it applies only over that */
                        basedOn: {
                            generation: number;
                            definitionsVersion: number;
                        };
                        createdAt: string | null;
                        createdBy: string;
                        /** @description null until first measured (each second) */
                        progress: {
                            /** @description inbound records its processor has still to step */
                            recordsBehind: number;
                            /** @description session events its projector has still to fold */
                            eventsBehind: number;
                            /** @description inbound records stepped since it (re)started */
                            recordsDone: number;
                            eventsDone: number;
                            recordsPerSec: number | null;
                            startedAt: string | null;
                            /** @description when it first had (nearly) nothing left; null: not yet, it cannot be applied */
                            caughtUpAt: string | null;
                            updatedAt: string | null;
                        } | null;
                        /** @description who did what, when */
                        audit: {
                            at: string | null;
                            by: string;
                            action: string;
                            detail: string | null;
                        }[];
                        error: string | null;
                        statusUrl: string;
                        diffUrl: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminDefinitionsGenerationsByNResume: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the generation number */
                n: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        generation: number;
                        /** @description live: its pipeline feeds the served read models; building: a preview catching up; ready: a preview caught up, can be applied; held: switched away from, kept (bring it up to date to switch back); dropped: its data is gone */
                        status: "live" | "building" | "ready" | "held" | "dropped" | "failed";
                        definitionsVersion: number;
                        values: {
                            /** @description SESSION_IDLE_SEC: the gap after which a session closes as idle */
                            sessionIdleSec: number;
                            /** @description ALLOWED_LATENESS_SEC: how late a record may arrive and still be placed exactly; less than sessionIdleSec */
                            allowedLatenessSec: number;
                            /** @description UNANSWERED_CLOSE_SEC: how long an unanswered fan keeps a session open (0: until answered) */
                            unansweredCloseSec: number;
                            /** @description ATTRIBUTION_LOOKBACK_SEC: the converter model's lookback */
                            attributionLookbackSec: number;
                            /** @description epoch ms: records received before it are measured by the business hours in force then (a preview asked for restateBusinessHours); absent: each by the schedule in force when it was received */
                            businessHoursRestatedAt?: number;
                        };
                        readModelVersion: number;
                        /** @description what was live when the preview started: it applies only over that */
                        basedOn: {
                            generation: number;
                            definitionsVersion: number;
                        };
                        createdAt: string | null;
                        createdBy: string;
                        /** @description null until first measured (each second) */
                        progress: {
                            /** @description inbound records its processor has still to step */
                            recordsBehind: number;
                            /** @description session events its projector has still to fold */
                            eventsBehind: number;
                            /** @description inbound records stepped since it (re)started */
                            recordsDone: number;
                            eventsDone: number;
                            recordsPerSec: number | null;
                            startedAt: string | null;
                            /** @description when it first had (nearly) nothing left; null: not yet, it cannot be applied */
                            caughtUpAt: string | null;
                            updatedAt: string | null;
                        } | null;
                        /** @description who did what, when */
                        audit: {
                            at: string | null;
                            by: string;
                            action: string;
                            detail: string | null;
                        }[];
                        error: string | null;
                        statusUrl: string;
                        diffUrl: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminVerify: {
        parameters: {
            query?: {
                /** @description one account (default: all) */
                accountId?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description no difference, no session event id with two contents, no rolled-back chat state or read-model gap waiting to be re-derived or re-derived without records the log no longer held */
                        ok: boolean;
                        accounts: number;
                        /** Format: date-time */
                        checkedAt: string;
                        differences: {
                            accountId: string;
                            /** @enum {string} */
                            figure: "sessionsOpened" | "sessionsClosed" | "chats" | "messages" | "fanMessages" | "paymentCount" | "revenueCents" | "directMessages" | "ppvsSent" | "ppvsUnlocked" | "ppvRevenueCents";
                            /** @description what disagrees with the documents: the totals rows, the report buckets (months) or the all-time buckets */
                            source: "totals" | "buckets" | "all-time";
                            /** @description the figure recomputed from the documents */
                            documents: number;
                            /** @description the figure the totals rows or the report buckets hold */
                            found: number;
                        }[];
                        /** @description chat states the store handed back older than the processor had stored (lost writes), newest first (20 listed) */
                        stateRollbacks: {
                            count: number;
                            unrecovered: number;
                            /** @description re-derived without records the log no longer held */
                            incomplete: number;
                            items: {
                                chatKey: string;
                                partition: number;
                                /** @description offset of the state the store handed back */
                                storedOffset: number;
                                storedSeq: number | null;
                                /** @description offset of the state the processor had stored, or of the last record the lost rounds had applied to the chat */
                                cachedOffset: number;
                                cachedSeq: number | null;
                                detectedAt: string;
                                /** @description when the chat was re-derived from inbound and stored again */
                                recoveredAt: string | null;
                                recordsRederived: number | null;
                                /** @description records of the range re-read that the log no longer held: the state went on without them */
                                recordsMissing: number;
                            }[];
                        };
                        /** @description read models found behind their applied mark (the store lost projector rounds the consumer group had committed) and folded again from session-events, newest first (20 listed); all accounts */
                        readModelHeals: {
                            count: number;
                            unrecovered: number;
                            /** @description folded again without events the log no longer held */
                            incomplete: number;
                            items: {
                                /** @description the read-model version */
                                version: number;
                                /** @description the session-events partition */
                                partition: number;
                                /** @description the applied mark found: the first offset folded again */
                                from: number;
                                /** @description where the consumer resumed */
                                to: number;
                                detectedAt: string;
                                /** @description when the round that folded the gap again was written */
                                recoveredAt: string | null;
                                /** @description events of the gap the log no longer held: the read models went on without them */
                                eventsMissing: number;
                            }[];
                        };
                        /** @description session event ids that came back with other content (set aside, not folded), newest first (20 listed) */
                        eventConflicts: {
                            count: number;
                            items: {
                                /** @description the set-aside id */
                                id: string;
                                eventId: string | null;
                                chatKey: string | null;
                                error: string;
                            }[];
                        };
                        /** @description which set is live: after a stop during a preview or a switch, either the old or the new, never a mix */
                        definitions: {
                            /** @description the live definitions generation: its pipeline feeds the read models served (one write switches both) */
                            generation: number;
                            readModelVersion: number;
                            /** @description a generation being previewed beside it (resumed after a restart); null: none */
                            previewing: number | null;
                            /** @description generations switched away from and kept */
                            held: number[];
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminBackup: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the backup folder on the server: copy it somewhere safe; to restore, stop convops and make a copy of it the DATA_DIR */
                        path: string;
                        name: string;
                        /** Format: date-time */
                        startedAt: string;
                        /** Format: date-time */
                        finishedAt: string;
                        bytes: number;
                        files: {
                            /** @description relative to the backup folder, as under DATA_DIR */
                            path: string;
                            bytes: number;
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminAlertHooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            url: string;
                            events: ("opened" | "acked" | "resolved")[];
                            /** @description only alerts of these accounts; null: every alert */
                            accountIds: string[] | null;
                            format: "standard" | "slack";
                            status: "active" | "disabled";
                            /** @description null: active */
                            disabledAt: string | null;
                            disabledBecause: string | null;
                            createdAt: string | null;
                            createdBy: string;
                            /** @description its latest delivery; null: none yet */
                            lastDelivery: {
                                /** @description the webhook-id sent with it (the same on every attempt) */
                                id: string;
                                event: "opened" | "acked" | "resolved";
                                alertId: string;
                                /** @description pending: first attempt or a retry is due; delivered: the receiver answered 2xx; failed: given up (retry window over, or destination refused); dropped: the hook was disabled first */
                                status: "pending" | "delivered" | "failed" | "dropped";
                                attempts: number;
                                /** @description when the alert changed */
                                transitionAt: string | null;
                                /** @description when it was queued for this hook */
                                createdAt: string | null;
                                /** @description null: not attempted yet */
                                lastAttemptAt: string | null;
                                /** @description null: no attempt is due */
                                nextAttemptAt: string | null;
                                /** @description the receiver's status on the last attempt; null when none came */
                                lastHttpStatus: number | null;
                                /** @description why the last attempt failed; null when it did not */
                                lastError: string | null;
                                /** @description when it was delivered, given up or dropped */
                                doneAt: string | null;
                            } | null;
                        }[];
                        count: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminAlertHooks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description http(s) URL; private, loopback and link-local destinations are refused unless ALERT_HOOK_ALLOW_PRIVATE=true */
                    url: string;
                    /** @description the transitions to send */
                    events: ("opened" | "acked" | "resolved")[];
                    /** @description only alerts of these accounts (alerts tied to no account, such as the pipeline's, are then not sent); omitted: every alert */
                    accountIds?: string[];
                    /**
                     * @description standard: a JSON event {type, timestamp, data}; slack: a Slack-compatible {"text": …}
                     * @default standard
                     */
                    format?: "standard" | "slack";
                };
            };
        };
        responses: {
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        url: string;
                        events: ("opened" | "acked" | "resolved")[];
                        /** @description only alerts of these accounts; null: every alert */
                        accountIds: string[] | null;
                        format: "standard" | "slack";
                        status: "active" | "disabled";
                        /** @description null: active */
                        disabledAt: string | null;
                        disabledBecause: string | null;
                        createdAt: string | null;
                        createdBy: string;
                        /** @description its latest delivery; null: none yet */
                        lastDelivery: {
                            /** @description the webhook-id sent with it (the same on every attempt) */
                            id: string;
                            event: "opened" | "acked" | "resolved";
                            alertId: string;
                            /** @description pending: first attempt or a retry is due; delivered: the receiver answered 2xx; failed: given up (retry window over, or destination refused); dropped: the hook was disabled first */
                            status: "pending" | "delivered" | "failed" | "dropped";
                            attempts: number;
                            /** @description when the alert changed */
                            transitionAt: string | null;
                            /** @description when it was queued for this hook */
                            createdAt: string | null;
                            /** @description null: not attempted yet */
                            lastAttemptAt: string | null;
                            /** @description null: no attempt is due */
                            nextAttemptAt: string | null;
                            /** @description the receiver's status on the last attempt; null when none came */
                            lastHttpStatus: number | null;
                            /** @description why the last attempt failed; null when it did not */
                            lastError: string | null;
                            /** @description when it was delivered, given up or dropped */
                            doneAt: string | null;
                        } | null;
                        /** @description whsec_ and the base64 signing key (Standard Webhooks); shown in this answer only */
                        secret: string;
                        note: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminAlertHooksById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the hook id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        url: string;
                        events: ("opened" | "acked" | "resolved")[];
                        /** @description only alerts of these accounts; null: every alert */
                        accountIds: string[] | null;
                        format: "standard" | "slack";
                        status: "active" | "disabled";
                        /** @description null: active */
                        disabledAt: string | null;
                        disabledBecause: string | null;
                        createdAt: string | null;
                        createdBy: string;
                        /** @description its latest delivery; null: none yet */
                        lastDelivery: {
                            /** @description the webhook-id sent with it (the same on every attempt) */
                            id: string;
                            event: "opened" | "acked" | "resolved";
                            alertId: string;
                            /** @description pending: first attempt or a retry is due; delivered: the receiver answered 2xx; failed: given up (retry window over, or destination refused); dropped: the hook was disabled first */
                            status: "pending" | "delivered" | "failed" | "dropped";
                            attempts: number;
                            /** @description when the alert changed */
                            transitionAt: string | null;
                            /** @description when it was queued for this hook */
                            createdAt: string | null;
                            /** @description null: not attempted yet */
                            lastAttemptAt: string | null;
                            /** @description null: no attempt is due */
                            nextAttemptAt: string | null;
                            /** @description the receiver's status on the last attempt; null when none came */
                            lastHttpStatus: number | null;
                            /** @description why the last attempt failed; null when it did not */
                            lastError: string | null;
                            /** @description when it was delivered, given up or dropped */
                            doneAt: string | null;
                        } | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    deleteAdminAlertHooksById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the hook id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        url: string;
                        events: ("opened" | "acked" | "resolved")[];
                        /** @description only alerts of these accounts; null: every alert */
                        accountIds: string[] | null;
                        format: "standard" | "slack";
                        status: "active" | "disabled";
                        /** @description null: active */
                        disabledAt: string | null;
                        disabledBecause: string | null;
                        createdAt: string | null;
                        createdBy: string;
                        /** @description its latest delivery; null: none yet */
                        lastDelivery: {
                            /** @description the webhook-id sent with it (the same on every attempt) */
                            id: string;
                            event: "opened" | "acked" | "resolved";
                            alertId: string;
                            /** @description pending: first attempt or a retry is due; delivered: the receiver answered 2xx; failed: given up (retry window over, or destination refused); dropped: the hook was disabled first */
                            status: "pending" | "delivered" | "failed" | "dropped";
                            attempts: number;
                            /** @description when the alert changed */
                            transitionAt: string | null;
                            /** @description when it was queued for this hook */
                            createdAt: string | null;
                            /** @description null: not attempted yet */
                            lastAttemptAt: string | null;
                            /** @description null: no attempt is due */
                            nextAttemptAt: string | null;
                            /** @description the receiver's status on the last attempt; null when none came */
                            lastHttpStatus: number | null;
                            /** @description why the last attempt failed; null when it did not */
                            lastError: string | null;
                            /** @description when it was delivered, given up or dropped */
                            doneAt: string | null;
                        } | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminAlertHooksByIdEnable: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the hook id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        url: string;
                        events: ("opened" | "acked" | "resolved")[];
                        /** @description only alerts of these accounts; null: every alert */
                        accountIds: string[] | null;
                        format: "standard" | "slack";
                        status: "active" | "disabled";
                        /** @description null: active */
                        disabledAt: string | null;
                        disabledBecause: string | null;
                        createdAt: string | null;
                        createdBy: string;
                        /** @description its latest delivery; null: none yet */
                        lastDelivery: {
                            /** @description the webhook-id sent with it (the same on every attempt) */
                            id: string;
                            event: "opened" | "acked" | "resolved";
                            alertId: string;
                            /** @description pending: first attempt or a retry is due; delivered: the receiver answered 2xx; failed: given up (retry window over, or destination refused); dropped: the hook was disabled first */
                            status: "pending" | "delivered" | "failed" | "dropped";
                            attempts: number;
                            /** @description when the alert changed */
                            transitionAt: string | null;
                            /** @description when it was queued for this hook */
                            createdAt: string | null;
                            /** @description null: not attempted yet */
                            lastAttemptAt: string | null;
                            /** @description null: no attempt is due */
                            nextAttemptAt: string | null;
                            /** @description the receiver's status on the last attempt; null when none came */
                            lastHttpStatus: number | null;
                            /** @description why the last attempt failed; null when it did not */
                            lastError: string | null;
                            /** @description when it was delivered, given up or dropped */
                            doneAt: string | null;
                        } | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminAlertHooksByIdTest: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description the hook id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the receiver answered 2xx */
                        delivered: boolean;
                        webhookId: string;
                        /** @description null when no answer came */
                        httpStatus: number | null;
                        error: string | null;
                        /** @description how long the attempt took */
                        ms: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminAlertHooksByIdDeliveries: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path: {
                /** @description the hook id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            /** @description the webhook-id sent with it (the same on every attempt) */
                            id: string;
                            event: "opened" | "acked" | "resolved";
                            alertId: string;
                            /** @description pending: first attempt or a retry is due; delivered: the receiver answered 2xx; failed: given up (retry window over, or destination refused); dropped: the hook was disabled first */
                            status: "pending" | "delivered" | "failed" | "dropped";
                            attempts: number;
                            /** @description when the alert changed */
                            transitionAt: string | null;
                            /** @description when it was queued for this hook */
                            createdAt: string | null;
                            /** @description null: not attempted yet */
                            lastAttemptAt: string | null;
                            /** @description null: no attempt is due */
                            nextAttemptAt: string | null;
                            /** @description the receiver's status on the last attempt; null when none came */
                            lastHttpStatus: number | null;
                            /** @description why the last attempt failed; null when it did not */
                            lastError: string | null;
                            /** @description when it was delivered, given up or dropped */
                            doneAt: string | null;
                        }[];
                        count: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminAccounts: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the platform account id, acct_ and 32 hex digits */
                    id: string;
                    displayName: string;
                    status?: "connected" | "pending-auth" | "disconnected";
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the platform account id */
                        id: string;
                        displayName: string;
                        status: "connected" | "pending-auth" | "disconnected";
                        /** @description how it was registered: by hand, synced from the platform, or the demo seed */
                        source: "manual" | "synced" | "demo";
                        /** @description the creator's username on the platform, when synced */
                        username: string | null;
                        createdAt: string | null;
                        updatedAt: string | null;
                    };
                };
            };
            /** @description Default Response */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the platform account id */
                        id: string;
                        displayName: string;
                        status: "connected" | "pending-auth" | "disconnected";
                        /** @description how it was registered: by hand, synced from the platform, or the demo seed */
                        source: "manual" | "synced" | "demo";
                        /** @description the creator's username on the platform, when synced */
                        username: string | null;
                        createdAt: string | null;
                        updatedAt: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminAccountsSeed: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description how many demo accounts were registered or updated */
                        seeded: number;
                        accounts: {
                            /** @description the platform account id */
                            id: string;
                            displayName: string;
                            status: "connected" | "pending-auth" | "disconnected";
                            /** @description how it was registered: by hand, synced from the platform, or the demo seed */
                            source: "manual" | "synced" | "demo";
                            /** @description the creator's username on the platform, when synced */
                            username: string | null;
                            createdAt: string | null;
                            updatedAt: string | null;
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminAccountsSync: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description how many platform accounts were registered or updated */
                        synced: number;
                        accounts: {
                            /** @description the platform account id */
                            id: string;
                            displayName: string;
                            status: "connected" | "pending-auth" | "disconnected";
                            /** @description how it was registered: by hand, synced from the platform, or the demo seed */
                            source: "manual" | "synced" | "demo";
                            /** @description the creator's username on the platform, when synced */
                            username: string | null;
                            createdAt: string | null;
                            updatedAt: string | null;
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            502: components["responses"]["PlatformError"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminAccountsAuthStart: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    email: string;
                    password: string;
                    name?: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the platform's attempt id: poll it */
                        attemptId: string;
                        /** @description the platform's message, if any */
                        message: string | null;
                        /** @enum {string} */
                        next: "POST /api/admin/accounts/auth/poll";
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            502: components["responses"]["PlatformError"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminAccountsAuthPoll: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the attempt id POST /api/admin/accounts/auth answered */
                    attemptId: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the attempt's state as the platform gives it (authenticated once connected) */
                        state: string | null;
                        /** @description the platform's progress step, e.g. signing_in, needs_otp, signed_in */
                        progress: string | null;
                        /** @description the platform waits for the two-factor code */
                        needsOtp: boolean;
                        /** @description the account, registered once the attempt is authenticated */
                        account: {
                            /** @description the platform account id */
                            id: string;
                            displayName: string;
                            status: "connected" | "pending-auth" | "disconnected";
                            /** @description how it was registered: by hand, synced from the platform, or the demo seed */
                            source: "manual" | "synced" | "demo";
                            /** @description the creator's username on the platform, when synced */
                            username: string | null;
                            createdAt: string | null;
                            updatedAt: string | null;
                        } | null;
                        /** @description what to call next (null: done) */
                        next: "POST /api/admin/accounts/auth/2fa" | "POST /api/admin/accounts/auth/poll" | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            502: components["responses"]["PlatformError"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminAccountsAuth2fa: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description the attempt id POST /api/admin/accounts/auth answered */
                    attemptId: string;
                    code: string;
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        submitted: true;
                        /** @description the platform's message, if any */
                        message: string | null;
                        /** @enum {string} */
                        next: "POST /api/admin/accounts/auth/poll";
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            502: components["responses"]["PlatformError"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminAccountsByIdDisconnect: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description the platform account id */
                        id: string;
                        displayName: string;
                        status: "connected" | "pending-auth" | "disconnected";
                        /** @description how it was registered: by hand, synced from the platform, or the demo seed */
                        source: "manual" | "synced" | "demo";
                        /** @description the creator's username on the platform, when synced */
                        username: string | null;
                        createdAt: string | null;
                        updatedAt: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminAccountsByIdBusinessHours: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a registered account id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accountId: string;
                        /** @description the zone's canonical id */
                        timezone: string;
                        /** @description every day, its intervals in order ([] closed) */
                        weekly: {
                            mon: string[][];
                            tue: string[][];
                            wed: string[][];
                            thu: string[][];
                            fri: string[][];
                            sat: string[][];
                            sun: string[][];
                        };
                        /** @description sorted */
                        holidays: string[];
                        updatedAt: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    putAdminAccountsByIdBusinessHours: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a registered account id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description an IANA time zone (Europe/Berlin) or an offset (+01:00): the clock the hours are on */
                    timezone: string;
                    /** @description mon … sun; a day left out is closed */
                    weekly: {
                        /** @description open intervals, at most 6, none overlapping; [] (or the day left out) is closed */
                        mon?: string[][];
                        /** @description open intervals, at most 6, none overlapping; [] (or the day left out) is closed */
                        tue?: string[][];
                        /** @description open intervals, at most 6, none overlapping; [] (or the day left out) is closed */
                        wed?: string[][];
                        /** @description open intervals, at most 6, none overlapping; [] (or the day left out) is closed */
                        thu?: string[][];
                        /** @description open intervals, at most 6, none overlapping; [] (or the day left out) is closed */
                        fri?: string[][];
                        /** @description open intervals, at most 6, none overlapping; [] (or the day left out) is closed */
                        sat?: string[][];
                        /** @description open intervals, at most 6, none overlapping; [] (or the day left out) is closed */
                        sun?: string[][];
                    };
                    /** @description local dates closed all day, at most 400 */
                    holidays?: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accountId: string;
                        /** @description the zone's canonical id */
                        timezone: string;
                        /** @description every day, its intervals in order ([] closed) */
                        weekly: {
                            mon: string[][];
                            tue: string[][];
                            wed: string[][];
                            thu: string[][];
                            fri: string[][];
                            sat: string[][];
                            sun: string[][];
                        };
                        /** @description sorted */
                        holidays: string[];
                        updatedAt: string | null;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    deleteAdminAccountsByIdBusinessHours: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a registered account id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accountId: string;
                        /** @description whether it had a schedule */
                        removed: boolean;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminAccountsByIdBannedPhrases: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a registered account id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accountId: string;
                        /** @description the list in force now, as kept (lower case, single spaces) */
                        phrases: string[];
                        /** @description every list kept (the latest 50), newest first */
                        history: {
                            /** @description in force for replies received from this time */
                            from: string | null;
                            /** @description who set it */
                            by: string;
                            phrases: string[];
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    putAdminAccountsByIdBannedPhrases: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description a registered account id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description at most 200; each matched ignoring case and runs of white space, on word edges; 2–100 characters */
                    phrases: string[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        accountId: string;
                        /** @description the list in force now, as kept (lower case, single spaces) */
                        phrases: string[];
                        /** @description every list kept (the latest 50), newest first */
                        history: {
                            /** @description in force for replies received from this time */
                            from: string | null;
                            /** @description who set it */
                            by: string;
                            phrases: string[];
                        }[];
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminBackfill: {
        parameters: {
            query?: {
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            kind: "backfill" | "backfill-transactions";
                            state: "running" | "done" | "failed";
                            /** @description the accounts it pulls, in order */
                            accountIds: string[];
                            /** @description pulls history from this time */
                            since: string | null;
                            progress: {
                                /** @description index in accountIds of the account being pulled */
                                accountIndex: number;
                                /** @description next chats page of the current account (null: its first page) */
                                chatsPage: string | null;
                                /** @description chats of that page already done */
                                chatIndex: number;
                                chats: number;
                                messages: number;
                                transactions: number;
                                /** @description requests made to the platform */
                                requests: number;
                                /** @description time spent waiting out rate limits and backoffs */
                                waitedMs: number;
                            };
                            /** @description the latest errors (at most 20 kept) */
                            errors: {
                                at: string | null;
                                message: string;
                            }[];
                            startedAt: string | null;
                            /** @description the runner's last heartbeat */
                            updatedAt: string | null;
                            /** @description null while it runs */
                            finishedAt: string | null;
                            /** @description where to follow it */
                            statusUrl: string;
                        }[];
                        count: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminBackfill: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description one account (default: every authenticated account of the key) */
                    accountId?: string;
                    /**
                     * Format: date-time
                     * @description from this time (default: 30 days ago)
                     */
                    since?: string;
                } | null;
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        kind: "backfill" | "backfill-transactions";
                        state: "running" | "done" | "failed";
                        /** @description the accounts it pulls, in order */
                        accountIds: string[];
                        /** @description pulls history from this time */
                        since: string | null;
                        progress: {
                            /** @description index in accountIds of the account being pulled */
                            accountIndex: number;
                            /** @description next chats page of the current account (null: its first page) */
                            chatsPage: string | null;
                            /** @description chats of that page already done */
                            chatIndex: number;
                            chats: number;
                            messages: number;
                            transactions: number;
                            /** @description requests made to the platform */
                            requests: number;
                            /** @description time spent waiting out rate limits and backoffs */
                            waitedMs: number;
                        };
                        /** @description the latest errors (at most 20 kept) */
                        errors: {
                            at: string | null;
                            message: string;
                        }[];
                        startedAt: string | null;
                        /** @description the runner's last heartbeat */
                        updatedAt: string | null;
                        /** @description null while it runs */
                        finishedAt: string | null;
                        /** @description where to follow it */
                        statusUrl: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            502: components["responses"]["PlatformError"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminBackfillTransactions: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @description one account (default: every authenticated account of the key) */
                    accountId?: string;
                    /**
                     * Format: date-time
                     * @description from this time (default: 30 days ago)
                     */
                    since?: string;
                } | null;
            };
        };
        responses: {
            /** @description Default Response */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        kind: "backfill" | "backfill-transactions";
                        state: "running" | "done" | "failed";
                        /** @description the accounts it pulls, in order */
                        accountIds: string[];
                        /** @description pulls history from this time */
                        since: string | null;
                        progress: {
                            /** @description index in accountIds of the account being pulled */
                            accountIndex: number;
                            /** @description next chats page of the current account (null: its first page) */
                            chatsPage: string | null;
                            /** @description chats of that page already done */
                            chatIndex: number;
                            chats: number;
                            messages: number;
                            transactions: number;
                            /** @description requests made to the platform */
                            requests: number;
                            /** @description time spent waiting out rate limits and backoffs */
                            waitedMs: number;
                        };
                        /** @description the latest errors (at most 20 kept) */
                        errors: {
                            at: string | null;
                            message: string;
                        }[];
                        startedAt: string | null;
                        /** @description the runner's last heartbeat */
                        updatedAt: string | null;
                        /** @description null while it runs */
                        finishedAt: string | null;
                        /** @description where to follow it */
                        statusUrl: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            502: components["responses"]["PlatformError"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getAdminBackfillById: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        kind: "backfill" | "backfill-transactions";
                        state: "running" | "done" | "failed";
                        /** @description the accounts it pulls, in order */
                        accountIds: string[];
                        /** @description pulls history from this time */
                        since: string | null;
                        progress: {
                            /** @description index in accountIds of the account being pulled */
                            accountIndex: number;
                            /** @description next chats page of the current account (null: its first page) */
                            chatsPage: string | null;
                            /** @description chats of that page already done */
                            chatIndex: number;
                            chats: number;
                            messages: number;
                            transactions: number;
                            /** @description requests made to the platform */
                            requests: number;
                            /** @description time spent waiting out rate limits and backoffs */
                            waitedMs: number;
                        };
                        /** @description the latest errors (at most 20 kept) */
                        errors: {
                            at: string | null;
                            message: string;
                        }[];
                        startedAt: string | null;
                        /** @description the runner's last heartbeat */
                        updatedAt: string | null;
                        /** @description null while it runs */
                        finishedAt: string | null;
                        /** @description where to follow it */
                        statusUrl: string;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            404: components["responses"]["NotFound"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postDemoIngest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    records: {
                        /** @description the raw platform webhook body, exactly as signed */
                        body: string;
                        /** @description hex HMAC-SHA256 of body with the demo secret */
                        signature: string;
                        idempotencyKey: string;
                        /** @description who sent an outbound message, as the connector reports it: 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit */
                        chatterId?: string;
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description records appended to the inbound log */
                        accepted: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminSeedDemo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /**
                     * @description recent (default): every time moves by one offset so the latest record is 3 minutes old; original: the times as shipped
                     * @default recent
                     */
                    timeline?: "recent" | "original";
                } | null;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "seeded";
                        /** @description fixture records appended */
                        records: number;
                        /** @description the demo accounts, registered with their names */
                        accounts: {
                            id: string;
                            displayName: string;
                        }[];
                        timeline: "recent" | "original";
                        /** @description how far every time was moved (0 for original) */
                        shiftedBySec: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postAdminPurgeDemo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    /** @default false */
                    full?: boolean;
                } | null;
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "purged";
                        /** @description the demo accounts removed */
                        accounts: string[];
                        /** @description documents removed, per collection (a read model by its name, summed over its stored versions) */
                        removed: {
                            [key: string]: number;
                        };
                    } | {
                        /** @enum {string} */
                        status: "reset";
                        /** @description the collections dropped: every stored read-model version, and the processing state (chat states and their ledger, set-aside records, alerts, analyses, event digests...) */
                        droppedCollections: string[];
                        /** @description per topic (inbound, session events) and partition, the offset its consumer group now starts from: the end of the log at the reset */
                        skippedTo: {
                            [key: string]: {
                                [key: string]: number;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            409: components["responses"]["Conflict"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    postConnectorIngest: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description 1 to 100 letters, digits, '_', '.' or '-', starting with a letter or digit */
                    accountId: string;
                    messages: {
                        /** @description a platform id, as a decimal string */
                        chatId: string;
                        /** @description a platform id, as a decimal string */
                        messageId: string;
                        text: string;
                        /** Format: date-time */
                        sentAt: string;
                        /** @description 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit */
                        chatterId: string;
                        automated?: boolean;
                    }[];
                };
            };
        };
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @description messages appended to the inbound log */
                        accepted: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            404: components["responses"]["NotFound"];
            413: components["responses"]["PayloadTooLarge"];
            415: components["responses"]["UnsupportedMediaType"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getMetrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            403: components["responses"]["Forbidden"];
            429: components["responses"]["RateLimited"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getHealthLive: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {string} */
                        status: "live";
                        /** @description seconds since the process started */
                        uptimeSec: number;
                        /** @description p99 event-loop delay since the last probe, to a tenth of a millisecond */
                        eventLoopDelayP99Ms: number;
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            503: components["responses"]["NotReady"];
            default: components["responses"]["Error"];
        };
    };
    getHealthReady: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        status: "ready" | "not ready";
                        ready: boolean;
                        /** @description the roles this process runs (ROLES) */
                        roles: ("api" | "processor" | "projector" | "intelligence")[];
                        /** @description why not ready, in words an operator can act on; empty when ready */
                        reasons: string[];
                        checks: {
                            /** @description the log answers */
                            log: boolean;
                            /** @description per consuming role this process runs (processor, projector, intelligence): whether its consumer runs */
                            consumers: {
                                [key: string]: boolean;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            /** @description not ready, with the reasons */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        status: "ready" | "not ready";
                        ready: boolean;
                        /** @description the roles this process runs (ROLES) */
                        roles: ("api" | "processor" | "projector" | "intelligence")[];
                        /** @description why not ready, in words an operator can act on; empty when ready */
                        reasons: string[];
                        checks: {
                            /** @description the log answers */
                            log: boolean;
                            /** @description per consuming role this process runs (processor, projector, intelligence): whether its consumer runs */
                            consumers: {
                                [key: string]: boolean;
                            };
                        };
                    };
                };
            };
            default: components["responses"]["Error"];
        };
    };
    getHealth: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Default Response */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        status: "ok" | "degraded";
                        /** @description the log and the store answer (503 when not) */
                        ready: boolean;
                        problems: {
                            component: string;
                            reason: string;
                            since: string | null;
                            group?: string;
                        }[];
                        components: {
                            log: {
                                ok: boolean;
                                kind: string;
                            };
                            store: {
                                ok: boolean;
                                kind: string;
                            };
                            processor: {
                                enabled: boolean;
                                /** @description records its consumer group has not consumed; null when the log does not answer or the group has no commit yet */
                                lag: number | null;
                                /** @description webhook received → done, over the last seconds; measured where the role runs (null elsewhere) */
                                freshness: {
                                    windowSec: number;
                                    samples: number;
                                    p50Ms: number | null;
                                    p99Ms: number | null;
                                    maxMs: number | null;
                                } | null;
                            };
                            projector: {
                                enabled: boolean;
                                /** @description records its consumer group has not consumed; null when the log does not answer or the group has no commit yet */
                                lag: number | null;
                                /** @description webhook received → done, over the last seconds; measured where the role runs (null elsewhere) */
                                freshness: {
                                    windowSec: number;
                                    samples: number;
                                    p50Ms: number | null;
                                    p99Ms: number | null;
                                    maxMs: number | null;
                                } | null;
                            };
                            platformApi: {
                                configured: boolean;
                                ready: boolean;
                            };
                            intelligence: {
                                enabled: boolean;
                                /** @description records its consumer group has not consumed; null when the log does not answer or the group has no commit yet */
                                lag: number | null;
                                rules: boolean;
                                model: {
                                    /** @enum {boolean} */
                                    enabled: true;
                                    model: string;
                                } | {
                                    /** @enum {boolean} */
                                    enabled: false;
                                    reason: string;
                                };
                            };
                        };
                        config: {
                            webhookSecretConfigured: boolean;
                            adminTokenConfigured: boolean;
                            readAuth: "open" | "required";
                        };
                        access: {
                            reads: "open" | "required";
                            message: string;
                        };
                        counters: {
                            /** @description this process's processor (null when it runs elsewhere) */
                            processor: {
                                recordsApplied: number;
                                recordsSkippedAsApplied: number;
                                recordsDuplicate: number;
                                recordsWithoutRouting: number;
                                ticks: number;
                                eventsEmitted: number;
                                batchesFenced: number;
                                recordsSetAside: number;
                                slowSteps: number;
                                stateRollbacks: number;
                                recordsRederived: number;
                                /** @description webhook received → done, over the last seconds; measured where the role runs (null elsewhere) */
                                freshness: {
                                    windowSec: number;
                                    samples: number;
                                    p50Ms: number | null;
                                    p99Ms: number | null;
                                    maxMs: number | null;
                                } | null;
                            } | null;
                            /** @description this process's projector (null when it runs elsewhere) */
                            projector: {
                                eventsApplied: number;
                                eventsUnreadable: number;
                                eventsSetAside: number;
                                eventsConflicting: number;
                                batches: number;
                                /** @description sessions closed in the read models at their deadline, ahead of the processor's close (embedded store only) */
                                sessionsSwept: number;
                                /** @description webhook received → done, over the last seconds; measured where the role runs (null elsewhere) */
                                freshness: {
                                    windowSec: number;
                                    samples: number;
                                    p50Ms: number | null;
                                    p99Ms: number | null;
                                    maxMs: number | null;
                                } | null;
                            } | null;
                            setAside: {
                                /** @description records set aside in the store (null when it does not answer) */
                                stored: number | null;
                            };
                        };
                    };
                };
            };
            400: components["responses"]["InvalidInput"];
            401: components["responses"]["Unauthorized"];
            429: components["responses"]["RateLimited"];
            /** @description not ready: the log or the store does not answer; the body says which */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        status: "ok" | "degraded";
                        /** @description the log and the store answer (503 when not) */
                        ready: boolean;
                        problems: {
                            component: string;
                            reason: string;
                            since: string | null;
                            group?: string;
                        }[];
                        components: {
                            log: {
                                ok: boolean;
                                kind: string;
                            };
                            store: {
                                ok: boolean;
                                kind: string;
                            };
                            processor: {
                                enabled: boolean;
                                /** @description records its consumer group has not consumed; null when the log does not answer or the group has no commit yet */
                                lag: number | null;
                                /** @description webhook received → done, over the last seconds; measured where the role runs (null elsewhere) */
                                freshness: {
                                    windowSec: number;
                                    samples: number;
                                    p50Ms: number | null;
                                    p99Ms: number | null;
                                    maxMs: number | null;
                                } | null;
                            };
                            projector: {
                                enabled: boolean;
                                /** @description records its consumer group has not consumed; null when the log does not answer or the group has no commit yet */
                                lag: number | null;
                                /** @description webhook received → done, over the last seconds; measured where the role runs (null elsewhere) */
                                freshness: {
                                    windowSec: number;
                                    samples: number;
                                    p50Ms: number | null;
                                    p99Ms: number | null;
                                    maxMs: number | null;
                                } | null;
                            };
                            platformApi: {
                                configured: boolean;
                                ready: boolean;
                            };
                            intelligence: {
                                enabled: boolean;
                                /** @description records its consumer group has not consumed; null when the log does not answer or the group has no commit yet */
                                lag: number | null;
                                rules: boolean;
                                model: {
                                    /** @enum {boolean} */
                                    enabled: true;
                                    model: string;
                                } | {
                                    /** @enum {boolean} */
                                    enabled: false;
                                    reason: string;
                                };
                            };
                        };
                        config: {
                            webhookSecretConfigured: boolean;
                            adminTokenConfigured: boolean;
                            readAuth: "open" | "required";
                        };
                        access: {
                            reads: "open" | "required";
                            message: string;
                        };
                        counters: {
                            /** @description this process's processor (null when it runs elsewhere) */
                            processor: {
                                recordsApplied: number;
                                recordsSkippedAsApplied: number;
                                recordsDuplicate: number;
                                recordsWithoutRouting: number;
                                ticks: number;
                                eventsEmitted: number;
                                batchesFenced: number;
                                recordsSetAside: number;
                                slowSteps: number;
                                stateRollbacks: number;
                                recordsRederived: number;
                                /** @description webhook received → done, over the last seconds; measured where the role runs (null elsewhere) */
                                freshness: {
                                    windowSec: number;
                                    samples: number;
                                    p50Ms: number | null;
                                    p99Ms: number | null;
                                    maxMs: number | null;
                                } | null;
                            } | null;
                            /** @description this process's projector (null when it runs elsewhere) */
                            projector: {
                                eventsApplied: number;
                                eventsUnreadable: number;
                                eventsSetAside: number;
                                eventsConflicting: number;
                                batches: number;
                                /** @description sessions closed in the read models at their deadline, ahead of the processor's close (embedded store only) */
                                sessionsSwept: number;
                                /** @description webhook received → done, over the last seconds; measured where the role runs (null elsewhere) */
                                freshness: {
                                    windowSec: number;
                                    samples: number;
                                    p50Ms: number | null;
                                    p99Ms: number | null;
                                    maxMs: number | null;
                                } | null;
                            } | null;
                            setAside: {
                                /** @description records set aside in the store (null when it does not answer) */
                                stored: number | null;
                            };
                        };
                    };
                };
            };
            default: components["responses"]["Error"];
        };
    };
    alertHookDelivery: {
        parameters: {
            query?: never;
            header: {
                /** @description one per transition (the same for every hook), the same on every retry */
                "webhook-id": string;
                /** @description seconds since the epoch of this attempt */
                "webhook-timestamp": string;
                /** @description v1,<base64 HMAC-SHA256> */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    type: "alert.opened" | "alert.acked" | "alert.resolved";
                    /**
                     * Format: date-time
                     * @description when the alert changed
                     */
                    timestamp: string;
                    data: {
                        /** @description the alert id */
                        id: string;
                        ruleId: string;
                        severity: "info" | "warning" | "critical";
                        reason: string;
                        recommendation: string;
                        labels: string[];
                        /** @description null: tied to no account (the pipeline, a disabled hook, a chatter) */
                        accountId: string | null;
                        sessionId: string | null;
                        chatId: string | null;
                        chatterId: string | null;
                        /** @description who acknowledged it, once acknowledged */
                        ackedBy: string | null;
                        event: "opened" | "acked" | "resolved";
                        /** @description the webhook-id header: the same on every retry */
                        eventId: string;
                    };
                } | {
                    /** @constant */
                    type: "alert.test";
                    /** Format: date-time */
                    timestamp: string;
                    data: {
                        eventId: string;
                    };
                } | {
                    text: string;
                };
            };
        };
        responses: {
            /** @description taken (any 2xx is) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description not taken: any answer other than 2xx (a 3xx too: redirects are not followed) is retried with backoff, for at least an hour */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
