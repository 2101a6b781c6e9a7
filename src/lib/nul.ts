/**
 * The dotted path of the first string (value or key) holding a NUL character in a parsed JSON
 * value, or undefined. PostgreSQL cannot store NUL in text, so such input is refused up front
 * on both engines. Iterative: a deeply nested body cannot overflow the stack.
 */
export function nulPath(value: unknown, base = ''): string | undefined {
  // Most input has no NUL: a scan that builds no paths answers it (this runs for every request's
  // params, query and body); the paths are built only when there is one to name.
  if (!hasNul(value)) return undefined;
  const stack: [unknown, string][] = [[value, base]];
  while (stack.length > 0) {
    const [v, path] = stack.pop() as [unknown, string];
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return path;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push([v[i], path === '' ? `${i}` : `${path}.${i}`]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const p = path === '' ? k : `${path}.${k}`;
        if (k.includes('\u0000')) return p;
        stack.push([x, p]);
      }
    }
  }
  return undefined;
}

/** Whether any string (value or key) in a parsed JSON value holds a NUL character. */
function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (value === null || typeof value !== 'object') return false;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (Array.isArray(v)) {
      for (const x of v) stack.push(x);
    } else if (v !== null && typeof v === 'object') {
      for (const k of Object.keys(v)) {
        if (k.includes('\u0000')) return true;
        stack.push((v as Record<string, unknown>)[k]);
      }
    }
  }
  return false;
}
