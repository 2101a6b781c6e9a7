/** Driver error recognition for both engines. */
function codeOf(err: unknown): string | undefined {
  if (typeof err === 'object' && err !== null && 'code' in err) {
    const c = (err as { code: unknown }).code;
    return typeof c === 'string' ? c : undefined;
  }
  return undefined;
}

export function isUniqueViolation(err: unknown): boolean {
  const c = codeOf(err);
  return c === '23505' || c === 'SQLITE_CONSTRAINT_UNIQUE' || c === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

export function isForeignKeyViolation(err: unknown): boolean {
  const c = codeOf(err);
  return c === '23503' || c === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/**
 * Serialization failures and deadlocks (PostgreSQL), a named statement whose kept plan no longer
 * fits its table (PostgreSQL, see src/db/dialect.ts) and a busy database (SQLite): safe to retry.
 */
export function isRetryableTxError(err: unknown): boolean {
  const c = codeOf(err);
  // SQLITE_BUSY_SNAPSHOT: a transaction that read, then wrote after another process committed
  // (WAL); busy_timeout does not wait for it, a new attempt succeeds.
  return (
    c === '40001' ||
    c === '40P01' ||
    c === 'SQLITE_BUSY' ||
    c === 'SQLITE_BUSY_SNAPSHOT' ||
    isStalePlan(err)
  );
}

/**
 * PostgreSQL refused a prepared statement because its result's columns changed since it was
 * planned (a column added or dropped by a migration meanwhile). Run again, it is planned anew.
 */
export function isStalePlan(err: unknown): boolean {
  return (
    codeOf(err) === '0A000' &&
    err instanceof Error &&
    err.message.includes('cached plan must not change result type')
  );
}

/**
 * Data the database refuses (PostgreSQL classes 22 and 23: bad values, constraint violations;
 * SQLite constraint and type mismatches), as opposed to a failure of the database itself.
 */
export function isDataError(err: unknown): boolean {
  const c = codeOf(err);
  if (c === undefined) return false;
  return (
    /^2[23][0-9A-Z]{3}$/.test(c) || c.startsWith('SQLITE_CONSTRAINT') || c === 'SQLITE_MISMATCH'
  );
}
