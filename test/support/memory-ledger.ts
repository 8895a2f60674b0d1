// An in-memory chat ledger: for tests that run a chat's records through the machine without a
// store, deduplicated by the same rule the processor applies (machines/dedupe.ts).
import type { ChatInput } from '../../machines/chat-input.js';
import { dedupe, type KnownId } from '../../machines/dedupe.js';

export class MemoryLedger {
  private readonly ids = new Map<string, KnownId>();

  dedupe(input: ChatInput): ChatInput | null {
    const a = dedupe(input, (id) => this.ids.get(id));
    if (a.kind === 'duplicate') return null;
    for (const r of a.remember) this.ids.set(r.id, { unattributed: r.unattributed, bare: r.bare });
    return a.input;
  }
}
