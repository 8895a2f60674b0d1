// The HTTP model provider: an OpenAI-compatible chat-completions API, used only when every
// MODEL_* setting is present. Calls are bounded (timeout, retries with backoff, concurrency),
// and the answer must parse into the label schema exactly: anything else is rejected and
// nothing is stored. Every label carries the model and prompt version that produced it.
import { trimTrailingSlashes } from '../support/url.js';
import { Type, type Static } from '@sinclair/typebox';
import { Ajv } from 'ajv';
import { guardedFetch, OutboundGuardError } from '../adapters/http/guarded-fetch.js';
import { cut, stripTags, withoutClosingFence } from '../domain/text-clean.js';
import type { FactMessage } from './rules.js';

export const PROMPT_VERSION = 'session-labels-v1';

export interface ModelSettings {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly model: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  readonly concurrency: number;
  /** Largest answer read (`OUTBOUND_MAX_RESPONSE_BYTES`); never more than MODEL_MAX_RESPONSE_BYTES. */
  readonly maxResponseBytes?: number;
}

/** A chat-completions answer with a few labels is a few KiB: the provider reads at most 1 MiB. */
export const MODEL_MAX_RESPONSE_BYTES = 1_048_576;

export type ModelStatus =
  | { readonly enabled: true; readonly model: string }
  | { readonly enabled: false; readonly reason: string };

/** Enabled only when all three are set; a partial configuration is reported, not guessed at. */
export function modelStatus(env: { baseUrl: string | null; apiKey: string | null; model: string | null }): ModelStatus {
  const missing = [['MODEL_BASE_URL', env.baseUrl], ['MODEL_API_KEY', env.apiKey], ['MODEL_NAME', env.model]].filter(([, v]) => !v).map(([k]) => k);
  if (missing.length === 0) return { enabled: true, model: env.model ?? '' };
  if (missing.length === 3) return { enabled: false, reason: 'not configured (MODEL_BASE_URL, MODEL_API_KEY, MODEL_NAME unset)' };
  return { enabled: false, reason: `partially configured: ${missing.join(', ')} missing, so the model provider is off` };
}

const ModelAnswer = Type.Object({
  labels: Type.Array(Type.Object({
    label: Type.String({ pattern: '^[a-z][a-z0-9-]{0,39}$' }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
  }, { additionalProperties: false }), { maxItems: 10 }),
  summary: Type.String({ maxLength: 500 }),
  recommendations: Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 5 }),
}, { additionalProperties: false });
export type ModelAnswer = Static<typeof ModelAnswer>;

const checkAnswer = new Ajv({ strict: false }).compile<ModelAnswer>(ModelAnswer);

export class ModelOutputRejected extends Error {}

/** Parses the model's message content; throws ModelOutputRejected unless it is exactly the schema. */
export function parseModelAnswer(content: unknown): ModelAnswer {
  if (typeof content !== 'string') throw new ModelOutputRejected('content is not text');
  const json = withoutClosingFence(content.trim().replace(/^```(?:json)?\s*/i, ''));
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new ModelOutputRejected('content is not JSON');
  }
  if (!checkAnswer(value)) throw new ModelOutputRejected(`content does not match the schema: ${checkAnswer.errors?.[0]?.instancePath ?? ''} ${checkAnswer.errors?.[0]?.message ?? ''}`.trim());
  return value;
}

const SYSTEM_PROMPT = `You label chat conversations between a creator's team ("chatter") and a paying fan.
Answer with JSON only, exactly: {"labels":[{"label":"kebab-case","confidence":0..1}],"summary":"one sentence","recommendations":["short action"]}.
Labels to prefer: churn-risk, negative-sentiment, upsell-opportunity, vip, complaint, happy, needs-attention.`;

export function transcript(messages: readonly FactMessage[]): string {
  return messages.slice(-30).map((m) => `${m.sender === 'fan' ? 'FAN' : m.sender === 'human' ? 'CHATTER' : 'AUTOMATED'}${m.priceCents > 0 ? ` [PPV $${(m.priceCents / 100).toFixed(2)}]` : ''}: ${stripTags(cut(m.text)).slice(0, 500)}`).join('\n');
}

export interface ModelLabels extends ModelAnswer {
  readonly model: string;
  readonly promptVersion: string;
}

export class HttpModelProvider {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  calls = 0;
  /** Analyses that ended, after retries: for the metrics. */
  readonly outcomes = { ok: 0, failed: 0 };

  constructor(private readonly settings: ModelSettings) {}

  get model(): string {
    return this.settings.model;
  }

  async label(messages: readonly FactMessage[]): Promise<ModelLabels> {
    await this.acquire();
    try {
      const answer = await this.withRetries(() => this.callOnce(messages));
      this.outcomes.ok++;
      return { ...answer, model: this.settings.model, promptVersion: PROMPT_VERSION };
    } catch (err) {
      this.outcomes.failed++;
      throw err;
    } finally {
      this.release();
    }
  }

  private async withRetries<T>(fn: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        // Garbage is not retried: the same prompt would likely get the same answer.
        const retriable = !(err instanceof ModelOutputRejected) && !(err instanceof ModelRequestRefused);
        if (!retriable || attempt >= this.settings.maxRetries) throw err;
        await new Promise((r) => setTimeout(r, 200 * 2 ** attempt + Math.floor(Math.random() * 100)));
      }
    }
  }

  private async callOnce(messages: readonly FactMessage[]): Promise<ModelAnswer> {
    this.calls++;
    const url = `${trimTrailingSlashes(this.settings.baseUrl)}/chat/completions`;
    const res = await guardedFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.settings.apiKey}` },
      body: JSON.stringify({
        model: this.settings.model,
        temperature: 0,
        response_format: { type: 'json_object' },
        messages: [{ role: 'system', content: SYSTEM_PROMPT }, { role: 'user', content: transcript(messages) }],
      }),
      timeoutMs: this.settings.timeoutMs,
      maxResponseBytes: Math.min(this.settings.maxResponseBytes ?? MODEL_MAX_RESPONSE_BYTES, MODEL_MAX_RESPONSE_BYTES),
    }).catch((err: unknown) => {
      // A redirect to another origin, a redirect loop or an oversized answer would come again.
      throw err instanceof OutboundGuardError ? new ModelRequestRefused(`model provider call refused: ${err.message}`) : err;
    });
    const text = res.text();
    if (res.status === 429 || res.status >= 500) throw new Error(`model provider answered ${res.status}`);
    if (!res.ok) throw new ModelRequestRefused(`model provider refused the request: ${res.status}`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new ModelOutputRejected('response is not JSON');
    }
    const content = (body as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]?.message?.content;
    return parseModelAnswer(content);
  }

  private async acquire(): Promise<void> {
    if (this.active < this.settings.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.active++;
  }

  private release(): void {
    this.active--;
    this.waiting.shift()?.();
  }
}

export class ModelRequestRefused extends Error {}
