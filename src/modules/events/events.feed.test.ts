import { describe, expect, it } from 'vitest';
import { FeedCache } from './events.feed.js';

const SINCE = '2026-01-01T00:00:00';
const text = (b: Buffer | undefined) => b?.toString();

describe('FeedCache', () => {
  it('get: answers a page only at the version and window it was rendered at', () => {
    const c = new FeedCache(1000);
    c.set('k', 3, SINCE, Buffer.from('page'));
    expect(text(c.get('k', 3, SINCE))).toBe('page');
    expect(c.get('k', 4, SINCE)).toBeUndefined();
    expect(c.get('k', 3, '2026-01-01T00:00:01')).toBeUndefined();
    expect(c.get('other', 3, SINCE)).toBeUndefined();
    expect(c.stats).toMatchObject({ hits: 1, misses: 3, entries: 1, bytes: 5 });
  });

  it('set: evicts the least recently used pages to stay within its bytes', () => {
    const c = new FeedCache(40); // pages of up to 10 characters with their key
    c.set('a', 1, SINCE, Buffer.from('aaaaaaaa')); // 9
    c.set('b', 1, SINCE, Buffer.from('bbbbbbbb'));
    c.set('c', 1, SINCE, Buffer.from('cccccccc'));
    c.set('d', 1, SINCE, Buffer.from('dddddddd')); // 36 in all
    expect(text(c.get('a', 1, SINCE))).toBe('aaaaaaaa'); // a is now the most recently used
    c.set('e', 1, SINCE, Buffer.from('eeeeeeee')); // 45 > 40: b, the least recently used, goes
    expect(c.get('b', 1, SINCE)).toBeUndefined();
    for (const k of ['a', 'c', 'd', 'e']) expect(text(c.get(k, 1, SINCE))).toBe(k.repeat(8));
    expect(c.stats).toMatchObject({ entries: 4, bytes: 36 });
  });

  it('set: a page over a quarter of the cache is not kept', () => {
    const c = new FeedCache(40);
    c.set('k', 1, SINCE, Buffer.from('x'.repeat(10))); // 11 characters with the key
    expect(c.get('k', 1, SINCE)).toBeUndefined();
    expect(c.stats.bytes).toBe(0);
  });

  it('set: two misses racing keep the page of the newer version', () => {
    const c = new FeedCache(1000);
    c.set('k', 5, SINCE, Buffer.from('newer'));
    c.set('k', 4, SINCE, Buffer.from('older'));
    expect(text(c.get('k', 5, SINCE))).toBe('newer');
    c.set('k', 6, SINCE, Buffer.from('newest'));
    expect(text(c.get('k', 6, SINCE))).toBe('newest');
    expect(c.stats).toMatchObject({ entries: 1, bytes: 7 });
  });

  it('enabled: a cache of 0 bytes is off and keeps nothing', () => {
    const c = new FeedCache(0);
    expect(c.enabled).toBe(false);
    c.set('k', 1, SINCE, Buffer.from('p'));
    expect(c.get('k', 1, SINCE)).toBeUndefined();
  });
});
