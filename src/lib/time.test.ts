import { describe, expect, it } from 'vitest';
import { isoSeconds, parseApiTime } from './time.js';

describe('isoSeconds', () => {
  it('isoSeconds: formats UTC whole seconds, from a number or a Date, again and again', () => {
    const ms = Date.parse('2026-03-01T12:00:00.750Z');
    expect(isoSeconds(ms)).toBe('2026-03-01T12:00:00');
    expect(isoSeconds(ms + 249)).toBe('2026-03-01T12:00:00');
    expect(isoSeconds(ms + 250)).toBe('2026-03-01T12:00:01');
    expect(isoSeconds(new Date(ms))).toBe('2026-03-01T12:00:00');
    expect(isoSeconds(0)).toBe('1970-01-01T00:00:00');
    expect(isoSeconds(-500)).toBe('1969-12-31T23:59:59');
    expect(isoSeconds(ms)).toBe('2026-03-01T12:00:00');
  });

  it('isoSeconds: an invalid time throws, as Date does', () => {
    expect(() => isoSeconds(Number.NaN)).toThrow(RangeError);
    expect(isoSeconds(1000)).toBe('1970-01-01T00:00:01');
  });
});

describe('parseApiTime', () => {
  it('parseApiTime: reads the API form, with or without a zone, and refuses the rest', () => {
    expect(parseApiTime('2026-03-01T12:00:00')).toBe(Date.parse('2026-03-01T12:00:00Z'));
    expect(parseApiTime('2026-03-01')).toBe(Date.parse('2026-03-01T00:00:00Z'));
    expect(parseApiTime('2026-03-01T12:00:00+01:00')).toBe(Date.parse('2026-03-01T11:00:00Z'));
    expect(parseApiTime('yesterday')).toBeNaN();
  });
});
