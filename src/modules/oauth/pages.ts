import { LOGO_SVG, themeCss } from '../../http/theme.js';

/**
 * The login service's HTML pages: small, self-contained, no script, in the web console's look
 * (the stylesheet they share, inlined).
 */

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · Stratus</title>
<style>${themeCss()}</style>
</head><body><div class="auth-page"><header><span class="brand">${LOGO_SVG} Stratus</span></header>
<main class="auth-card"><h1>${esc(title)}</h1>
${body}
</main></div></body></html>`;
}

/** Hidden fields repeating the authorization request, so the form posts it back. */
function hidden(params: Record<string, string | undefined>): string {
  return Object.entries(params)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v ?? '')}">`)
    .join('\n');
}

export function signInPage(
  clientLabel: string,
  request: Record<string, string | undefined>,
  error?: string,
  username = '',
): string {
  return layout(
    'Sign in',
    `<p>Sign in to continue to <strong>${esc(clientLabel)}</strong>.</p>
${error ? `<p class="error" role="alert">${esc(error)}</p>` : ''}
<form method="post" action="/oauth/login">
${hidden(request)}
<label for="username">Username</label><input id="username" name="username" autocomplete="username" value="${esc(username)}" required>
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="tfa_code">Two-factor code (if enabled)</label><input id="tfa_code" name="tfa_code" inputmode="numeric" autocomplete="one-time-code">
<label class="inline"><input type="checkbox" name="trust_device" value="on"> Trust this device for 30 days (no two-factor code)</label>
<button type="submit">Sign in</button>
</form>`,
  );
}

/** Human wording of each scope area, for the consent page. */
function scopeItems(scopes: string): string {
  if (scopes === '*') return '<li>Full access to your account: <code>*</code></li>';
  return scopes
    .split(' ')
    .map((s) => {
      const [area, level] = s.split(':');
      const what = level === 'read_write' ? 'read and change' : 'read';
      return `<li>${esc(what)} your <strong>${esc(area ?? s)}</strong> <code>${esc(s)}</code></li>`;
    })
    .join('\n');
}

export function consentPage(
  clientLabel: string,
  username: string,
  scopes: string,
  ticket: string,
): string {
  return layout(
    'Authorize access',
    `<p>Signed in as <strong>${esc(username)}</strong>.</p>
<p><strong>${esc(clientLabel)}</strong> asks to:</p>
<ul id="scopes">${scopeItems(scopes)}</ul>
<form method="post" action="/oauth/consent">
<input type="hidden" name="ticket" value="${esc(ticket)}">
<div class="actions"><button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button></div>
</form>`,
  );
}

export function errorPage(message: string): string {
  return layout('Sign-in error', `<p class="error" role="alert">${esc(message)}</p>`);
}
