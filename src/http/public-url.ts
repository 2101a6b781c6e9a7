import type { FastifyRequest } from 'fastify';
import type { Config } from '../config/config.js';

/** A Host header that is only a host name or address and an optional port. */
const HOST_RE =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** Whether a Host header names a host (and port) and nothing else. */
export function isPlainHost(host: string): boolean {
  return host.length <= 261 && HOST_RE.test(host);
}

/**
 * The base URL clients reach this server at, for absolute URLs the server hands out:
 * STRATUS_PUBLIC_URL when the operator set one, else the request's scheme and Host header. A
 * Host header that is not a plain `host[:port]` is not copied into an answer: the listening
 * address stands in for it.
 */
export function publicOrigin(config: Config, req: FastifyRequest): string {
  if (config.publicUrl !== undefined) return config.publicUrl;
  const host = req.host;
  if (host && isPlainHost(host)) return `${req.protocol}://${host}`;
  const listen = config.host.includes(':') ? `[${config.host}]` : config.host;
  return `${req.protocol}://${listen}:${config.port}`;
}
