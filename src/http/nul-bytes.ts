import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors/errors.js';
import { nulPath } from '../lib/nul.js';

/**
 * preValidation of every route: a NUL character in a path parameter names no resource (404);
 * in a query parameter or a body field it is a 400 naming the field. Without it, PostgreSQL
 * refuses the text and the request ends in a 500 (SQLite would store it).
 */
export function nulBytesHook(
  req: FastifyRequest,
  _reply: FastifyReply,
  done: (err?: Error) => void,
): void {
  if (nulPath(req.params) !== undefined) {
    done(errors.notFound());
    return;
  }
  const inQuery = nulPath(req.query);
  if (inQuery !== undefined) {
    done(errors.invalidField(inQuery.split('.')[0] ?? inQuery, 'Must not contain NUL characters'));
    return;
  }
  const inBody = Buffer.isBuffer(req.body) ? undefined : nulPath(req.body);
  if (inBody !== undefined) {
    done(errors.invalidField(inBody === '' ? 'body' : inBody, 'Must not contain NUL characters'));
    return;
  }
  done();
}
