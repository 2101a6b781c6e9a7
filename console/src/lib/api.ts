import { getOperatorToken, getSession, type Session, setSession } from './session';
import { refreshSession } from './oauth';

/** One element of the API's error envelope. */
export interface FieldError {
  field?: string;
  reason: string;
}

/** A failed call: the HTTP status and the API's `{errors: [{field?, reason}]}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly errors: FieldError[],
  ) {
    super(errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason)).join('; '));
    this.name = 'ApiError';
  }
}

/** The paged envelope of every collection. */
export interface Page<T> {
  data: T[];
  page: number;
  pages: number;
  results: number;
}

export interface CallOptions {
  body?: unknown;
  /** X-Filter (an object is sent as JSON). */
  filter?: unknown;
  query?: Record<string, string | number | undefined>;
  /** Operator endpoints (`/_stratus/…`): the operator token instead of the API token. */
  operator?: boolean;
  /** The raw Response instead of parsed JSON (downloads, text). */
  raw?: boolean;
  contentType?: string;
}

async function send(method: string, url: string, o: CallOptions, token?: string) {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (o.filter !== undefined)
    headers['x-filter'] = typeof o.filter === 'string' ? o.filter : JSON.stringify(o.filter);
  let body: BodyInit | undefined;
  if (o.body !== undefined) {
    // multipart/form-data: the browser writes the content type with its boundary.
    if (o.body instanceof FormData) body = o.body;
    else if (o.contentType) {
      headers['content-type'] = o.contentType;
      body = o.body as BodyInit;
    } else {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(o.body);
    }
  }
  return fetch(url, { method, headers, ...(body !== undefined ? { body } : {}) });
}

function urlOf(path: string, o: CallOptions): string {
  const base = o.operator || path.startsWith('/_stratus') ? '' : '/v4';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) q.set(k, String(v));
  const qs = q.toString();
  return `${base}${path}${qs ? `?${qs}` : ''}`;
}

let refreshing: Promise<boolean> | undefined;

/**
 * One refresh at a time: refresh tokens rotate, and the login service revokes the whole family
 * when a used one comes back, so calls that fail together must share one refresh.
 */
function refreshOnce(s: Session): Promise<boolean> {
  refreshing ??= refreshSession(s).finally(() => {
    refreshing = undefined;
  });
  return refreshing;
}

/** Calls the API (`/v4`) or an operator endpoint; throws ApiError on a failure. */
export async function api<T = unknown>(
  method: string,
  path: string,
  o: CallOptions = {},
): Promise<T> {
  const url = urlOf(path, o);
  const token = o.operator ? getOperatorToken() : getSession()?.token;
  let res = await send(method, url, o, token);
  if (res.status === 401 && !o.operator) {
    // An OAuth access token lives 2 hours: one refresh (shared), then the call again.
    const s = getSession();
    if (s && s.token !== token) res = await send(method, url, o, s.token);
    else if (s?.kind === 'oauth' && s.refresh && (await refreshOnce(s)))
      res = await send(method, url, o, getSession()?.token);
    else if (s) setSession(undefined);
  }
  if (o.raw) {
    if (!res.ok) throw await errorOf(res);
    return res as T;
  }
  if (!res.ok) throw await errorOf(res);
  const text = await res.text();
  return (text === '' ? {} : JSON.parse(text)) as T;
}

async function errorOf(res: Response): Promise<ApiError> {
  try {
    const body = (await res.json()) as { errors?: FieldError[] };
    if (Array.isArray(body.errors) && body.errors.length > 0)
      return new ApiError(res.status, body.errors);
  } catch {
    // not the envelope
  }
  return new ApiError(res.status, [{ reason: `${res.status} ${res.statusText}` }]);
}

export const get = <T = unknown>(path: string, o?: CallOptions) => api<T>('GET', path, o);
export const post = <T = unknown>(path: string, body?: unknown, o?: CallOptions) =>
  api<T>('POST', path, { ...o, ...(body !== undefined ? { body } : {}) });
export const put = <T = unknown>(path: string, body?: unknown, o?: CallOptions) =>
  api<T>('PUT', path, { ...o, ...(body !== undefined ? { body } : {}) });
export const del = <T = unknown>(path: string, o?: CallOptions) => api<T>('DELETE', path, o);

/** Every page of a collection (selectors: regions, types, images, …). */
export async function all<T>(path: string, filter?: unknown): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; ; page++) {
    const p = await get<Page<T>>(path, { query: { page, page_size: 500 }, filter });
    out.push(...p.data);
    if (page >= p.pages) return out;
  }
}
