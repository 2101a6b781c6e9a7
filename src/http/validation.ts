import type { ErrorObject } from 'ajv';
import type { ErrorItem } from '../errors/api-error.js';

interface Bounds {
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  errorMessage?: string;
  enum?: unknown[];
}

const typeNames: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'a boolean',
  object: 'an object',
  array: 'an array',
  null: 'null',
};

function fieldPath(instancePath: string, extra?: string): string {
  const parts = instancePath
    .split('/')
    .filter((p) => p !== '')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra) parts.push(extra);
  return parts.join('.');
}

function range(lo: number | undefined, hi: number | undefined, unit: string): string {
  if (lo !== undefined && hi !== undefined) return `${lo}-${hi}${unit}`;
  if (lo !== undefined) return `at least ${lo}${unit}`;
  return `at most ${hi}${unit}`;
}

function reasonFor(e: ErrorObject, field: string): string {
  const ps = (e.parentSchema ?? {}) as Bounds;
  if (ps.errorMessage && e.keyword !== 'required' && e.keyword !== 'type') return ps.errorMessage;
  const name = field.split('.').pop() ?? field;
  switch (e.keyword) {
    case 'required':
      return `${name} is required`;
    case 'type': {
      const t = (e.params as { type: string | string[] }).type;
      const list = (Array.isArray(t) ? t : t.split(',')).filter((x) => x !== 'null');
      return `${name} must be ${list.map((x) => typeNames[x] ?? x).join(' or ')}`;
    }
    case 'minLength':
    case 'maxLength':
      return `Length must be ${range(ps.minLength, ps.maxLength, ' characters')}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${name} must be ${ps.minimum !== undefined && ps.maximum !== undefined ? `between ${ps.minimum} and ${ps.maximum}` : range(ps.minimum, ps.maximum, '')}`;
    case 'minItems':
    case 'maxItems':
      return `${name} must have ${range(ps.minItems, ps.maxItems, ' items')}`;
    case 'enum':
      return `${name} must be one of ${((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String).join(', ')}`;
    case 'const':
      return `${name} must be ${String((e.params as { allowedValue: unknown }).allowedValue)}`;
    case 'pattern':
      return `${name} has an invalid format`;
    case 'format':
      return `${name} must be a valid ${(e.params as { format: string }).format}`;
    case 'anyOf':
    case 'oneOf':
      return `${name} is invalid`;
    default:
      return e.message ? `${name} ${e.message}` : `${name} is invalid`;
  }
}

/**
 * Turns AJV errors into the API's error items: one per failing field, dotted paths, and every
 * failing field of the request (AJV runs with allErrors).
 */
export function ajvToErrorItems(errs: ErrorObject[], part: string): ErrorItem[] {
  const byField = new Map<string, ErrorItem>();
  // Errors inside anyOf branches are noise once the anyOf itself is reported.
  const anyOfPaths = new Set(errs.filter((e) => e.keyword === 'anyOf').map((e) => e.instancePath));
  for (const e of errs) {
    if (e.keyword !== 'anyOf' && anyOfPaths.has(e.instancePath)) continue;
    const missing =
      e.keyword === 'required'
        ? (e.params as { missingProperty: string }).missingProperty
        : undefined;
    const field = fieldPath(e.instancePath, missing);
    if (byField.has(field)) continue;
    if (field === '') {
      byField.set(field, {
        reason: part === 'body' ? 'Request body must be a JSON object' : 'Invalid request',
      });
      continue;
    }
    byField.set(field, { field, reason: reasonFor(e, field) });
  }
  return [...byField.values()];
}
