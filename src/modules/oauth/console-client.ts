/** The web console's OAuth client: a system client every account's users sign in through. */
export const CONSOLE_CLIENT_ID = 'stratus-console';

/** Where the console receives the authorization code (relative to the server's address). */
export const CONSOLE_REDIRECT_PATH = '/console/callback';

/**
 * A client's redirect URI as the browser must be sent to: a system client's path-absolute URI
 * follows the address the server is reached at (`origin`: the request's scheme and host, as the
 * RFC 8414 metadata's issuer), so the console works behind any host name and port; a registered
 * client's absolute URI is its own.
 */
export function resolveRedirectUri(stored: string, origin: string): string {
  return stored.startsWith('/') ? `${origin}${stored}` : stored;
}
