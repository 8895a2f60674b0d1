// Pure folds from session events to read-model documents. A fold returns the document to
// store, or undefined when the event does not concern it or was already applied.
import type { SessionEvent } from '../../machines/session-events.js';
import { MESSAGES, SESSIONS, type MessageDoc, type SessionDoc } from './read-models.js';

export interface DocTarget {
  readonly collection: typeof SESSIONS | typeof MESSAGES;
  readonly id: string;
}

/** The documents an event touches. */
export function targetsOf(e: SessionEvent): DocTarget[] {
  switch (e.type) {
    case 'SessionOpened':
    case 'SessionClosed':
      return [{ collection: SESSIONS, id: e.data.session.sessionId }];
    case 'MessageRecorded': {
      const t: DocTarget[] = [{ collection: MESSAGES, id: `${e.chatKey}:${e.data.messageId}` }];
      if (e.data.session) t.push({ collection: SESSIONS, id: e.data.session.sessionId });
      return t;
    }
  }
}

export function foldSession(doc: SessionDoc | undefined, e: SessionEvent): SessionDoc | undefined {
  if (doc && doc.lastSeq >= e.seq) return undefined;
  const session = e.type === 'MessageRecorded' ? e.data.session : e.data.session;
  if (!session) return undefined;
  return { _id: session.sessionId, accountId: e.accountId, chatId: e.chatId, chatKey: e.chatKey, ...session, lastSeq: e.seq };
}

export function foldMessage(doc: MessageDoc | undefined, e: SessionEvent): MessageDoc | undefined {
  if (e.type !== 'MessageRecorded') return undefined;
  if (doc && doc.lastSeq >= e.seq) return undefined;
  const d = e.data;
  return {
    _id: `${e.chatKey}:${d.messageId}`,
    messageId: d.messageId,
    accountId: e.accountId,
    chatId: e.chatId,
    chatKey: e.chatKey,
    sessionId: d.sessionId,
    sender: d.sender,
    chatterId: d.chatterId,
    text: d.text,
    priceCents: d.priceCents,
    sentAt: d.sentAt,
    lastSeq: e.seq,
  };
}
