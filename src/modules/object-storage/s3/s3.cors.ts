import type { BucketRow } from '../objects.repository.js';
import { header } from './s3.auth.js';
import { type S3Call, send } from './s3.context.js';
import { S3Error, s3errors } from './s3.errors.js';
import { globMatch } from './s3.policy.js';
import { rootOf, text } from './s3.xml.js';

/** One CORS rule, as PutBucketCors stores it. */
export interface CorsRule {
  id?: string;
  origins: string[];
  methods: string[];
  headers: string[];
  expose: string[];
  maxAge?: number;
}

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'HEAD'];

/** The control plane's `cors_enabled` without rules of its own: every origin (its reference). */
const ALLOW_ALL: CorsRule[] = [
  { origins: ['*'], methods: METHODS, headers: ['*'], expose: ['ETag'], maxAge: 3000 },
];

/** The rules in force: none while CORS is off, the stored ones, or every origin. */
export function corsRules(b: BucketRow): CorsRule[] {
  if (b.cors_enabled !== 1) return [];
  return b.cors ? (JSON.parse(b.cors) as CorsRule[]) : ALLOW_ALL;
}

interface CorsXml {
  CORSRule?: {
    ID?: unknown;
    AllowedOrigin?: unknown[];
    AllowedMethod?: unknown[];
    AllowedHeader?: unknown[];
    ExposeHeader?: unknown[];
    MaxAgeSeconds?: unknown;
  }[];
}

/** Parses a CORSConfiguration document (S3's limits: 100 rules, known methods, one `*`). */
export function parseCors(body: string): CorsRule[] {
  const doc = rootOf<CorsXml>(body, 'CORSConfiguration');
  const rules = doc.CORSRule ?? [];
  if (rules.length === 0 || rules.length > 100) throw s3errors.malformedXml();
  return rules.map((r) => {
    const list = (v: unknown[] | undefined) =>
      (v ?? []).map((x) => text(x) ?? '').filter((x) => x !== '');
    const origins = list(r.AllowedOrigin);
    const methods = list(r.AllowedMethod);
    if (origins.length === 0 || methods.length === 0) throw s3errors.malformedXml();
    for (const m of methods) {
      if (!METHODS.includes(m))
        throw s3errors.invalidRequest(
          `Found unsupported HTTP method in CORS config. Unsupported method is ${m}`,
        );
    }
    for (const o of origins) {
      if (o.split('*').length > 2)
        throw s3errors.invalidRequest(`AllowedOrigin "${o}" can not have more than one wildcard.`);
    }
    const headers = list(r.AllowedHeader);
    for (const h of headers) {
      if (h.split('*').length > 2)
        throw s3errors.invalidRequest(`AllowedHeader "${h}" can not have more than one wildcard.`);
    }
    const maxAge = text(r.MaxAgeSeconds);
    if (maxAge !== undefined && !/^\d+$/.test(maxAge)) throw s3errors.malformedXml();
    const id = text(r.ID);
    return {
      ...(id ? { id } : {}),
      origins,
      methods,
      headers,
      expose: list(r.ExposeHeader),
      ...(maxAge !== undefined ? { maxAge: Number(maxAge) } : {}),
    };
  });
}

/** The CORSConfiguration document of rules. */
export function corsDocument(rules: CorsRule[]) {
  return {
    CORSRule: rules.map((r) => ({
      ...(r.id ? { ID: r.id } : {}),
      AllowedHeader: r.headers,
      AllowedMethod: r.methods,
      AllowedOrigin: r.origins,
      ExposeHeader: r.expose,
      ...(r.maxAge !== undefined ? { MaxAgeSeconds: r.maxAge } : {}),
    })),
  };
}

const originMatches = (r: CorsRule, origin: string) =>
  r.origins.some((o) => o === '*' || globMatch(o, origin, true));
const headerAllowed = (r: CorsRule, h: string) =>
  r.headers.some((p) => p === '*' || globMatch(p, h, true));

/** The first rule that allows this origin, method and request headers. */
function matchRule(
  rules: CorsRule[],
  origin: string,
  method: string,
  headers: string[],
): CorsRule | undefined {
  return rules.find(
    (r) =>
      originMatches(r, origin) &&
      r.methods.includes(method) &&
      headers.every((h) => headerAllowed(r, h)),
  );
}

/** The headers that answer a rule's match (the origin echoed unless the rule allows any). */
function allowHeaders(r: CorsRule, origin: string): Record<string, string> {
  const any = r.origins.includes('*');
  return {
    'access-control-allow-origin': any ? '*' : origin,
    'access-control-allow-methods': r.methods.join(', '),
    ...(any ? {} : { 'access-control-allow-credentials': 'true' }),
    ...(r.expose.length > 0 ? { 'access-control-expose-headers': r.expose.join(', ') } : {}),
    ...(r.maxAge !== undefined ? { 'access-control-max-age': String(r.maxAge) } : {}),
    vary: 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method',
  };
}

/**
 * The CORS headers of an actual request from a browser (an Origin header), by the bucket's rules;
 * on refusals too. The method matched is `Access-Control-Request-Method` when the request has one,
 * else the request's own (RGW, the provider's engine).
 */
export function corsResponseHeaders(c: S3Call, b: BucketRow): Record<string, string> {
  const origin = header(c.req, 'origin');
  if (origin === undefined) return {};
  const method = header(c.req, 'access-control-request-method') ?? c.method;
  const rule = matchRule(corsRules(b), origin, method, []);
  if (!rule) return {};
  const h = allowHeaders(rule, origin);
  delete h['access-control-max-age'];
  return h;
}

/**
 * A CORS preflight (OPTIONS), answered from the bucket's rules: the origin, the requested method
 * and every requested header must be allowed by one rule; else 403, as S3 answers.
 */
export function preflight(c: S3Call, b: BucketRow | undefined): void {
  const origin = header(c.req, 'origin');
  const method = header(c.req, 'access-control-request-method');
  if (origin === undefined)
    throw s3errors.badRequest('Insufficient information. Origin request header needed.');
  if (method === undefined)
    throw s3errors.badRequest(
      'Invalid Access-Control-Request-Method header value. Access-Control-Request-Method is required.',
    );
  const requested = (header(c.req, 'access-control-request-headers') ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h !== '');
  const rules = b ? corsRules(b) : [];
  if (b && rules.length === 0)
    throw new S3Error(403, 'AccessForbidden', 'CORSResponse: CORS is not enabled for this bucket.');
  const rule = matchRule(rules, origin, method, requested);
  if (!rule)
    throw new S3Error(
      403,
      'AccessForbidden',
      "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.",
    );
  const h = allowHeaders(rule, origin);
  if (requested.length > 0) h['access-control-allow-headers'] = requested.join(', ');
  send(c, 200, undefined, h);
}
