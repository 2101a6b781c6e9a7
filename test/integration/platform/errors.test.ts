import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../src/errors/api-error.js';
import { errors } from '../../../src/errors/errors.js';
import { errorHandler } from '../../../src/http/error-handler.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const NOT_FOUND = { errors: [{ reason: 'Not found' }] };
const MALFORMED = { errors: [{ reason: 'Malformed JSON in request body' }] };
const INTERNAL = { errors: [{ reason: 'An internal error occurred. Please try again later.' }] };

/** Records one finished event on the test account; returns its id. */
async function recordEvent(t: TestApp): Promise<number> {
  return t.ctx.events.record(t.ctx.db, {
    accountId: t.admin.accountId,
    action: 'profile_update',
    entity: null,
    status: 'notification',
    username: 'owner',
  });
}

describe('error envelope (HTTP)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await buildTestApp({ bodyLimit: 1024 });
  });
  afterAll(async () => {
    await t.close();
  });

  it('any path: unknown paths under /v4 and /v4beta are 404 Not found without a field', async () => {
    for (const url of ['/v4/nowhere', '/v4beta/nowhere/at/all', '/v4/compute/nothing', '/nope']) {
      const r = await t.get(url);
      expect(r.status, url).toBe(404);
      expect(r.body, url).toEqual(NOT_FOUND);
      expect(r.headers['content-type']).toMatch(/^application\/json/);
    }
  });

  it('getEvent: an unknown id is 404 Not found', async () => {
    const r = await t.get('/v4/account/events/999999');
    expect(r.status).toBe(404);
    expect(r.body).toEqual(NOT_FOUND);
    const beta = await t.get('/v4beta/account/events/999999');
    expect(beta.status).toBe(404);
    expect(beta.body).toEqual(NOT_FOUND);
  });

  it('getEvent: an id of the wrong form names nothing and is 404', async () => {
    const r = await t.get('/v4/account/events/abc');
    expect(r.status).toBe(404);
    expect(r.body).toEqual(NOT_FOUND);
  });

  it('getRegion: an undecodable path is 404 in the error envelope', async () => {
    const r = await t.get('/v4/regions/%E0%A4%A');
    expect(r.status).toBe(404);
    expect(r.body).toEqual(NOT_FOUND);
  });

  it('getRegion: an over-long path parameter is 404 in the error envelope', async () => {
    const r = await t.get(`/v4/regions/${'x'.repeat(300)}`);
    expect(r.status).toBe(404);
    expect(r.body).toEqual(NOT_FOUND);
  });

  it('getEvents: a known path with another method is 405 with an Allow header', async () => {
    const r = await t.request('DELETE', '/v4/account/events');
    expect(r.status).toBe(405);
    expect(r.body).toEqual({ errors: [{ reason: 'Method Not Allowed' }] });
    expect(r.headers.allow).toBe('GET');
    const post = await t.request('PUT', '/v4beta/account/events/1/seen');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('POST');
  });

  it('eventSeen: a text/plain body is 415', async () => {
    const r = await t.post('/v4/account/events/1/seen', 'hello', {
      headers: { 'content-type': 'text/plain' },
    });
    expect(r.status).toBe(415);
    expect(r.body).toEqual({
      errors: [{ reason: 'Unsupported Content-Type; use application/json' }],
    });
  });

  it('eventSeen: a body over STRATUS_BODY_LIMIT is 413', async () => {
    const r = await t.post('/v4/account/events/1/seen', { pad: 'x'.repeat(2000) });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ errors: [{ reason: 'Request body is too large' }] });
  });

  it('eventSeen: a body at the limit is accepted', async () => {
    const id = await recordEvent(t);
    const body = JSON.stringify({ pad: 'x'.repeat(1024 - 10) });
    expect(body.length).toBe(1024);
    const r = await t.post(`/v4/account/events/${id}/seen`, body);
    expect(r.status).toBe(200);
  });

  it('eventSeen: malformed JSON is 400 without a field', async () => {
    const r = await t.post('/v4/account/events/1/seen', '{"oops": ');
    expect(r.status).toBe(400);
    expect(r.body).toEqual(MALFORMED);
  });

  it('eventSeen: a body shorter than its Content-Length is 400, not 415', async () => {
    const r = await t.app.inject({
      method: 'POST',
      url: '/v4/account/events/1/seen',
      headers: {
        authorization: `Bearer ${t.admin.token}`,
        'content-type': 'application/json',
        'content-length': '50',
      },
      payload: '{}',
    });
    expect(r.statusCode).toBe(400);
    expect(r.json()).toEqual({
      errors: [{ reason: 'Request body size does not match Content-Length' }],
    });
  });

  it('eventSeen: an action with no body and no Content-Type works', async () => {
    const id = await recordEvent(t);
    const r = await t.app.inject({
      method: 'POST',
      url: `/v4/account/events/${id}/seen`,
      headers: { authorization: `Bearer ${t.admin.token}` },
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({});
  });

  it('eventRead: an empty body with Content-Type application/json works', async () => {
    const id = await recordEvent(t);
    const r = await t.app.inject({
      method: 'POST',
      url: `/v4/account/events/${id}/read`,
      headers: { authorization: `Bearer ${t.admin.token}`, 'content-type': 'application/json' },
      payload: '',
    });
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({});
    const ev = await t.get(`/v4/account/events/${id}`);
    expect(ev.body.read).toBe(true);
  });

  it('getEvents: a field error names the field; every failing field is reported', async () => {
    const r = await t.get('/v4/account/events?page=0&page_size=1000');
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      errors: [
        { reason: 'page must be at least 1', field: 'page' },
        { reason: 'page_size must be between 25 and 500', field: 'page_size' },
      ],
    });
  });
});

describe('internal errors (HTTP)', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    // The database is already closed by the test; close the rest.
    await t.close().catch(() => undefined);
  });

  it('getProfile: a failing database gives 500 that says nothing of internals', async () => {
    await t.ctx.db.close();
    const r = await t.get('/v4/profile');
    expect(r.status).toBe(500);
    expect(r.body).toEqual(INTERNAL);
    expect(r.text).not.toMatch(/sqlite|postgres|kysely|stack|destroy|closed|driver/i);
  });
});

interface Sent {
  status?: number;
  body?: unknown;
  headers: Record<string, string>;
}

function fakeReply(): { reply: FastifyReply; sent: Sent } {
  const sent: Sent = { headers: {} };
  const reply = {
    header(k: string, v: string) {
      sent.headers[k] = v;
      return reply;
    },
    status(s: number) {
      sent.status = s;
      return reply;
    },
    send(b: unknown) {
      sent.body = b;
      return reply;
    },
  };
  return { reply: reply as unknown as FastifyReply, sent };
}

function fakeRequest(id = 'req-42') {
  const error = vi.fn();
  const req = { id, log: { error, info: vi.fn(), warn: vi.fn() } } as unknown as FastifyRequest;
  return { req, error };
}

function fastifyError(code: string, statusCode: number, extra: object = {}): FastifyError {
  return Object.assign(new Error(code), { code, statusCode, ...extra }) as FastifyError;
}

describe('errorHandler (unit)', () => {
  it('errorHandler: an unexpected error is 500 with a generic reason, logged through the request logger (which carries the request id)', () => {
    const { reply, sent } = fakeReply();
    const { req, error } = fakeRequest('req-7f');
    const err = new Error('relation "secret_table" does not exist at /srv/stratus/src/x.ts:12');
    errorHandler(err, req, reply);
    expect(sent.status).toBe(500);
    expect(sent.body).toEqual(INTERNAL);
    expect(JSON.stringify(sent.body)).not.toContain('secret_table');
    expect(error).toHaveBeenCalledTimes(1);
    // req.log is the request's child logger: it adds reqId to every line once.
    expect(error).toHaveBeenCalledWith({ err }, 'unhandled error');
  });

  it('errorHandler: a SyntaxError thrown by server code is 500, not a client error', () => {
    const { reply, sent } = fakeReply();
    const { req, error } = fakeRequest();
    errorHandler(new SyntaxError('Unexpected token } in JSON at position 7'), req, reply);
    expect(sent.status).toBe(500);
    expect(sent.body).toEqual(INTERNAL);
    expect(error).toHaveBeenCalledTimes(1);
  });

  it('errorHandler: an ApiError is sent as is, with its headers and without logging', () => {
    const { reply, sent } = fakeReply();
    const { req, error } = fakeRequest();
    errorHandler(errors.tooManyRequests(12), req, reply);
    expect(sent.status).toBe(429);
    expect(sent.body).toEqual({ errors: [{ reason: 'Too many requests' }] });
    expect(sent.headers['Retry-After']).toBe('12');
    expect(error).not.toHaveBeenCalled();
  });

  it('errorHandler: a field error keeps its field; a non-field error has no field key', () => {
    const { reply, sent } = fakeReply();
    const { req } = fakeRequest();
    errorHandler(
      new ApiError(400, [{ field: 'label', reason: 'Label is required' }, { reason: 'Also' }], 'x'),
      req,
      reply,
    );
    expect(sent.body).toEqual({
      errors: [{ field: 'label', reason: 'Label is required' }, { reason: 'Also' }],
    });
    const items = (sent.body as { errors: object[] }).errors;
    expect(Object.keys(items[1] as object)).toEqual(['reason']);
  });

  it('errorHandler: body validation errors are 400 naming each field', () => {
    const { reply, sent } = fakeReply();
    const { req } = fakeRequest();
    const err = fastifyError('FST_ERR_VALIDATION', 400, {
      validationContext: 'body',
      validation: [
        {
          keyword: 'required',
          instancePath: '',
          schemaPath: '#/required',
          params: { missingProperty: 'label' },
          message: "must have required property 'label'",
        },
        {
          keyword: 'type',
          instancePath: '/size',
          schemaPath: '#/properties/size/type',
          params: { type: 'integer' },
          message: 'must be integer',
        },
      ],
    });
    errorHandler(err, req, reply);
    expect(sent.status).toBe(400);
    expect(sent.body).toEqual({
      errors: [
        { field: 'label', reason: 'label is required' },
        { field: 'size', reason: 'size must be an integer' },
      ],
    });
  });

  it('errorHandler: a path parameter validation error is 404 Not found', () => {
    const { reply, sent } = fakeReply();
    const { req } = fakeRequest();
    errorHandler(
      fastifyError('FST_ERR_VALIDATION', 400, { validationContext: 'params', validation: [] }),
      req,
      reply,
    );
    expect(sent.status).toBe(404);
    expect(sent.body).toEqual(NOT_FOUND);
  });

  it('errorHandler: framework body errors map to 415, 413 and 400', () => {
    const cases: [string, number, number, unknown][] = [
      [
        'FST_ERR_CTP_INVALID_MEDIA_TYPE',
        415,
        415,
        { errors: [{ reason: 'Unsupported Content-Type; use application/json' }] },
      ],
      [
        'FST_ERR_CTP_BODY_TOO_LARGE',
        413,
        413,
        { errors: [{ reason: 'Request body is too large' }] },
      ],
      ['FST_ERR_CTP_INVALID_JSON_BODY', 400, 400, MALFORMED],
      ['FST_ERR_CTP_EMPTY_JSON_BODY', 400, 400, MALFORMED],
      ['FST_ERR_BAD_URL', 400, 404, NOT_FOUND],
      ['FST_ERR_MAX_PARAM_LENGTH', 414, 404, NOT_FOUND],
    ];
    for (const [code, statusCode, status, body] of cases) {
      const { reply, sent } = fakeReply();
      const { req, error } = fakeRequest();
      errorHandler(fastifyError(code, statusCode), req, reply);
      expect(sent.status, code).toBe(status);
      expect(sent.body, code).toEqual(body);
      expect(error, code).not.toHaveBeenCalled();
    }
  });
});
