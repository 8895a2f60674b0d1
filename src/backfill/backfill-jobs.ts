// Backfill jobs: pull history from the platform's REST API into `inbound`, like any other
// source. A job returns its id at once; its progress and errors are stored as it goes, a job
// whose process stopped resumes where it stopped (re-appending a chat already sent is
// harmless: the machine counts a message or a payment once), and a second identical job
// while one runs is refused.
import { randomUUID } from 'node:crypto';
import type { AppendRecord } from '../adapters/log/log.js';
import type { Collection, Doc, DocumentStore } from '../adapters/store/store.js';
import type { PlatformClient } from '../adapters/platform/platform-client.js';
import { messageRecord, transactionRecord } from '../domain/backfill-records.js';
import { idString, isObject, type JsonObject } from '../domain/json.js';
import type { Logger } from '../support/logger.js';
import { JOBS_COLLECTION } from '../projector/replay.js';

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
}


export class BackfillConflict extends Error {}

export class BackfillJobs {
  private readonly jobs: Collection<BackfillJobDoc>;
  private readonly running = new Map<string, Promise<void>>();
  private stopping = false;

  constructor(
    store: DocumentStore,
    private readonly client: PlatformClient,
    private readonly append: (records: AppendRecord[]) => Promise<void>,
    private readonly logger: Logger,
    /** A running job whose heartbeat is older than this died with its process. */
    readonly staleMs = 30_000,
  ) {
    this.jobs = store.collection<BackfillJobDoc>(JOBS_COLLECTION);
  }

  get(id: string): Promise<BackfillJobDoc | null> {
    return this.jobs.findOne({ _id: id, kind: { $in: ['backfill', 'backfill-transactions'] } });
  }

  list(limit: number): Promise<BackfillJobDoc[]> {
    return this.jobs.find({ kind: { $in: ['backfill', 'backfill-transactions'] } }, { sort: { startedAt: -1 }, limit });
  }

  async start(kind: BackfillKind, accountIds: readonly string[], since: number): Promise<BackfillJobDoc> {
    const identity = `${kind}|${[...accountIds].sort().join(',')}|${since}`;
    const same = await this.jobs.find({ kind, identity, state: 'running' });
    if (same.some((j) => this.running.has(j._id) || Date.now() - j.heartbeatAt < this.staleMs)) {
      throw new BackfillConflict(`an identical ${kind} job is still running (${same[0]?._id}); wait for it or follow its progress`);
    }
    const now = Date.now();
    const job: BackfillJobDoc = {
      _id: `${kind}-${now}-${randomUUID().slice(0, 8)}`, kind, state: 'running', identity, accountIds: [...accountIds], since,
      progress: { accountIndex: 0, chatsPage: null, chatIndex: 0, chats: 0, messages: 0, transactions: 0, requests: 0, waitedMs: 0 },
      errors: [], startedAt: now, heartbeatAt: now, finishedAt: null,
    };
    await this.jobs.insertOne(job);
    this.launch(job);
    return job;
  }

  /** Picks up jobs whose process stopped, from where they stopped. */
  async resumeStale(): Promise<string[]> {
    const stale = (await this.jobs.find({ kind: { $in: ['backfill', 'backfill-transactions'] }, state: 'running' }))
      .filter((j) => !this.running.has(j._id) && Date.now() - j.heartbeatAt >= this.staleMs);
    for (const j of stale) this.launch(j);
    return stale.map((j) => j._id);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.allSettled(this.running.values());
  }

  private launch(job: BackfillJobDoc): void {
    const run = this.run(job)
      .catch(async (err: unknown) => {
        if (err instanceof Stopping) return;
        const message = err instanceof Error ? err.message : String(err);
        this.logger.error({ job: job._id, err: message }, 'backfill failed');
        job.errors.push({ at: Date.now(), message });
        await this.jobs.updateOne({ _id: job._id }, { $set: { state: 'failed', errors: job.errors.slice(-20), finishedAt: Date.now(), heartbeatAt: Date.now() } });
      })
      .finally(() => this.running.delete(job._id));
    this.running.set(job._id, run);
  }

  private async save(job: BackfillJobDoc): Promise<void> {
    if (this.stopping) throw new Stopping();
    job.progress.requests = this.client.requests;
    job.progress.waitedMs = this.client.waitedMs;
    job.heartbeatAt = Date.now();
    await this.jobs.updateOne({ _id: job._id }, { $set: { progress: job.progress, heartbeatAt: job.heartbeatAt, errors: job.errors.slice(-20) } });
  }

  private async run(job: BackfillJobDoc): Promise<void> {
    for (; job.progress.accountIndex < job.accountIds.length; job.progress.accountIndex++) {
      const account = job.accountIds[job.progress.accountIndex] as string;
      // Transactions first: each chat's payments then go to inbound in time order with its messages.
      const payments = await this.transactionsByFan(account, job.since);
      if (job.kind === 'backfill-transactions') {
        const all = [...payments.values()].flat().sort((a, b) => a.at - b.at);
        await this.appendAll(all.map((p) => transactionRecord(account, p.raw, Date.now())));
        job.progress.transactions += all.length;
      } else {
        await this.chatsOf(job, account, payments);
      }
      job.progress.chatsPage = null;
      job.progress.chatIndex = 0;
      await this.save(job);
    }
    await this.jobs.updateOne({ _id: job._id }, { $set: { state: 'done', progress: { ...job.progress, requests: this.client.requests, waitedMs: this.client.waitedMs }, finishedAt: Date.now(), heartbeatAt: Date.now() } });
  }

  private async transactionsByFan(account: string, since: number): Promise<Map<string, { at: number; raw: JsonObject }[]>> {
    const byFan = new Map<string, { at: number; raw: JsonObject }[]>();
    for await (const page of this.client.transactions(account, new Date(since))) {
      for (const t of page) {
        const fan = isObject(t.user) ? idString(t.user.id) : undefined;
        const at = Date.parse(String(t.createdAt));
        if (!fan || !Number.isFinite(at) || at < since) continue;
        const list = byFan.get(fan) ?? [];
        list.push({ at, raw: t });
        byFan.set(fan, list);
      }
    }
    return byFan;
  }

  private async chatsOf(job: BackfillJobDoc, account: string, payments: Map<string, { at: number; raw: JsonObject }[]>): Promise<void> {
    let page: string | null = job.progress.chatsPage ?? `api/${encodeURIComponent(account)}/chats?limit=100&offset=0&order=recent`;
    while (page) {
      const current: string = page;
      const { items: chats, next } = await this.client.page(current);
      for (let i = job.progress.chatIndex; i < chats.length; i++) {
        const chat = chats[i] as JsonObject;
        const chatId = isObject(chat.fan) ? idString(chat.fan.id) : undefined;
        if (chatId) await this.chat(job, account, chatId, payments.get(chatId) ?? []);
        job.progress.chatIndex = i + 1;
        job.progress.chatsPage = current;
        job.progress.chats++;
        await this.save(job);
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
        const at = Date.parse(String(m.createdAt));
        if (!Number.isFinite(at)) continue;
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
    await this.appendAll(timeline.map((x) => x.record));
    job.progress.messages += messages.length;
    job.progress.transactions += payments.length;
  }

  private async appendAll(records: (AppendRecord | null)[]): Promise<void> {
    const ok = records.filter((r): r is AppendRecord => r !== null);
    for (let i = 0; i < ok.length; i += 500) await this.append(ok.slice(i, i + 500));
  }
}

class Stopping extends Error {}
