import { describe, expect, it } from 'vitest';
import {
  formatScopes,
  grantsScope,
  isSubset,
  parseScopes,
  type ScopeSet,
  scopeProblem,
} from './scopes.js';

const parsed = (s: string): ScopeSet => {
  const set = parseScopes(s);
  if (!set) throw new Error(`did not parse: ${s}`);
  return set;
};

describe('parseScopes', () => {
  it('parseScopes: * is every scope', () => {
    expect(parsed('*').all).toBe(true);
    expect(parsed(' * ').all).toBe(true);
  });

  it('parseScopes: space- and comma-separated lists give the same set', () => {
    const a = parsed('computes:read_write events:read_only');
    const b = parsed('events:read_only,computes:read_write');
    const c = parsed('events:read_only, computes:read_write');
    for (const s of [a, b, c]) {
      expect(s.all).toBe(false);
      expect([...s.areas.entries()].sort()).toEqual([
        ['computes', 'read_write'],
        ['events', 'read_only'],
      ]);
    }
  });

  it('parseScopes: the stronger level of a repeated area wins, whatever the order', () => {
    expect(parsed('volumes:read_write volumes:read_only').areas.get('volumes')).toBe('read_write');
    expect(parsed('volumes:read_only volumes:read_write').areas.get('volumes')).toBe('read_write');
  });

  it('parseScopes: rejects empty lists, unknown areas and levels, and * mixed with scopes', () => {
    for (const bad of [
      '',
      '  ',
      ',',
      'nothing:read_only',
      'computes:write',
      'computes',
      'Computes:read_only',
      '* computes:read_only',
      'computes:read_only;events:read_only',
    ]) {
      expect(parseScopes(bad), JSON.stringify(bad)).toBeUndefined();
    }
  });

  it('parseScopes: accepts every area of the reference, and child_account', () => {
    for (const area of [
      'account',
      'child_account',
      'databases',
      'domains',
      'events',
      'firewall',
      'images',
      'ips',
      'computes',
      'lke',
      'longview',
      'nodebalancers',
      'object_storage',
      'stackscripts',
      'volumes',
      'vpc',
    ]) {
      expect(parseScopes(`${area}:read_only`), area).toBeDefined();
      expect(parseScopes(`${area}:read_write`), area).toBeDefined();
    }
  });
});

describe('formatScopes', () => {
  it('formatScopes: writes * or the sorted, space-separated list', () => {
    expect(formatScopes(parsed('*'))).toBe('*');
    expect(formatScopes(parsed('volumes:read_only,account:read_write'))).toBe(
      'account:read_write volumes:read_only',
    );
  });
});

describe('grantsScope', () => {
  it('grantsScope: * grants everything', () => {
    expect(grantsScope(parsed('*'), 'computes:read_write')).toBe(true);
    expect(grantsScope(parsed('*'), 'anything:read_write')).toBe(true);
  });

  it('grantsScope: read_write implies read_only, not the reverse', () => {
    expect(grantsScope(parsed('events:read_write'), 'events:read_only')).toBe(true);
    expect(grantsScope(parsed('events:read_write'), 'events:read_write')).toBe(true);
    expect(grantsScope(parsed('events:read_only'), 'events:read_only')).toBe(true);
    expect(grantsScope(parsed('events:read_only'), 'events:read_write')).toBe(false);
  });

  it('grantsScope: another area grants nothing', () => {
    expect(grantsScope(parsed('account:read_write'), 'events:read_only')).toBe(false);
  });

  it('grantsScope: the reference typo ips:read is granted by ips:read_only', () => {
    expect(grantsScope(parsed('ips:read_only'), 'ips:read')).toBe(true);
    expect(grantsScope(parsed('computes:read_only'), 'ips:read')).toBe(false);
  });
});

describe('isSubset', () => {
  it('isSubset: anything is within *, and * is within only *', () => {
    expect(isSubset(parsed('computes:read_write'), parsed('*'))).toBe(true);
    expect(isSubset(parsed('*'), parsed('*'))).toBe(true);
    expect(isSubset(parsed('*'), parsed('computes:read_write'))).toBe(false);
  });

  it('isSubset: read_only is within read_write of the same area, not the reverse', () => {
    expect(isSubset(parsed('computes:read_only'), parsed('computes:read_write'))).toBe(true);
    expect(isSubset(parsed('computes:read_write'), parsed('computes:read_only'))).toBe(false);
    expect(
      isSubset(parsed('computes:read_only events:read_only'), parsed('computes:read_write')),
    ).toBe(false);
  });
});

describe('scopeProblem', () => {
  it('scopeProblem: names the first bad scope of a list and what is wrong with it', () => {
    expect(scopeProblem('events:read_only nothing:read_only')).toBe(
      `"nothing:read_only": unknown area "nothing" (one of ${[
        'account',
        'child_account',
        'databases',
        'domains',
        'events',
        'firewall',
        'images',
        'ips',
        'computes',
        'lke',
        'longview',
        'nodebalancers',
        'object_storage',
        'stackscripts',
        'volumes',
        'vpc',
      ].join(', ')})`,
    );
    expect(scopeProblem('events:read_only,computes:write')).toBe(
      '"computes:write": unknown level "write" (read_only or read_write)',
    );
    expect(scopeProblem('computes')).toBe(
      '"computes": give a level, computes:read_only or computes:read_write',
    );
    expect(scopeProblem('* events:read_only')).toBe(
      '"*" is every scope and cannot be listed with others',
    );
    expect(scopeProblem(' ')).toMatch(/^no scope given/);
  });

  it('scopeProblem: none for every list parseScopes accepts', () => {
    for (const ok of ['*', 'events:read_only', 'computes:read_write, vpc:read_only']) {
      expect(parseScopes(ok)).toBeDefined();
      expect(scopeProblem(ok)).toBeUndefined();
    }
  });
});
