import { FieldErrors } from '../../errors/errors.js';

/** At most this many active payment methods per account. */
export const ACTIVE_METHODS_MAX = 6;
/** At most this many payment methods added per account in any 24 hours. */
export const ADDED_PER_DAY_MAX = 60;

/** The Luhn check digit test of a card number (digits only). */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The card network, from the number's leading digits (IIN ranges). */
export function cardType(digits: string): string {
  const n = (k: number) => Number(digits.slice(0, k));
  if (digits.startsWith('4')) return 'Visa';
  if ((n(2) >= 51 && n(2) <= 55) || (n(4) >= 2221 && n(4) <= 2720)) return 'MasterCard';
  if (n(2) === 34 || n(2) === 37) return 'American Express';
  if (digits.startsWith('6011') || digits.startsWith('65') || (n(3) >= 644 && n(3) <= 649))
    return 'Discover';
  if (n(4) >= 3528 && n(4) <= 3589) return 'JCB';
  if (n(2) === 36 || n(2) === 38 || (n(3) >= 300 && n(3) <= 305)) return 'Diners Club';
  return 'Unknown';
}

export interface CardInput {
  card_number?: unknown;
  cvv?: unknown;
  expiry_month?: unknown;
  expiry_year?: unknown;
}

export interface CheckedCard {
  cardType: string;
  lastFour: string;
  month: number;
  year: number;
}

/**
 * The rules of a card, every failing field at once under `prefix` (`data.` for payment methods,
 * nothing for the deprecated credit-card route): 14..24 digits passing the Luhn check, a CVV of
 * 3..4 digits, a month 1..12 and a 4-digit year that are not before the current month.
 */
export function checkCard(input: CardInput, nowMs: number, prefix = ''): CheckedCard {
  const fe = new FieldErrors();
  const f = (name: string) => `${prefix}${name}`;
  const number = input.card_number;
  if (typeof number !== 'string' || number === '') {
    fe.add(f('card_number'), 'card_number is required');
  } else if (!/^\d{14,24}$/.test(number)) {
    fe.add(f('card_number'), 'card_number must be 14 to 24 digits, without spaces or hyphens');
  } else if (!luhnValid(number)) {
    fe.add(f('card_number'), 'card_number is not a valid card number');
  }
  const cvv = input.cvv;
  if (typeof cvv !== 'string' || cvv === '') fe.add(f('cvv'), 'cvv is required');
  else if (!/^\d{3,4}$/.test(cvv)) fe.add(f('cvv'), 'cvv must be 3 or 4 digits');
  const month = input.expiry_month;
  const year = input.expiry_year;
  const monthOk = Number.isInteger(month) && (month as number) >= 1 && (month as number) <= 12;
  const yearOk = Number.isInteger(year) && (year as number) >= 1000 && (year as number) <= 9999;
  if (month === undefined || month === null) fe.add(f('expiry_month'), 'expiry_month is required');
  else if (!monthOk) fe.add(f('expiry_month'), 'expiry_month must be an integer from 1 to 12');
  if (year === undefined || year === null) fe.add(f('expiry_year'), 'expiry_year is required');
  else if (!yearOk) fe.add(f('expiry_year'), 'expiry_year must be a four-digit year');
  if (monthOk && yearOk) {
    const now = new Date(nowMs);
    const current = now.getUTCFullYear() * 12 + now.getUTCMonth();
    if ((year as number) * 12 + (month as number) - 1 < current)
      fe.add(f('expiry_year'), 'This card has expired');
  }
  fe.throwIfAny();
  const digits = number as string;
  return {
    cardType: cardType(digits),
    lastFour: digits.slice(-4),
    month: month as number,
    year: year as number,
  };
}
