export interface ErrorItem {
  reason: string;
  field?: string;
}

/** The only error type that reaches clients with a status other than 500. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly errors: ErrorItem[],
    /** Internal code for logs and metrics; never sent. */
    readonly code: string,
    /** Extra response headers (e.g. Retry-After, Allow). */
    readonly headers: Record<string, string> = {},
  ) {
    super(errors.map((e) => (e.field ? `${e.field}: ${e.reason}` : e.reason)).join('; '));
  }
}
