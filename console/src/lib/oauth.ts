import { type Session, setSession } from './session';

/** The console's OAuth client, registered by Stratus itself (public, PKCE S256). */
export const CLIENT_ID = 'stratus-console';
const PENDING = 'stratus.pkce';

function base64url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomString(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(32)));
}

async function sha256(text: string): Promise<Uint8Array> {
  const data = new TextEncoder().encode(text);
  // crypto.subtle exists in secure contexts only (https, localhost): elsewhere a kept library.
  if (globalThis.crypto?.subtle) return new Uint8Array(await crypto.subtle.digest('SHA-256', data));
  const { sha256: hash } = await import('@noble/hashes/sha2.js');
  return hash(data);
}

/** Sends the browser to the login service: sign-in, consent, then back to /console/callback. */
export async function startSignIn(returnTo: string): Promise<void> {
  const verifier = randomString();
  const state = randomString();
  sessionStorage.setItem(PENDING, JSON.stringify({ verifier, state, returnTo }));
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: CLIENT_ID,
    scopes: '*',
    state,
    code_challenge: base64url(await sha256(verifier)),
    code_challenge_method: 'S256',
  });
  window.location.assign(`/oauth/authorize?${q}`);
}

interface TokenReply {
  access_token?: string;
  refresh_token?: string;
  expires_in?: number;
  error?: string;
  error_description?: string;
}

async function tokenRequest(form: Record<string, string>): Promise<TokenReply> {
  const res = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return (await res.json()) as TokenReply;
}

function store(r: TokenReply): boolean {
  if (!r.access_token) return false;
  setSession({
    token: r.access_token,
    kind: 'oauth',
    ...(r.refresh_token ? { refresh: r.refresh_token } : {}),
    expires: Date.now() + (r.expires_in ?? 7200) * 1000,
  });
  return true;
}

/** The redirect back: checks the state, trades the code (with the verifier) for tokens. */
export async function finishSignIn(params: URLSearchParams): Promise<string> {
  const pending = JSON.parse(sessionStorage.getItem(PENDING) ?? 'null') as {
    verifier: string;
    state: string;
    returnTo: string;
  } | null;
  sessionStorage.removeItem(PENDING);
  const error = params.get('error');
  if (error) throw new Error(params.get('error_description') ?? error);
  if (!pending || params.get('state') !== pending.state)
    throw new Error('This sign-in was not started here, or has expired. Sign in again.');
  const r = await tokenRequest({
    grant_type: 'authorization_code',
    code: params.get('code') ?? '',
    client_id: CLIENT_ID,
    code_verifier: pending.verifier,
  });
  if (!store(r)) throw new Error(r.error_description ?? r.error ?? 'The sign-in failed.');
  return pending.returnTo;
}

/** A new access token from the refresh token (rotated); false when it is refused. */
export async function refreshSession(s: Session): Promise<boolean> {
  if (!s.refresh) return false;
  const r = await tokenRequest({
    grant_type: 'refresh_token',
    refresh_token: s.refresh,
    client_id: CLIENT_ID,
  });
  if (store(r)) return true;
  setSession(undefined);
  return false;
}

/** Revokes the session's tokens at the login service (OAuth) and forgets them. */
export async function signOut(s: Session | undefined): Promise<void> {
  setSession(undefined);
  if (s?.kind === 'oauth' && s.refresh)
    await fetch('/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: s.refresh, client_id: CLIENT_ID }),
    }).catch(() => undefined);
}
