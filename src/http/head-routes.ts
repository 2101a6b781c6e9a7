import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import FindMyWay from 'find-my-way';

/** Marks a request routed as the GET it stands for. */
const AS_GET = Symbol('stratus.headAsGet');
type Marked = IncomingMessage & { [AS_GET]?: true };

/**
 * `HEAD` is answered for every `GET` (docs/fidelity.md) without a second route per GET. Fastify's
 * own way (`exposeHeadRoutes`) registers a HEAD copy of each GET route, which was about a fifth of
 * the server's start (the router's nodes and each route's set-up, twice over;
 * bench/where-time-goes.md).
 * Instead, a HEAD request that no route of its own answers is routed as the GET of its path
 * (`route`, called where the URL is rewritten, before routing), is a HEAD again from its first
 * hook on (`restore`, called by the app's one onRequest hook: the handler, the hooks, the logs and
 * Node's HTTP server see HEAD), and its answer loses its body the way Fastify's HEAD routes drop
 * it (`headOnSend`, called last by the app's one onSend hook for the requests `route` marked):
 * the same status, headers and Content-Length as the GET, no body.
 *
 * Routes that declare HEAD (the S3 data plane, static files) keep answering it themselves, and a
 * GET route registered with `exposeHeadRoute: false` still has no HEAD.
 */
export class HeadRoutes {
  /** The paths whose HEAD is not the GET's: declared HEAD routes and GET routes without one. */
  private readonly own: string[] = [];
  private router: ReturnType<typeof FindMyWay> | undefined;

  constructor(
    private readonly routerOptions: {
      ignoreTrailingSlash: boolean;
      ignoreDuplicateSlashes: boolean;
    },
  ) {}

  /** Called for each route as it is registered (the app's onRoute hook). */
  noteRoute(route: RouteOptions): void {
    const methods = [route.method].flat();
    if (methods.includes('HEAD') || (methods.includes('GET') && route.exposeHeadRoute === false)) {
      this.own.push(route.url);
      this.router = undefined;
    }
  }

  /** Before routing: a HEAD that no route of its own answers is routed as its GET. */
  route(req: IncomingMessage, url: string): void {
    if (req.method !== 'HEAD') return;
    if (this.own.length > 0 && this.ownRouter().find('HEAD', url) !== null) return;
    req.method = 'GET';
    (req as Marked)[AS_GET] = true;
  }

  /** First thing in the first onRequest hook: the request is a HEAD again after routing. */
  restore(req: FastifyRequest): void {
    if ((req.raw as Marked)[AS_GET]) req.raw.method = 'HEAD';
  }

  /** Whether `route` routed this request (a HEAD) as its GET: its answer must lose its body. */
  routedAsGet(req: FastifyRequest): boolean {
    return (req.raw as Marked)[AS_GET] === true;
  }

  private ownRouter(): ReturnType<typeof FindMyWay> {
    if (this.router) return this.router;
    const router = FindMyWay({ ...this.routerOptions, defaultRoute: () => {} });
    for (const url of this.own) router.on('HEAD', url, () => {});
    this.router = router;
    return router;
  }
}

/**
 * The answer to a HEAD of a GET route, as Fastify's own HEAD routes give it: the GET's headers
 * with the Content-Length of its body, and no body (a stream is drained, not sent). Returns the
 * payload to send (null).
 */
export function headOnSend(reply: FastifyReply, payload: unknown): null {
  if (payload === undefined || payload === null) {
    reply.header('content-length', '0');
    return null;
  }
  const p = payload as {
    resume?: () => void;
    on?: (e: string, f: (err: unknown) => void) => void;
    getReader?: unknown;
    cancel?: (reason: string) => Promise<void>;
  };
  if (typeof p.resume === 'function') {
    p.on?.('error', (err) => reply.log.error({ err }, 'Error on Stream found for HEAD route'));
    p.resume();
    return null;
  }
  if (typeof p.getReader === 'function') {
    p.cancel?.('Stream cancelled by HEAD route').catch((err: unknown) => {
      reply.log.error({ err }, 'Error on Stream found for HEAD route');
    });
    return null;
  }
  reply.header('content-length', String(Buffer.byteLength(payload as string | Buffer)));
  return null;
}
