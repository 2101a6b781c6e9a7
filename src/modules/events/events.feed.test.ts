import { describe, expect, it } from 'vitest';
import { FeedCache, FeedVersions } from './events.feed.js';

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

  it('set: a page rendered again replaces the old one', () => {
    const c = new FeedCache(1000);
    c.set('k', 5, SINCE, Buffer.from('first'));
    c.set('k', 9, SINCE, Buffer.from('second'));
    expect(c.get('k', 5, SINCE)).toBeUndefined();
    expect(text(c.get('k', 9, SINCE))).toBe('second');
    expect(c.stats).toMatchObject({ entries: 1, bytes: 7 });
  });

  it('enabled: a cache of 0 bytes is off and keeps nothing', () => {
    const c = new FeedCache(0);
    expect(c.enabled).toBe(false);
    c.set('k', 1, SINCE, Buffer.from('p'));
    expect(c.get('k', 1, SINCE)).toBeUndefined();
  });
});

describe('FeedVersions', () => {
  /** The version query, answering from `state.version` as it is when the query runs. */
  const query = (state: { version: number; queries: number }) => async () => {
    state.queries++;
    const v = state.version;
    await new Promise((r) => setTimeout(r, 5));
    return v;
  };

  it('read: requests that ask while a read is under way share the next one, which sees later commits', async () => {
    const state = { version: 1, queries: 0 };
    const versions = new FeedVersions(query(state));
    const first = versions.read(1); // sent at once
    state.version = 2; // a commit after the first read began…
    const later = [versions.read(1), versions.read(1), versions.read(1)]; // …before these asked
    expect(await first).toBe(1);
    expect(await Promise.all(later)).toEqual([2, 2, 2]);
    expect(state.queries).toBe(2);
  });

  it('read: a failed read fails the requests that shared it, and the next read is sent anew', async () => {
    let fail = true;
    const versions = new FeedVersions(async () => {
      if (fail) throw new Error('connection lost');
      return 7;
    });
    const shared = [versions.read(1), versions.read(1)];
    await expect(Promise.all(shared)).rejects.toThrow('connection lost');
    fail = false;
    expect(await versions.read(1)).toBe(7);
  });

  it('read: accounts are read apart', async () => {
    const seen: number[] = [];
    const versions = new FeedVersions(async (id) => {
      seen.push(id);
      return id * 10;
    });
    expect(await Promise.all([versions.read(1), versions.read(2)])).toEqual([10, 20]);
    expect(seen).toEqual([1, 2]);
  });
});
