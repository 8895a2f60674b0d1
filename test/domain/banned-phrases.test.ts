// An account's banned phrases: how a list is checked and kept, and what a reply matches.
import { describe, expect, it } from 'vitest';
import { checkPhrases, matchPhrases, MAX_PHRASES } from '../../src/domain/banned-phrases.js';

describe('checkPhrases', () => {
  it('keeps each phrase in lower case with single spaces, in the order given', () => {
    expect(checkPhrases(['  Meet  ME ', 'OnlyFans Free'])).toEqual({ ok: true, phrases: ['meet me', 'onlyfans free'] });
    expect(checkPhrases([])).toEqual({ ok: true, phrases: [] });
  });

  it('names the phrase at fault: too short, too long, a repeat, too many', () => {
    expect(checkPhrases(['ok', ' x '])).toEqual({ ok: false, field: 'phrases/1', reason: 'must have at least 2 characters besides white space' });
    expect(checkPhrases(['a'.repeat(101)])).toMatchObject({ ok: false, field: 'phrases/0' });
    expect(checkPhrases(['meet me', 'MEET   me'])).toEqual({ ok: false, field: 'phrases/1', reason: 'repeats phrases/0 ("meet me"; case and spacing do not count)' });
    expect(checkPhrases(Array.from({ length: MAX_PHRASES + 1 }, (_, i) => `p${i}`))).toMatchObject({ ok: false, field: 'phrases' });
  });
});

describe('matchPhrases', () => {
  const list = ['meet me', 'pay', 'free!', 'ok'];
  it('ignores case and runs of white space', () => {
    expect(matchPhrases('Can we MEET\n  me tonight?', list)).toEqual(['meet me']);
  });

  it('matches on word edges only, unless the phrase ends on a non-word character', () => {
    expect(matchPhrases('paypal me', list)).toEqual([]);
    expect(matchPhrases('you pay later', list)).toEqual(['pay']);
    expect(matchPhrases('its free!!', list)).toEqual(['free!']);
    expect(matchPhrases('token okay', list)).toEqual([]);
    // A later occurrence on word edges counts when the first is inside a word.
    expect(matchPhrases('paypal? no, pay here', list)).toEqual(['pay']);
  });

  it('names every phrase found, in the list\'s order', () => {
    expect(matchPhrases('ok, pay and meet me', list)).toEqual(['meet me', 'pay', 'ok']);
    expect(matchPhrases('', list)).toEqual([]);
    expect(matchPhrases('anything', [])).toEqual([]);
  });
});
