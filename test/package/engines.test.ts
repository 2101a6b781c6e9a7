import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));

describe('package engines', () => {
  it('npm install: every locked package accepts every Node version package.json allows', () => {
    const ours: string = read('package.json').engines.node;
    const lock = read('package-lock.json') as {
      packages: Record<string, { engines?: { node?: string } | string[] }>;
    };
    const refusing = Object.entries(lock.packages)
      .filter(([name]) => name !== '')
      .flatMap(([name, p]) => {
        const theirs = Array.isArray(p.engines) ? undefined : p.engines?.node;
        if (!theirs || !semver.validRange(theirs)) return [];
        return semver.subset(ours, theirs) ? [] : [`${name} (${theirs})`];
      });
    expect(refusing).toEqual([]);
  });

  it('npm install: the Node running the tests is one package.json allows', () => {
    expect(semver.satisfies(process.version, read('package.json').engines.node)).toBe(true);
  });
});
