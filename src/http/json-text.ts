import type { FastifyReply } from 'fastify';

/**
 * Sends JSON that is already rendered (a cached response, text or encoded) as it is: Fastify
 * serializes only payloads that are neither strings nor buffers. The route's response schema
 * still documents the shape.
 */
export function sendJsonText(reply: FastifyReply, text: string | Buffer): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}
