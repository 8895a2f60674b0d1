// A PPV unlock notification names the message it unlocked only inside its chat link
// (`…/my/chats/chat/<fanId>?firstId=<messageId>`, in `{MESSAGE_LINK}` or the HTML text; see
// ../shared/platform/README.md §1.3). Read by hand, not by a regular expression: the text is
// HTML of any shape, and the link runs to the first quote, space or angle bracket.

const MARK = '/my/chats/chat/';
const ENDS = new Set(['"', "'", '<', '>', ' ', '\t', '\n', '\r']);
const DIGITS = /^\d{1,20}$/;

export interface PpvLink {
  /** The fan whose chat the link opens. */
  readonly fanId: string;
  /** The PPV message the fan unlocked. */
  readonly messageId: string;
}

/** The first readable chat link in `texts`; null when none holds one. */
export function ppvLinkOf(...texts: readonly unknown[]): PpvLink | null {
  for (const t of texts) {
    if (typeof t !== 'string') continue;
    // Each search starts where the last link ended, so a text of many marks is read once.
    for (let at = t.indexOf(MARK); at >= 0;) {
      let end = at + MARK.length;
      while (end < t.length && !ENDS.has(t[end] as string)) end++;
      const tail = t.slice(at + MARK.length, end).replaceAll('&amp;', '&');
      const q = tail.indexOf('?');
      if (q >= 0) {
        const fanId = tail.slice(0, q).replace(/\/$/, '');
        const messageId = new URLSearchParams(tail.slice(q + 1)).get('firstId');
        if (DIGITS.test(fanId) && messageId !== null && DIGITS.test(messageId)) return { fanId, messageId };
      }
      at = t.indexOf(MARK, end);
    }
  }
  return null;
}
