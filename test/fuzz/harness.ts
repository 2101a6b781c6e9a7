import { expect } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/build-test-app.js';
import type { FuzzRequest } from './arbitraries.js';
import { changed, type Known, StateDigest, seedFixtures } from './fixtures.js';
import { type Operation, operations } from './operations.js';

/** What the fuzzer found, per kind (the figures of docs/robustness.md). */
export interface Tally {
  requests: number;
  byStatus: Record<string, number>;
  rebuilds: number;
}

/**
 * One app with one entity of each kind, the digest of its state before the next request, and
 * the checks every answer must pass. A request that succeeds moves the baseline; one that
 * destroys the fuzzer's own session (account cancelled, …) gets a fresh app.
 */
export class Harness {
  t!: TestApp;
  known: Known = {};
  private restricted = '';
  private digest!: StateDigest;
  private base: Record<string, string> = {};
  readonly tally: Tally = { requests: 0, byStatus: {}, rebuilds: 0 };

  async fresh(): Promise<void> {
    if (this.t) {
      await this.close();
      this.tally.rebuilds++;
    }
    this.t = await buildTestApp();
    const f = await seedFixtures(this.t);
    this.known = f.known;
    this.restricted = f.restricted;
    this.digest = new StateDigest(this.t);
    await this.digest.init();
    this.base = await this.digest.take();
  }

  /** Closes the app and the digest's connection. */
  async close(): Promise<void> {
    await this.digest.close();
    await this.t.close();
  }

  async operations(): Promise<Operation[]> {
    const doc = await this.t.get('/v4/openapi.json', { token: null });
    expect(doc.status).toBe(200);
    return operations(doc.body);
  }

  async send(method: string, req: FuzzRequest) {
    const headers: Record<string, string> = {};
    if (req.who === 'admin') headers.authorization = `Bearer ${this.t.admin.token}`;
    if (req.who === 'restricted') headers.authorization = `Bearer ${this.restricted}`;
    if (req.filter !== undefined) headers['x-filter'] = req.filter;
    let payload: string | Buffer | undefined;
    if (req.body.kind === 'json') {
      payload = JSON.stringify(req.body.value) ?? 'null';
      headers['content-type'] = req.body.contentType;
    } else if (req.body.kind === 'raw') {
      payload = req.body.text;
      if (req.body.contentType) headers['content-type'] = req.body.contentType;
    }
    return this.t.app.inject({
      method: method as 'GET',
      url: req.url,
      headers,
      ...(payload !== undefined ? { payload } : {}),
    });
  }

  /** Sends one request and checks its answer and the state. */
  async check(op: Operation, req: FuzzRequest): Promise<void> {
    const res = await this.send(op.method, req);
    const status = res.statusCode;
    this.tally.requests++;
    const key = `${Math.floor(status / 100)}xx`;
    this.tally.byStatus[key] = (this.tally.byStatus[key] ?? 0) + 1;
    const what = `${op.method} ${req.url.slice(0, 300)} → ${status} ${res.body.slice(0, 500)}`;
    expect(status, what).toBeLessThan(500);
    if (status >= 400) {
      let body: unknown;
      try {
        body = JSON.parse(res.body);
      } catch {
        body = undefined;
      }
      expect(isApiError(body), `not in the API error format: ${what}`).toBe(true);
      const after = await this.digest.take();
      expect(changed(this.base, after), `a refused request changed state: ${what}`).toEqual([]);
      return;
    }
    // Accepted: let its work finish, then it is the new baseline (or a fresh app if the
    // fuzzer's own token or account is gone).
    await this.t.settle();
    const me = await this.t.get('/v4/profile');
    if (me.status !== 200) await this.fresh();
    else this.base = await this.digest.take();
  }
}

/** `{errors: [{reason, field?}, …]}` and nothing else. */
export function isApiError(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const keys = Object.keys(body);
  if (keys.length !== 1 || keys[0] !== 'errors') return false;
  const list = (body as { errors: unknown }).errors;
  if (!Array.isArray(list) || list.length === 0) return false;
  return list.every((e) => {
    if (typeof e !== 'object' || e === null) return false;
    const { reason, field, ...rest } = e as Record<string, unknown>;
    return (
      typeof reason === 'string' &&
      reason !== '' &&
      (field === undefined || typeof field === 'string') &&
      Object.keys(rest).length === 0
    );
  });
}
