import { ApiError, type ErrorItem } from './api-error.js';

/**
 * The registry of error factories. Messages are written once, in the real service's wording
 * where it is known (see docs/fidelity.md).
 */
export const errors = {
  /** 400 with one or more field errors. */
  badRequest(items: ErrorItem[]): ApiError {
    return new ApiError(400, items, 'bad_request');
  },
  invalidField(field: string, reason: string): ApiError {
    return new ApiError(400, [{ field, reason }], 'invalid_field');
  },
  reason(reason: string, code = 'bad_request'): ApiError {
    return new ApiError(400, [{ reason }], code);
  },
  /** 401 for a missing, unknown, expired or revoked token. */
  invalidToken(): ApiError {
    return new ApiError(401, [{ reason: 'Invalid Token' }], 'invalid_token');
  },
  /** 401 for a token without the route's scopes. */
  missingScope(): ApiError {
    return new ApiError(
      401,
      [{ reason: 'Your OAuth token is not authorized to use this endpoint.' }],
      'missing_scope',
    );
  },
  /** 403 for a user without the grant. */
  unauthorized(): ApiError {
    return new ApiError(403, [{ reason: 'Unauthorized' }], 'unauthorized');
  },
  notFound(reason = 'Not found'): ApiError {
    return new ApiError(404, [{ reason }], 'not_found');
  },
  /** 501 for a path of an area of the API that this server does not serve (src/http/unserved.ts). */
  notProvided(reason: string): ApiError {
    return new ApiError(501, [{ reason }], 'not_provided');
  },
  methodNotAllowed(allow: string[]): ApiError {
    return new ApiError(405, [{ reason: 'Method Not Allowed' }], 'method_not_allowed', {
      Allow: allow.join(', '),
    });
  },
  unsupportedMediaType(): ApiError {
    return new ApiError(
      415,
      [{ reason: 'Unsupported Content-Type; use application/json' }],
      'unsupported_media_type',
    );
  },
  payloadTooLarge(): ApiError {
    return new ApiError(413, [{ reason: 'Request body is too large' }], 'payload_too_large');
  },
  bodyLengthMismatch(): ApiError {
    return new ApiError(
      400,
      [{ reason: 'Request body size does not match Content-Length' }],
      'bad_content_length',
    );
  },
  malformedJson(): ApiError {
    return new ApiError(400, [{ reason: 'Malformed JSON in request body' }], 'malformed_json');
  },
  tooManyRequests(retryAfterSeconds: number): ApiError {
    return new ApiError(429, [{ reason: 'Too many requests' }], 'rate_limited', {
      'Retry-After': String(retryAfterSeconds),
    });
  },
  /** 400 `<Entity> busy.` while an entity has work under way. */
  busy(entity: string): ApiError {
    return new ApiError(400, [{ reason: `${entity} busy.` }], 'busy');
  },
  filter(reason: string): ApiError {
    return new ApiError(400, [{ reason, field: 'X-Filter' }], 'bad_filter');
  },
  cannotFilterOn(key: string): ApiError {
    return new ApiError(
      400,
      [{ reason: `Cannot filter on ${key}`, field: 'X-Filter' }],
      'bad_filter',
    );
  },
  internal(): ApiError {
    return new ApiError(
      500,
      [{ reason: 'An internal error occurred. Please try again later.' }],
      'internal',
    );
  },
};

/**
 * Collects every failing field of a request, so a client learns all of them at once.
 */
export class FieldErrors {
  private readonly items: ErrorItem[] = [];
  add(field: string | undefined, reason: string): this {
    this.items.push(field === undefined ? { reason } : { field, reason });
    return this;
  }
  /** Adds the error when `failed` is true; returns whether it failed. */
  check(failed: boolean, field: string, reason: string): boolean {
    if (failed) this.add(field, reason);
    return failed;
  }
  get empty(): boolean {
    return this.items.length === 0;
  }
  has(field: string): boolean {
    return this.items.some((e) => e.field === field);
  }
  throwIfAny(): void {
    if (this.items.length > 0) throw errors.badRequest(this.items);
  }
}
