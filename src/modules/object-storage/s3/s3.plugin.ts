import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyPluginAsync } from 'fastify';
import type { RouteContext } from '../../../platform/area.js';
import { S3_PREFIX } from '../objects.clusters.js';
import type { ObjectData } from '../objects.data.js';
import { S3_ROOT_PREFIX, originalUrlOf } from './s3.listener.js';
import type { S3Service } from './s3.service.js';
import { S3_WEBSITE_PREFIX } from './s3.website.js';

const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'OPTIONS', 'PATCH'];

/** Whether a path is the data plane's (it answers `100 Continue` itself, after authenticating). */
export const isS3Path = (url: string | undefined) =>
  url !== undefined && (url.startsWith(S3_PREFIX) || url.startsWith(S3_ROOT_PREFIX));

const handled = new WeakSet<Server>();

/**
 * A client that sends `Expect: 100-continue` waits for the go-ahead before its body. Node sends
 * it at once unless the server handles `checkContinue`; the data plane sends it only once the
 * request is authenticated and allowed (so a refused upload never sends its body), every other
 * route at once.
 */
export function answerContinueLater(server: Server): void {
  if (handled.has(server)) return;
  handled.add(server);
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (isS3Path(req.url)) (req as { s3ExpectsContinue?: boolean }).s3ExpectsContinue = true;
    else res.writeContinue();
    server.emit('request', req, res);
  });
}

/**
 * Mounts the S3 data plane on the API listener under `S3_PREFIX` (and, for S3's own listener,
 * under `S3_ROOT_PREFIX`: see s3.listener.ts). It is an encapsulated plugin whose routes take
 * over the raw request in onRequest (before any body parsing, so bodies stream), and answer with
 * S3's XML, not the API's JSON envelope.
 */
export function s3Plugin(
  ctx: RouteContext<{ s3: S3Service; data: ObjectData }>,
): FastifyPluginAsync {
  const { s3, data } = ctx.services;
  return async (app) => {
    answerContinueLater(app.server);
    app.addHook('onRequest', (req, reply, done) => {
      reply.hijack();
      const fail = (err: unknown) => {
        req.log.error({ err }, 's3 request failed');
        reply.raw.destroy();
      };
      const setOp = (op: string) => {
        req.operation = op;
      };
      if (req.url.startsWith(S3_WEBSITE_PREFIX)) {
        req.operation = 's3:Website';
        s3.website(req.raw, reply.raw, S3_WEBSITE_PREFIX).catch(fail);
      } else if (req.url.startsWith(S3_ROOT_PREFIX)) {
        const original = originalUrlOf(req.raw);
        if (original === undefined) {
          reply.raw.writeHead(404, { 'content-length': 0 });
          reply.raw.end();
        } else {
          s3.handle(
            req.raw,
            reply.raw,
            req.id,
            req.log,
            setOp,
            { prefix: '', clusterInPath: false },
            original,
          ).catch(fail);
        }
      } else {
        s3.handle(req.raw, reply.raw, req.id, req.log, setOp, {
          prefix: S3_PREFIX,
          clusterInPath: true,
        }).catch(fail);
      }
      done();
    });
    // Transfer counts still in memory are written before the database closes.
    app.addHook('onClose', async () => {
      await data.meter.flush();
    });
    const noop = async () => {};
    for (const prefix of [S3_PREFIX, S3_WEBSITE_PREFIX, S3_ROOT_PREFIX]) {
      for (const url of [prefix, `${prefix}/*`]) {
        app.route({
          method: METHODS,
          url,
          schema: { hide: true },
          // Requests are authenticated by their S3 signatures, not the operator token.
          config: { operatorToken: false },
          exposeHeadRoute: false,
          handler: noop,
        });
      }
    }
  };
}
