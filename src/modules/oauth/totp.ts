import { Secret, TOTP } from 'otpauth';

/** RFC 6238 defaults, as authenticator apps expect: SHA1, 6 digits, 30-second steps. */
function totp(secret: string, label = 'Stratus'): TOTP {
  return new TOTP({
    issuer: 'Stratus',
    label,
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
    secret: Secret.fromBase32(secret),
  });
}

/** A new random TOTP secret (160 bits, base32). */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

/**
 * The time step a code belongs to (the current one, or one step either side for clock drift),
 * or undefined when the code is wrong.
 */
export function totpStep(secret: string, code: string, nowMs: number): number | undefined {
  if (!/^\d{6}$/.test(code)) return undefined;
  const delta = totp(secret).validate({ token: code, timestamp: nowMs, window: 1 });
  if (delta === null) return undefined;
  return Math.floor(nowMs / 30_000) + delta;
}

/** The code of a secret at a time (tests, and the operator's view of a simulated device). */
export function totpCode(secret: string, nowMs: number): string {
  return totp(secret).generate({ timestamp: nowMs });
}
