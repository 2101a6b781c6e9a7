import { createHash, randomBytes } from 'node:crypto';
import { isoSeconds } from '../../../src/lib/time.js';
import { setPassword } from '../../../src/modules/oauth/credentials.js';
import type { TestApp } from '../../helpers/build-test-app.js';

export const PASSWORD = 'correct horse battery';
export const REDIRECT = 'https://app.example.com/callback';

export interface Client {
  id: string;
  secret: string;
  redirect_uri: string;
  public: boolean;
  label: string;
}

export async function createClient(
  t: TestApp,
  body: Partial<{ label: string; redirect_uri: string; public: boolean }> = {},
  token?: string,
): Promise<Client> {
  const r = await t.post(
    '/v4/account/oauth-clients',
    { label: 'Test app', redirect_uri: REDIRECT, ...body },
    token === undefined ? {} : { token },
  );
  if (r.status !== 200) throw new Error(`createClient: ${r.status} ${r.text}`);
  return r.body;
}

/** Gives a user a password the sign-in page accepts. */
export async function givePassword(t: TestApp, username: string, pw = PASSWORD): Promise<void> {
  const u = await t.ctx.db.db
    .selectFrom('users')
    .select('id')
    .where('username', '=', username)
    .executeTakeFirstOrThrow();
  await setPassword(t.ctx.db, u.id, pw, isoSeconds(t.clock.nowMs()));
}

export const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
};

export function form(t: TestApp, url: string, fields: Record<string, string>, headers = {}) {
  return t.app.inject({
    method: 'POST',
    url,
    payload: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  });
}

export function authorizeQuery(
  c: Client,
  extra: Record<string, string> = {},
): Record<string, string> {
  return { client_id: c.id, response_type: 'code', scopes: '*', state: 'st-1', ...extra };
}

/** Signs in on the page; answers the response (consent page on success). */
export function signIn(
  t: TestApp,
  query: Record<string, string>,
  username = 'owner',
  password = PASSWORD,
  tfa_code = '',
) {
  return form(t, '/oauth/login', { ...query, username, password, tfa_code });
}

export const ticketOf = (html: string) => /name="ticket" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** authorize → sign in → consent; answers the code from the redirect. */
export async function obtainCode(
  t: TestApp,
  c: Client,
  extra: Record<string, string> = {},
  username = 'owner',
): Promise<string> {
  const q = authorizeQuery(c, extra);
  const page = await t.app.inject({
    method: 'GET',
    url: `/oauth/authorize?${new URLSearchParams(q)}`,
  });
  if (page.statusCode !== 200) throw new Error(`authorize: ${page.statusCode} ${page.body}`);
  const consent = await signIn(t, q, username);
  if (consent.statusCode !== 200) throw new Error(`sign-in: ${consent.statusCode} ${consent.body}`);
  const back = await form(t, '/oauth/consent', {
    ticket: ticketOf(consent.body),
    decision: 'approve',
  });
  const to = new URL(String(back.headers.location));
  const code = to.searchParams.get('code');
  if (!code) throw new Error(`consent: ${back.statusCode} ${back.headers.location}`);
  return code;
}

export async function exchange(
  t: TestApp,
  c: Client,
  code: string,
  extra: Record<string, string> = {},
) {
  const r = await form(t, '/oauth/token', {
    grant_type: 'authorization_code',
    client_id: c.id,
    ...(c.public ? {} : { client_secret: c.secret }),
    code,
    ...extra,
  });
  return { status: r.statusCode, body: JSON.parse(r.body) };
}

export async function refresh(t: TestApp, c: Client, refreshToken: string, extra = {}) {
  const r = await form(t, '/oauth/token', {
    grant_type: 'refresh_token',
    client_id: c.id,
    ...(c.public ? {} : { client_secret: c.secret }),
    refresh_token: refreshToken,
    ...extra,
  });
  return { status: r.statusCode, body: JSON.parse(r.body) };
}

/** Answers three security questions (two-factor authentication needs them first). */
export async function answerSecurityQuestions(t: TestApp, token?: string): Promise<void> {
  const r = await t.post(
    '/v4/profile/security-questions',
    {
      security_questions: [
        { question_id: 1, response: 'Gotham City' },
        { question_id: 2, response: 'Rex' },
        { question_id: 3, response: 'Blue' },
      ],
    },
    token === undefined ? {} : { token },
  );
  if (r.status !== 200) throw new Error(`security questions: ${r.status} ${r.text}`);
}
