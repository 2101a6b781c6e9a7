import { FieldErrors } from '../../errors/errors.js';
import { emailProblem } from '../identity/identity.rules.js';
import { CA_PROVINCE_CODES, COUNTRY_CODES, US_STATE_CODES } from './account.data.js';
import type { AccountUpdate } from './account.schemas.js';

const MAX_LENGTH: Record<string, number> = {
  address_1: 64,
  address_2: 64,
  city: 24,
  company: 128,
  email: 128,
  first_name: 50,
  last_name: 50,
  phone: 32,
  state: 24,
  tax_id: 25,
};

/** Reference: names and company "must not include any of `<` `>` `(` `)` `"` `=`". */
const FORBIDDEN_IN_NAMES = /[<>()"=]/;
const NAME_FIELDS = ['company', 'first_name', 'last_name'] as const;

/**
 * Checks a PUT /account body against every field limit of the spec and returns the values to
 * store (country and US/CA states upper-cased). Every failing field is reported at once.
 */
export function validateAccountUpdate(
  body: AccountUpdate,
  current: { country: string; state: string },
): AccountUpdate {
  const fe = new FieldErrors();
  const out: AccountUpdate = { ...body };

  for (const [field, max] of Object.entries(MAX_LENGTH)) {
    const v = body[field as keyof AccountUpdate];
    if (v !== undefined && v.length > max)
      fe.add(field, `Length must be ${max} characters or fewer.`);
  }
  for (const field of NAME_FIELDS) {
    const v = body[field];
    if (v !== undefined && FORBIDDEN_IN_NAMES.test(v))
      fe.add(field, `${field} must not contain any of < > ( ) " =`);
  }
  if (body.email !== undefined && !fe.has('email')) {
    const problem = emailProblem(body.email);
    if (problem) fe.add('email', problem);
  }

  if (body.country !== undefined) {
    const c = body.country.toUpperCase();
    if (c !== '' && !COUNTRY_CODES.has(c))
      fe.add('country', 'country must be a two-letter ISO 3166 country code');
    else out.country = c;
  }
  // The state rule depends on the country the account will have after the update.
  if (body.state !== undefined || body.country !== undefined) {
    const country = out.country ?? current.country;
    const codes = country === 'US' ? US_STATE_CODES : country === 'CA' ? CA_PROVINCE_CODES : null;
    const state = body.state ?? current.state;
    if (codes && state !== '' && !fe.has('state')) {
      const s = state.toUpperCase();
      if (!codes.has(s)) {
        fe.add(
          'state',
          country === 'US'
            ? 'state must be a two-letter US state code (AA, AE or AP for military addresses)'
            : 'state must be a two-letter Canadian province code',
        );
      } else out.state = s;
    }
  }

  if (body.zip !== undefined) {
    const problem = zipProblem(body.zip);
    if (problem) fe.add('zip', problem);
  }
  if (body.tax_id !== undefined && !fe.has('tax_id') && /[\p{Cc}]/u.test(body.tax_id))
    fe.add('tax_id', 'tax_id must not contain control characters');

  fe.throwIfAny();
  return out;
}

/** What is wrong with a zip (empty is allowed: the account has none), or undefined. */
export function zipProblem(zip: string): string | undefined {
  if (!/^[A-Za-z0-9-]*$/.test(zip))
    return 'zip may contain only ASCII letters, numbers and hyphens';
  if (zip.replace(/-/g, '').length > 9)
    return 'zip must not contain more than 9 letters or numbers';
  return undefined;
}
