/**
 * The signed-in session, kept in this tab's sessionStorage (gone with the tab): the API token
 * (from the login service, or a personal access token pasted in), and the operator token.
 */
export interface Session {
  token: string;
  kind: 'oauth' | 'pat';
  /** OAuth only: the refresh token and when the access token expires (epoch ms). */
  refresh?: string;
  expires?: number;
}

const KEY = 'stratus.session';
const OPERATOR = 'stratus.operator';

export function getSession(): Session | undefined {
  const raw = sessionStorage.getItem(KEY);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as Session;
  } catch {
    return undefined;
  }
}

export function setSession(s: Session | undefined): void {
  if (s) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
  window.dispatchEvent(new Event('stratus-session'));
}

export function getOperatorToken(): string | undefined {
  return sessionStorage.getItem(OPERATOR) ?? undefined;
}

export function setOperatorToken(t: string | undefined): void {
  if (t) sessionStorage.setItem(OPERATOR, t);
  else sessionStorage.removeItem(OPERATOR);
  window.dispatchEvent(new Event('stratus-session'));
}
