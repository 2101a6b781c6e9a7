import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SECURITY_QUESTIONS } from '../../../src/modules/oauth/security-questions.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';

const URL = '/v4/profile/security-questions';
const three = (ids = [1, 2, 11], responses = ['Gotham City', 'Rex', 'Acme Corp']) => ({
  security_questions: ids.map((question_id, i) => ({
    question_id,
    response: responses[i] ?? 'answer',
  })),
});

describe('profile security questions', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await buildTestApp();
  });
  afterEach(async () => {
    await t.close();
  });

  const stored = () =>
    t.ctx.db.db
      .selectFrom('security_answers')
      .selectAll()
      .where('user_id', '=', t.admin.userId)
      .orderBy('question_id')
      .execute();

  it('getSecurityQuestions: the fixed list of questions with ids, none answered at first', async () => {
    const r = await t.get(URL);
    expect(r.status).toBe(200);
    expect(r.body.security_questions.length).toBe(SECURITY_QUESTIONS.length);
    expect(r.body.security_questions[0]).toEqual({
      id: 1,
      question: 'In what city were you born?',
      response: null,
    });
    const ids = r.body.security_questions.map((q: { id: number }) => q.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(r.body.security_questions.every((q: { response: unknown }) => q.response === null)).toBe(
      true,
    );
  });

  it('postSecurityQuestions: answers three; the reply names each question; GET marks them answered without showing them', async () => {
    const r = await t.post(URL, three());
    expect(r.status).toBe(200);
    expect(r.body.security_questions).toEqual([
      { question_id: 1, response: 'Gotham City', security_question: 'In what city were you born?' },
      {
        question_id: 2,
        response: 'Rex',
        security_question: 'What was the name of your first pet?',
      },
      {
        question_id: 11,
        response: 'Acme Corp',
        security_question: 'What was the name of your first employer?',
      },
    ]);
    const list = (await t.get(URL)).body.security_questions as { id: number; response: unknown }[];
    const answered = list.filter((q) => q.response !== null);
    expect(answered.map((q) => q.id)).toEqual([1, 2, 11]);
    expect(answered.every((q) => q.response === '<REDACTED>')).toBe(true);
    expect(JSON.stringify(list)).not.toContain('Gotham');
  });

  it('postSecurityQuestions: answers are stored as scrypt hashes of their normalized text, never in clear', async () => {
    await t.post(URL, three());
    const rows = await stored();
    expect(rows.map((r) => r.question_id)).toEqual([1, 2, 11]);
    for (const row of rows) expect(row.response_hash).toMatch(/^scrypt\$/);
    expect(JSON.stringify(rows)).not.toMatch(/gotham|rex|acme/i);
    const q = t.ctx.areas.oauth.securityQuestions;
    expect(await q.check(t.admin.userId, 1, '  gotham   CITY ')).toBe(true);
    expect(await q.check(t.admin.userId, 1, 'Metropolis')).toBe(false);
    expect(await q.check(t.admin.userId, 3, 'Gotham City')).toBe(false);
  });

  it('postSecurityQuestions: previous answers are overwritten, and questions not answered again become null', async () => {
    await t.post(URL, three([1, 2, 11]));
    expect((await t.post(URL, three([2, 5, 9], ['Fido', 'Lincoln', 'Sparky']))).status).toBe(200);
    const list = (await t.get(URL)).body.security_questions as { id: number; response: unknown }[];
    expect(list.filter((q) => q.response !== null).map((q) => q.id)).toEqual([2, 5, 9]);
    expect(await t.ctx.areas.oauth.securityQuestions.check(t.admin.userId, 2, 'fido')).toBe(true);
    expect(await t.ctx.areas.oauth.securityQuestions.check(t.admin.userId, 1, 'Gotham City')).toBe(
      false,
    );
  });

  it('postSecurityQuestions: exactly three questions are required', async () => {
    for (const body of [three([1, 2]), three([1, 2, 3, 4]), { security_questions: [] }]) {
      const r = await t.post(URL, body);
      expect(r.status).toBe(400);
      expect(r.body.errors[0].field).toBe('security_questions');
    }
    expect((await t.post(URL, {})).status).toBe(400);
    expect(await stored()).toEqual([]);
  });

  it('postSecurityQuestions: the three questions must be distinct and on the list', async () => {
    const dup = await t.post(URL, three([1, 2, 1]));
    expect(dup.status).toBe(400);
    expect(dup.body.errors).toEqual([
      { field: 'security_questions[2].question_id', reason: 'Security questions must be unique' },
    ]);
    const unknown = await t.post(URL, three([1, 2, 999]));
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].field).toBe('security_questions[2].question_id');
    expect((await t.post(URL, three([1, 2, 0]))).status).toBe(400);
    expect(await stored()).toEqual([]);
  });

  it('postSecurityQuestions: responses are 3 to 17 characters (surrounding spaces not counted)', async () => {
    const short = await t.post(URL, three([1, 2, 3], ['Gotham', 'ab', 'Blue']));
    expect(short.status).toBe(400);
    expect(short.body.errors[0].field).toBe('security_questions[1].response');
    const long = await t.post(URL, three([1, 2, 3], ['Gotham', 'Rex', 'x'.repeat(18)]));
    expect(long.status).toBe(400);
    expect(long.body.errors[0].field).toBe('security_questions[2].response');
    expect((await t.post(URL, three([1, 2, 3], ['Gotham', '  ab  ', 'Blue']))).status).toBe(400);
    expect(await stored()).toEqual([]);
    const edge = await t.post(URL, three([1, 2, 3], ['abc', ' Rex ', 'x'.repeat(17)]));
    expect(edge.status).toBe(200);
    expect(edge.body.security_questions[1].response).toBe('Rex');
  });

  it('postSecurityQuestions: needs account:read_write; account:read_only may list', async () => {
    const ro = await createTestUser(t, { restricted: false, scopes: 'account:read_only' });
    expect((await t.get(URL, { token: ro.token })).status).toBe(200);
    expect((await t.post(URL, three(), { token: ro.token })).status).toBe(401);
    const other = await createTestUser(t, { restricted: false, scopes: 'events:read_only' });
    expect((await t.get(URL, { token: other.token })).status).toBe(401);
  });

  it('postSecurityQuestions: each user, restricted ones too, has their own answers', async () => {
    const u = await createTestUser(t, { restricted: true });
    expect((await t.post(URL, three([4, 5, 6]), { token: u.token })).status).toBe(200);
    const mine = (await t.get(URL)).body.security_questions as { response: unknown }[];
    expect(mine.every((q) => q.response === null)).toBe(true);
    const theirs = (await t.get(URL, { token: u.token })).body.security_questions as {
      id: number;
      response: unknown;
    }[];
    expect(theirs.filter((q) => q.response !== null).map((q) => q.id)).toEqual([4, 5, 6]);
  });

  it('tfaEnable: refused until the security questions are answered', async () => {
    const before = await t.post('/v4/profile/tfa-enable');
    expect(before.status).toBe(400);
    expect(before.body.errors[0].reason).toMatch(/security questions/);
    await t.post(URL, three());
    const after = await t.post('/v4/profile/tfa-enable');
    expect(after.status).toBe(200);
    expect(after.body.secret).toMatch(/^[A-Z2-7]{32}$/);
  });

  it('postSecurityQuestions: answers sent at once leave exactly three, all of one request', async () => {
    const sets = Array.from({ length: 10 }, (_, i) => [i + 1, i + 2, i + 3]);
    const all = await Promise.all(sets.map((ids) => t.post(URL, three(ids))));
    expect(all.map((r) => r.status)).toEqual(sets.map(() => 200));
    const ids = (await stored()).map((r) => r.question_id);
    expect(sets.map((s) => [...s].sort((a, b) => a - b).join())).toContain(ids.join());
  });
});
