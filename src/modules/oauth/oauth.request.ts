/** A validated authorization request (RFC 6749 §4.1.1 with PKCE, RFC 7636). */
export interface AuthRequest {
  clientId: string;
  /** The registered redirect URI (the only one accepted). */
  redirectUri: string;
  /** Whether the request named redirect_uri (the token request must then repeat it). */
  explicitRedirect: boolean;
  scopes: string;
  state: string | null;
  codeChallenge: string | null;
}

/** The URL a result goes back to the client at: the redirect URI with its query parameters. */
export function redirectWith(uri: string, params: Record<string, string | null>): string {
  const u = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== null) u.searchParams.set(k, v);
  return u.toString();
}
