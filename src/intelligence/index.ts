// Builds the intelligence service from the configuration: the rules always, the model
// provider only when every MODEL_* setting is present.
import type { DocumentStore } from '../adapters/store/store.js';
import type { Config } from '../config.js';
import { ReadModelSet } from '../read-models/read-model-set.js';
import type { Logger } from '../support/logger.js';
import { Intelligence } from './intelligence.js';
import { HttpModelProvider, modelStatus, type ModelStatus } from './model-provider.js';
import { DEFAULT_RULE_SETTINGS, type RuleSettings } from './rules.js';

export interface IntelligenceSetup {
  readonly intelligence: Intelligence;
  readonly model: ModelStatus;
  readonly provider: HttpModelProvider | null;
  readonly settings: RuleSettings;
}

export function ruleSettings(config: Config): RuleSettings {
  return {
    ...DEFAULT_RULE_SETTINGS, thresholdSec: config.slaThresholdSec, vipSpendCents: config.vipSpendCents,
    coverageGapSec: config.coverageGapSec, noShowGraceSec: config.shiftNoShowGraceSec, clockIdleSec: config.clockIdleSec,
  };
}

export function createIntelligence(config: Config, store: DocumentStore, logger: Logger): IntelligenceSetup {
  const model = modelStatus({ baseUrl: config.model.baseUrl, apiKey: config.model.apiKey, model: config.model.name });
  const provider = model.enabled && config.model.baseUrl && config.model.apiKey && config.model.name
    ? new HttpModelProvider({
      baseUrl: config.model.baseUrl, apiKey: config.model.apiKey, model: config.model.name,
      timeoutMs: config.model.timeoutMs, maxRetries: config.model.maxRetries, concurrency: config.model.concurrency,
      maxResponseBytes: config.outboundMaxResponseBytes,
    })
    : null;
  if (!model.enabled && model.reason.startsWith('partially')) logger.warn({ reason: model.reason }, 'model provider off');
  const settings = ruleSettings(config);
  const intelligence = new Intelligence(store, new ReadModelSet(store), settings, provider, logger.child({ role: 'intelligence' }));
  return { intelligence, model, provider, settings };
}
