import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import { errors } from '../errors/errors.js';
import { ajvToErrorItems } from './validation.js';

function send(reply: FastifyReply, err: ApiError): FastifyReply {
  for (const [k, v] of Object.entries(err.headers)) reply.header(k, v);
  return reply.status(err.status).send({ errors: err.errors });
}

/** The single mapping from any error to the API's error envelope. */
export function errorHandler(
  err: FastifyError | Error,
  req: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  if (err instanceof ApiError) return send(reply, err);
  const fe = err as FastifyError;
  if (fe.validation) {
    // A path parameter of the wrong form names no entity: the real service answers 404.
    if (fe.validationContext === 'params') return send(reply, errors.notFound());
    return send(
      reply,
      errors.badRequest(ajvToErrorItems(fe.validation as never, fe.validationContext ?? 'body')),
    );
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return send(reply, errors.unsupportedMediaType());
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return send(reply, errors.bodyLengthMismatch());
    // An undecodable path or an over-long path parameter names no entity.
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return send(reply, errors.notFound());
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return send(reply, errors.payloadTooLarge());
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return send(reply, errors.malformedJson());
  }
  // Not `instanceof SyntaxError`: one thrown by server code (bad stored JSON) is a 500.
  if (fe.statusCode === 400) return send(reply, errors.malformedJson());
  if (fe.statusCode === 413) return send(reply, errors.payloadTooLarge());
  if (fe.statusCode === 415) return send(reply, errors.unsupportedMediaType());
  req.log.error({ err }, 'unhandled error');
  return send(reply, errors.internal());
}
