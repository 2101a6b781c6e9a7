import type { Generated } from '../../db/database.js';

/**
 * A payment method of an account. Only what the API shows is kept: the card's type, its last four
 * digits and its expiry; the number and the CVV are checked and dropped, never stored.
 */
export interface PaymentMethodsTable {
  id: Generated<number>;
  account_id: number;
  type: 'credit_card';
  card_type: string;
  last_four: string;
  expiry_month: number;
  expiry_year: number;
  /** 0/1 */
  is_default: number;
  /** 0/1: a deleted method is deactivated, not removed (it still counts towards the daily limit). */
  active: number;
  created: string;
  /** Epoch ms of the addition, for the limit of additions per day. */
  created_ms: number;
}

export interface BillingTables {
  payment_methods: PaymentMethodsTable;
}
