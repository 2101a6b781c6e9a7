let lastSecond = Number.NaN;
let lastText = '';

/**
 * The API's timestamp form: UTC, no zone suffix, whole seconds ("2018-01-01T00:01:01"). Every
 * request formats the current second a few times: the last second's text is kept.
 */
export function isoSeconds(d: Date | number): string {
  const second = Math.floor((typeof d === 'number' ? d : d.getTime()) / 1000);
  if (second !== lastSecond) {
    lastText = new Date(second * 1000).toISOString().slice(0, 19);
    lastSecond = second;
  }
  return lastText;
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
