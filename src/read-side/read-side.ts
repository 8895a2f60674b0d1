// The read side's services, built once per process by the composition root and handed to the
// routes, which build none: the served read-model version, the account registry, the accounts'
// business hours and banned phrases, and the floor (which reads all three and intelligence's findings).
import { DefinitionsStore } from '../definitions/definitions-store.js';
import type { DocumentStore } from '../adapters/store/store.js';
import { BusinessHoursStore } from '../accounts/business-hours-store.js';
import { BannedPhrasesStore } from '../accounts/banned-phrases-store.js';
import { AccountRegistry } from '../accounts/registry.js';
import { ChatterStore } from '../accounts/chatter-store.js';
import { RosterStore } from '../accounts/roster-store.js';
import type { IntelligenceSetup } from '../intelligence/index.js';
import { ReadModelSet } from '../read-models/read-model-set.js';
import { FloorView } from './floor.js';

export interface ReadSide {
  readonly models: ReadModelSet;
  readonly accounts: AccountRegistry;
  readonly businessHours: BusinessHoursStore;
  readonly bannedPhrases: BannedPhrasesStore;
  readonly chatters: ChatterStore;
  readonly rosters: RosterStore;
  readonly floor: FloorView;
  /** The definitions versions the processor decided under: reports name those in force over their window. */
  readonly definitions: DefinitionsStore;
}

export function buildReadSide(store: DocumentStore, intelligence: IntelligenceSetup, reportTimezone: string, clockIdleSec = 1800): ReadSide {
  return {
    models: new ReadModelSet(store),
    accounts: new AccountRegistry(store),
    businessHours: new BusinessHoursStore(store),
    bannedPhrases: new BannedPhrasesStore(store),
    chatters: new ChatterStore(store),
    rosters: new RosterStore(store),
    floor: new FloorView(store, intelligence, reportTimezone, clockIdleSec * 1000),
    definitions: new DefinitionsStore(store),
  };
}
