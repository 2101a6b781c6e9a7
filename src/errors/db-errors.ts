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

/** Serialization failures and deadlocks (PostgreSQL) and a busy database (SQLite): safe to retry. */
export function isRetryableTxError(err: unknown): boolean {
  const c = codeOf(err);
  return c === '40001' || c === '40P01' || c === 'SQLITE_BUSY';
}
