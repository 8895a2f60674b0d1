// The quality rules (src/domain/qa-rules.ts): what fires, what does not, and what it names.
import { describe, expect, it } from 'vitest';
import { qaFlags } from '../../src/domain/qa-rules.js';

describe('qaFlags', () => {
  it('flags a link off the platform and a named messaging app as off-platform contact', () => {
    expect(qaFlags('find me at https://linktr.ee/someone babe')).toEqual([{ rule: 'off-platform-contact', match: 'https://linktr.ee' }]);
    expect(qaFlags('add me on Telegram, it is easier')).toEqual([{ rule: 'off-platform-contact', match: 'Telegram' }]);
    expect(qaFlags('www.example.com')).toEqual([{ rule: 'off-platform-contact', match: 'www.example.com' }]);
  });

  it('leaves the platform\'s own links and ordinary words alone', () => {
    expect(qaFlags('unlock it here https://onlyfans.com/my/chats/chat/1?firstId=2')).toEqual([]);
    expect(qaFlags('I snapped a new pic, instantly yours, paypalooza')).toEqual([]);
    expect(qaFlags('that costs $25 only today')).toEqual([]);
    expect(qaFlags('')).toEqual([]);
  });

  it('flags payment apps, crypto and $cashtags as off-platform payment, beside contact', () => {
    expect(qaFlags('just send it on cash app')).toEqual([{ rule: 'off-platform-payment', match: 'cash app' }]);
    expect(qaFlags('venmo me and text me on WhatsApp')).toEqual([{ rule: 'off-platform-contact', match: 'WhatsApp' }, { rule: 'off-platform-payment', match: 'venmo' }]);
    expect(qaFlags('my tag is $luna_vip')).toEqual([{ rule: 'off-platform-payment', match: '$luna_vip' }]);
  });

  it('reads a long hostile text in one pass', () => {
    expect(qaFlags(`${'www.'.repeat(25_000)}`).length).toBeLessThanOrEqual(1);
    expect(qaFlags('$'.repeat(100_000))).toEqual([]);
  });
});
