import type { FastifyReply } from 'fastify';

/**
 * Sends JSON that is already text (a cached, rendered response) as it is: Fastify serializes
 * only payloads that are not strings. The route's response schema still documents the shape.
 */
export function sendJsonText(reply: FastifyReply, text: string): FastifyReply {
  return reply.type('application/json; charset=utf-8').send(text);
}
