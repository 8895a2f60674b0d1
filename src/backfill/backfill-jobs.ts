// Backfill jobs: pull history from the platform's REST API into `inbound`, like any other
// source. A job returns its id at once; its progress and errors are stored as it goes, a job
// whose process stopped resumes where it stopped (re-appending a chat already sent is
// harmless: the machine counts a message or a payment once), and a second identical job
// while one runs is refused.
// One runner per job: the job document is a lease (adapters/store/lease.ts) its runner holds
// by creating the job, or by taking it over once stale; the runner renews it on a timer (so
// rate-limit waits do not make it look dead), and writes progress only while it still holds
// it, stopping once it does not.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { AppendRecord } from '../adapters/log/log.js';
import { DuplicateKeyError, type Collection, type Doc, type DocumentStore } from '../adapters/store/store.js';
import { Lease } from '../adapters/store/lease.js';
import type { PlatformClient } from '../adapters/platform/platform-client.js';
import { messageRecord, transactionRecord } from '../domain/backfill-records.js';
import { historyCompleteRecords } from '../domain/inbound-record.js';
import { idString, isObject, type JsonObject } from '../domain/json.js';
import { parsePlatformTime } from '../domain/time.js';
import type { Logger } from '../support/logger.js';
import { JOBS_COLLECTION } from '../support/jobs.js';

export type BackfillKind = 'backfill' | 'backfill-transactions';
export type BackfillState = 'running' | 'done' | 'failed';

export interface BackfillJobDoc extends Doc {
  readonly kind: BackfillKind;
  state: BackfillState;
  /** What makes two jobs "the same": kind, accounts and start time. */
  readonly identity: string;
  readonly accountIds: readonly string[];
  readonly since: number;
  progress: {
    accountIndex: number;
    /** Next chats page of the current account (null: its first page). */
    chatsPage: string | null;
    /** Chats of that page already done. */
    chatIndex: number;
    chats: number;
    messages: number;
    transactions: number;
    requests: number;
    waitedMs: number;
  };
  errors: { at: number; message: string }[];
  readonly startedAt: number;
  heartbeatAt: number;
  finishedAt: number | null;
  /** The runner that may write it; absent on jobs from before owners were recorded. */
  owner?: string | null;
}

/** One per identity, naming the latest job of that identity: starting a job takes it over. */
interface BackfillLockDoc extends Doc {
  readonly kind: 'backfill-lock';
  jobId: string;
  at: number;
}

/** A job this runner runs, its claim, and whether it still holds it. */
interface Run {
  readonly job: BackfillJobDoc;
  readonly claim: Lease;
  lost: boolean;
}

export class BackfillConflict extends Error {}

export class BackfillJobs {
  private readonly store: DocumentStore;
  private readonly jobs: Collection<BackfillJobDoc>;
  private readonly locks: Collection<BackfillLockDoc>;
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;
  /** This runner's identity in `owner`. */
  readonly owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly beatMs: number;

  constructor(
    store: DocumentStore,
    private readonly client: PlatformClient,
    private readonly append: (records: AppendRecord[]) => Promise<void>,
    private readonly logger: Logger,
    /** A running job whose heartbeat is older than this died with its process. */
    readonly staleMs = 30_000,
  ) {
    this.store = store;
    this.jobs = store.collection<BackfillJobDoc>(JOBS_COLLECTION);
    this.locks = store.collection<BackfillLockDoc>(JOBS_COLLECTION);
    this.beatMs = Math.max(50, Math.min(10_000, Math.floor(staleMs / 3)));
  }

  get(id: string): Promise<BackfillJobDoc | null> {
    return this.jobs.findOne({ _id: id, kind: { $in: ['backfill', 'backfill-transactions'] } });
  }

  list(limit: number): Promise<BackfillJobDoc[]> {
    return this.jobs.find({ kind: { $in: ['backfill', 'backfill-transactions'] } }, { sort: { startedAt: -1 }, limit });
  }

  async start(kind: BackfillKind, accountIds: readonly string[], since: number): Promise<BackfillJobDoc> {
    const identity = `${kind}|${[...accountIds].sort().join(',')}|${since}`;
    const now = Date.now();
    const job: BackfillJobDoc = {
      _id: `${kind}-${now}-${randomUUID().slice(0, 8)}`, kind, state: 'running', identity, accountIds: [...accountIds], since,
      progress: { accountIndex: 0, chatsPage: null, chatIndex: 0, chats: 0, messages: 0, transactions: 0, requests: 0, waitedMs: 0 },
      errors: [], startedAt: now, heartbeatAt: now, finishedAt: null, owner: this.owner,
    };
    await this.takeIdentity(kind, identity, job._id, now);
    await this.jobs.insertOne(job);
    this.launch(job);
    return job;
  }

  /**
   * Makes `jobId` the job of `identity`, or refuses with BackfillConflict while another job of
   * it runs (or, stale, waits to be resumed). Each way in is one conditional write: inserting
   * the identity's lock, or moving it from the job read to this one.
   *
   * The lock is not a Lease (adapters/store/lease.ts): nobody renews it, and whether it is free
   * is read from the job it names, not from its age. A running job holds it however stale (it
   * waits to be resumed, and a second identical job would run beside it), and a job that ended a
   * moment ago frees it at once; only a lock whose job was never written frees by time. A lease
   * frees by age alone, so on it either a stale job would lose its identity or an ended one keep
   * it for `staleMs`, and the runner would have to beat and release a second document.
   */
  private async takeIdentity(kind: BackfillKind, identity: string, jobId: string, now: number): Promise<void> {
    const _id = `backfill-lock:${identity}`;
    try {
      await this.locks.insertOne({ _id, kind: 'backfill-lock', jobId, at: now });
      return;
    } catch (err) {
      if (!(err instanceof DuplicateKeyError)) throw err;
    }
    const lock = await this.locks.findOne({ _id });
    const holder = lock ? await this.get(lock.jobId) : null;
    const conflict = () => new BackfillConflict(`an identical ${kind} job is still running (${lock?.jobId ?? 'just started'}); wait for it or follow its progress`);
    if (!lock || holder?.state === 'running') throw conflict();
    // A lock without its job: a start that is writing it now, or one that died before it could.
    if (!holder && now - lock.at < this.staleMs) throw conflict();
    const r = await this.locks.updateOne({ _id, jobId: lock.jobId }, { $set: { jobId, at: now } });
    if (r.matched !== 1) throw conflict();
  }

  /** A job's claim: held by the runner named in `owner` while the job runs. */
  private claim(jobId: string): Lease {
    return new Lease(this.store, { collection: JOBS_COLLECTION, id: jobId, staleMs: this.staleMs, ownerField: 'owner', beatField: 'heartbeatAt', where: { state: 'running' } });
  }

  /**
   * Picks up jobs whose process stopped, from where they stopped. A claim takes the job's lease
   * over in one conditional write: of runners that see the same stale job, one claims it.
   */
  async resumeStale(): Promise<string[]> {
    const now = Date.now();
    const stale = (await this.jobs.find({ kind: { $in: ['backfill', 'backfill-transactions'] }, state: 'running' }))
      .filter((j) => !this.running.has(j._id) && now - j.heartbeatAt >= this.staleMs);
    const claimed: string[] = [];
    for (const j of stale) {
      if (!(await this.claim(j._id).acquire(this.owner)) || this.running.has(j._id)) continue;
      const taken = await this.jobs.findOne({ _id: j._id });
      if (!taken || taken.owner !== this.owner) continue;
      this.logger.info({ job: j._id, previousOwner: j.owner ?? null }, 'resuming a backfill job whose runner stopped');
      this.launch(taken);
      claimed.push(j._id);
    }
    return claimed;
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled(this.running.values());
  }

  private launch(job: BackfillJobDoc): void {
    const run: Run = { job, lost: false, claim: this.claim(job._id) };
    let beating: Promise<void> | null = null;
    const timer = setInterval(() => {
      beating ??= run.claim.renew(this.owner)
        .then((held) => { if (!held) run.lost = true; })
        .catch((err: unknown) => this.logger.warn({ job: job._id, err: err instanceof Error ? err.message : String(err) }, 'backfill heartbeat failed'))
        .finally(() => { beating = null; });
    }, this.beatMs);
    timer.unref();
    const done = this.run(run)
      .catch(async (err: unknown) => {
        if (err instanceof Stopping) return;
        if (err instanceof LostClaim) {
          this.logger.warn({ job: job._id }, 'backfill job claimed by another runner; this one stops');
          return;
        }
        const message = err instanceof Error ? err.message : String(err);
        this.logger.error({ job: job._id, err: message }, 'backfill failed');
        job.errors.push({ at: Date.now(), message });
        await run.claim.renew(this.owner, { state: 'failed', errors: job.errors.slice(-20), finishedAt: Date.now() });
      })
      .finally(async () => {
        clearInterval(timer);
        await beating;
        this.running.delete(job._id);
      });
    this.running.set(job._id, done);
  }

  private async save(run: Run): Promise<void> {
    if (this.stopping) throw new Stopping();
    if (run.lost) throw new LostClaim();
    const { job } = run;
    job.progress.requests = this.client.requests;
    job.progress.waitedMs = this.client.waitedMs;
    if (!(await run.claim.renew(this.owner, { progress: job.progress, errors: job.errors.slice(-20) }))) {
      run.lost = true;
      throw new LostClaim();
    }
  }

  private async run(run: Run): Promise<void> {
    const { job } = run;
    for (; job.progress.accountIndex < job.accountIds.length; job.progress.accountIndex++) {
      const account = job.accountIds[job.progress.accountIndex] as string;
      // Transactions first: each chat's payments then go to inbound in time order with its messages.
      const payments = await this.transactionsByFan(account, job.since);
      if (run.lost) throw new LostClaim();
      if (job.kind === 'backfill-transactions') {
        const all = [...payments.values()].flat().sort((a, b) => a.at - b.at);
        await this.appendAll(all.map((p) => transactionRecord(account, p.raw, Date.now())));
        job.progress.transactions += all.length;
      } else {
        await this.chatsOf(run, account, payments);
      }
      job.progress.chatsPage = null;
      job.progress.chatIndex = 0;
      await this.save(run);
    }
    const done = await run.claim.renew(this.owner, { state: 'done', progress: { ...job.progress, requests: this.client.requests, waitedMs: this.client.waitedMs }, finishedAt: Date.now() });
    if (!done) throw new LostClaim();
  }

  private async transactionsByFan(account: string, since: number): Promise<Map<string, { at: number; raw: JsonObject }[]>> {
    const byFan = new Map<string, { at: number; raw: JsonObject }[]>();
    for await (const page of this.client.transactions(account, new Date(since))) {
      for (const t of page) {
        const fan = isObject(t.user) ? idString(t.user.id) : undefined;
        const at = parsePlatformTime(t.createdAt);
        if (!fan || at === undefined || at < since) continue;
        const list = byFan.get(fan) ?? [];
        list.push({ at, raw: t });
        byFan.set(fan, list);
      }
    }
    return byFan;
  }

  private async chatsOf(run: Run, account: string, payments: Map<string, { at: number; raw: JsonObject }[]>): Promise<void> {
    const { job } = run;
    let page: string | null = job.progress.chatsPage ?? `api/${encodeURIComponent(account)}/chats?limit=100&offset=0&order=recent`;
    while (page) {
      const current: string = page;
      const { items: chats, next } = await this.client.page(current);
      for (let i = job.progress.chatIndex; i < chats.length; i++) {
        const chat = chats[i] as JsonObject;
        const chatId = isObject(chat.fan) ? idString(chat.fan.id) : undefined;
        // A runner that lost the job appends no more of it.
        if (run.lost) throw new LostClaim();
        if (chatId) await this.chat(job, account, chatId, payments.get(chatId) ?? []);
        job.progress.chatIndex = i + 1;
        job.progress.chatsPage = current;
        job.progress.chats++;
        await this.save(run);
      }
      page = next;
      job.progress.chatsPage = next;
      job.progress.chatIndex = 0;
    }
  }

  private async chat(job: BackfillJobDoc, account: string, chatId: string, payments: { at: number; raw: JsonObject }[]): Promise<void> {
    const messages: { at: number; raw: JsonObject }[] = [];
    for await (const page of this.client.messages(account, chatId)) {
      let older = false;
      for (const m of page) {
        const at = parsePlatformTime(m.createdAt);
        if (at === undefined) continue;
        if (at < job.since) {
          older = true;
          continue;
        }
        messages.push({ at, raw: m });
      }
      // Pages come newest first: once one reaches before `since`, the rest is older still.
      if (older) break;
    }
    const now = Date.now();
    const timeline = [
      ...messages.map((m) => ({ at: m.at, order: 0, record: messageRecord(account, chatId, m.raw, now) })),
      ...payments.map((p) => ({ at: p.at, order: 1, record: transactionRecord(account, p.raw, now) })),
    ].sort((a, b) => a.at - b.at || a.order - b.order);
    // After the history, with it: the chat's history is all in, so what has already run past
    // its idle gap closes at once. A chat with nothing since `since` gets no record: it would
    // set a watermark that a later backfill from further back would find its records behind.
    if (timeline.length > 0) await this.appendAll([...timeline.map((x) => x.record), ...historyCompleteRecords([{ accountId: account, chatId }], now)]);
    job.progress.messages += messages.length;
    job.progress.transactions += payments.length;
  }

  private async appendAll(records: (AppendRecord | null)[]): Promise<void> {
    const ok = records.filter((r): r is AppendRecord => r !== null);
    for (let i = 0; i < ok.length; i += 500) await this.append(ok.slice(i, i + 500));
  }
}

class Stopping extends Error {}

/** Another runner owns the job now: stop without writing anything more to it. */
class LostClaim extends Error {}
