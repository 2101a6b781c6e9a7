/** The API's timestamp form: UTC, no zone suffix, whole seconds ("2018-01-01T00:01:01"). */
export function isoSeconds(d: Date | number): string {
  return new Date(d).toISOString().slice(0, 19);
}

/** Parses an API timestamp (zone suffix optional, UTC assumed). Returns NaN when invalid. */
export function parseApiTime(s: string): number {
  if (!/^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(s))
    return Number.NaN;
  const withZone = /(Z|[+-]\d{2}:?\d{2})$/.test(s)
    ? s
    : `${s.length === 10 ? `${s}T00:00:00` : s}Z`;
  return Date.parse(withZone);
}
