// Definitions versions (issue 55): a processor that starts with the settings of the latest
// version adds none; one with other settings adds the next, in force from then; processes
// starting together with different settings each end up with a version of their own values,
// numbered without gaps. inForce names the versions a window's figures were decided under.
import { afterAll, describe, expect, it } from 'vitest';
import { EmbeddedStore } from '../../src/adapters/store/embedded-store.js';
import { DefinitionsStore, inForce, type DefinitionValues } from '../../src/definitions/definitions-store.js';
import { tempDir } from '../support/temp-dirs.js';

const BASE: DefinitionValues = { sessionIdleSec: 1800, allowedLatenessSec: 120, unansweredCloseSec: 86_400, attributionLookbackSec: 86_400 };
const stores: EmbeddedStore[] = [];
afterAll(async () => { await Promise.all(stores.map((s) => s.close())); });
const open = (dir = tempDir('definitions-')): { dir: string; store: EmbeddedStore } => {
  const store = new EmbeddedStore(dir);
  stores.push(store);
  return { dir, store };
};

describe('definitions versions', () => {
  it('records a version only when the settings differ from the latest, in force from then', async () => {
    const defs = new DefinitionsStore(open().store);
    const v1 = await defs.record(BASE, 1000);
    expect(v1).toMatchObject({ version: 1, since: 1000, recordedBy: 'environment', values: BASE });
    expect(await defs.record({ ...BASE }, 2000)).toEqual(v1);
    const v2 = await defs.record({ ...BASE, sessionIdleSec: 600 }, 3000);
    expect(v2).toMatchObject({ version: 2, since: 3000 });
    // Back to the first settings: a third version (the history is not rewritten).
    expect(await defs.record(BASE, 4000)).toMatchObject({ version: 3, since: 4000, values: BASE });
    expect((await defs.all(10_000)).map((d) => d.version)).toEqual([1, 2, 3]);
  });

  it('numbers versions without gaps when processes with other settings start together', async () => {
    const { dir } = open();
    const many = Array.from({ length: 4 }, (_, i) => new DefinitionsStore(open(dir).store).record({ ...BASE, sessionIdleSec: 600 + i }, 5000 + i));
    const recorded = await Promise.all(many);
    const all = await new DefinitionsStore(open(dir).store).all(99_999);
    expect(all.map((d) => d.version)).toEqual([1, 2, 3, 4]);
    for (const [i, r] of recorded.entries()) expect(r.values.sessionIdleSec).toBe(600 + i);
  });

  it('names the versions a window\'s figures may come from: every one begun before its end, the first standing for all before it', () => {
    const docs = [1000, 3000, 4000].map((since, i) => ({ _id: `v${i + 1}`, version: i + 1, since, recordedBy: 'environment', values: BASE }));
    // By the window's end only: chats first seen under an older version keep it, so a window
    // after a change still names that version.
    const versions = (to: number) => inForce(docs, to).map((v) => v.version);
    expect(versions(Infinity)).toEqual([1, 2, 3]);
    expect(versions(500)).toEqual([1]);
    expect(versions(3000)).toEqual([1]);
    expect(versions(3001)).toEqual([1, 2]);
    expect(versions(4000)).toEqual([1, 2]);
    expect(inForce(docs, 3600)[1]).toMatchObject({ version: 2, since: 3000, until: 4000 });
    expect(inForce([], 1)).toEqual([]);
  });
});
