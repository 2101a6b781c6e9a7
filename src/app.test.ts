import { describe, expect, it } from 'vitest';
import { betaToV4 } from './app.js';

describe('betaToV4', () => {
  it('betaToV4: /v4beta paths are routed as /v4 ones, nothing else is', () => {
    expect(betaToV4('/v4beta/profile')).toBe('/v4/profile');
    expect(betaToV4('/v4beta')).toBe('/v4');
    expect(betaToV4('/v4beta?x=1')).toBe('/v4?x=1');
    expect(betaToV4('/v4beta/volumes/1?page=2')).toBe('/v4/volumes/1?page=2');
    expect(betaToV4('/v4betas/profile')).toBe('/v4betas/profile');
    expect(betaToV4('/v4/profile')).toBe('/v4/profile');
    expect(betaToV4('/_stratus/health')).toBe('/_stratus/health');
  });
});
