// Moved: each read model's fold lives in its folder under models/ (projection.ts). Kept only
// for bench/read-api.ts, which imports these from here; src and test import from models/.
export { accountStatsDocId } from './models/account-stats/projection.js';
export { lifetimeSpend } from './models/chats/projection.js';
export { messageDocId } from './models/messages/projection.js';
export { paymentDocId } from './models/payments/projection.js';
