// Read routes of the skeleton: sessions and messages.
import { Type, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { DocumentStore, Filter, SortSpec } from '../../adapters/store/store.js';
import { MESSAGES, SESSIONS, type MessageDoc, type SessionDoc } from '../../projector/read-models.js';
import { messageView, sessionView } from '../views.js';

export const LIST_LIMIT = { default: 50, max: 500 } as const;

const Limit = Type.Integer({ minimum: 1, maximum: LIST_LIMIT.max, default: LIST_LIMIT.default, description: `rows to return (default ${LIST_LIMIT.default}, max ${LIST_LIMIT.max})` });
const Id = (description: string) => Type.String({ minLength: 1, maxLength: 200, description });

export const readRoutes: FastifyPluginAsyncTypebox<{ store: DocumentStore }> = async (app, { store }) => {
  const sessions = store.collection<SessionDoc>(SESSIONS);
  const messages = store.collection<MessageDoc>(MESSAGES);

  app.get('/api/sessions', {
    schema: {
      summary: 'Sessions: the priority inbox (awaiting first, longest wait first) or the recency view',
      querystring: Type.Object({
        limit: Limit,
        sort: Type.Union([Type.Literal('priority'), Type.Literal('opened')], { default: 'priority' }),
        awaiting: Type.Optional(Type.Union([Type.Literal('1'), Type.Literal('0'), Type.Literal('true'), Type.Literal('false')])),
        accountId: Type.Optional(Id('only sessions of this account')),
      }, { additionalProperties: false }),
    },
  }, async (request) => {
    const { limit, sort, awaiting, accountId } = request.query;
    const filter: Filter = {};
    if (awaiting === '1' || awaiting === 'true') filter.awaiting = true;
    if (awaiting === '0' || awaiting === 'false') filter.awaiting = false;
    if (accountId) filter.accountId = accountId;
    const order: SortSpec = sort === 'opened'
      ? { openedAt: -1, _id: 1 }
      : { awaiting: -1, waitingSince: 1, lastMessageAt: -1, _id: 1 };
    const docs = await sessions.find(filter, { sort: order, limit });
    return { items: docs.map(sessionView), count: docs.length, limit, sort };
  });

  app.get('/api/messages', {
    schema: {
      summary: 'Messages in conversation order: of one chat, or the latest across all chats',
      querystring: Type.Object({
        chatId: Type.Optional(Id('the chat (the fan id on the platform)')),
        accountId: Type.Optional(Id('the account, to tell apart one fan chatting with several accounts')),
        limit: Limit,
      }, { additionalProperties: false }),
    },
  }, async (request) => {
    const { chatId, accountId, limit } = request.query;
    const filter: Filter = { tombstone: false };
    if (chatId) filter.chatId = chatId;
    if (accountId) filter.accountId = accountId;
    // The latest `limit` messages, returned oldest first as a conversation reads.
    const docs = await messages.find(filter, { sort: { sentAt: -1, _id: -1 }, limit });
    docs.reverse();
    return { items: docs.map(messageView), count: docs.length, limit };
  });
};
