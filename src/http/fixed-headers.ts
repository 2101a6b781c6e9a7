import {
  OutgoingMessage,
  ServerResponse,
  validateHeaderName,
  validateHeaderValue,
} from 'node:http';

/**
 * The headers every answer carries (CORS, caching, the spec version: ten of them) cost Node about
 * 0.4 µs each per response: at `writeHead` it validates every name and value with a regular
 * expression, lower-cases most names to look for the ones it manages, and concatenates each line
 * (measured in turns, pinned to one CPU: ten such headers are a tenth of an authenticated GET's
 * server CPU; the same bytes as one header cost nothing more than none). Their names and values are
 * constants, so this response class validates them once, when it is made, and writes each such
 * header as its ready-made line.
 *
 * What goes on the wire is unchanged, byte for byte and in order: the leading run of headers whose
 * name is one of these and whose value is still the constant (the app sets them first) is
 * written as those lines ahead of the rest, which Node handles as before (validated, in their
 * order). A route that changed one of them (a different `cache-control`) ends the run there, so
 * its value and everything after it take Node's usual path. Headers set on the raw response with
 * `setHeader` (Node's own map, already validated) are left entirely to Node.
 */

/** Node's own key for headers set with `setHeader`; without it the class is plain Node. */
const kOutHeaders = Object.getOwnPropertySymbols(new OutgoingMessage()).find(
  (s) => s.description === 'kOutHeaders',
);

/**
 * Names Node's `_storeHeader` looks for (framing, keep-alive, the date) or encodes specially
 * (`content-disposition`): these are never taken as fixed, so Node sees every one of them.
 */
const NODE_MANAGED = new Set([
  'connection',
  'content-length',
  'content-disposition',
  'transfer-encoding',
  'date',
  'expect',
  'trailer',
  'keep-alive',
]);

type StoreHeader = (this: ServerResponse, firstLine: string, headers: unknown) => void;
/** Node's `_storeHeader`, looked up at each call as a subclass's `super` call would. */
const node = ServerResponse.prototype as unknown as { _storeHeader?: StoreHeader };

/**
 * A `ServerResponse` class (for `http.createServer`'s `ServerResponse` option) that writes
 * `fixed` (lower-case names, constant values) as pre-validated lines. Throws, as Node would at
 * the first response, for a name or value Node would refuse, and for a name Node manages.
 */
export function fixedHeadersResponse(fixed: Record<string, string>): typeof ServerResponse {
  const lines = new Map<string, { value: string; line: string }>();
  for (const [name, value] of Object.entries(fixed)) {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    if (name !== name.toLowerCase() || NODE_MANAGED.has(name)) {
      throw new Error(`fixed header ${name}: not a lower-case header that Node leaves alone`);
    }
    lines.set(name, { value, line: `${name}: ${value}\r\n` });
  }
  if (kOutHeaders === undefined || typeof node._storeHeader !== 'function') return ServerResponse;
  const outHeaders = kOutHeaders;

  class FixedHeadersResponse extends ServerResponse {
    /** Called by `writeHead` (Fastify's one call) with its header object. */
    _storeHeader(firstLine: string, headers: unknown): void {
      if (
        headers === null ||
        typeof headers !== 'object' ||
        Array.isArray(headers) ||
        headers === (this as unknown as Record<symbol, unknown>)[outHeaders]
      ) {
        node._storeHeader?.call(this, firstLine, headers);
        return;
      }
      const all = headers as Record<string, unknown>;
      let head = firstLine;
      // The rest as Node's flat [name, value, …] form: the same validation, the same order.
      let rest: unknown[] | undefined;
      for (const name in all) {
        if (!Object.hasOwn(all, name)) continue;
        const value = all[name];
        if (rest === undefined) {
          const f = lines.get(name);
          if (f !== undefined && f.value === value) {
            head += f.line;
            continue;
          }
          rest = [];
        }
        rest.push(name, value);
      }
      node._storeHeader?.call(this, head, rest);
    }
  }
  // Node's type is generic in the request class; this one takes any.
  return FixedHeadersResponse as unknown as typeof ServerResponse;
}
