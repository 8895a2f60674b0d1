// Moved: each read model's document type lives in its folder under models/ (projection.ts),
// the collection names in models/names.ts. Kept only for bench/read-api.ts, which imports
// these from here; src and test import from models/.
export type { AccountStatsDoc } from './models/account-stats/projection.js';
export type { ChatDoc } from './models/chats/projection.js';
export type { MessageDoc } from './models/messages/projection.js';
export type { PaymentDoc } from './models/payments/projection.js';
export type { SessionDoc } from './models/sessions/projection.js';
