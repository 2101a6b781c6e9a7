import type { FastifyPluginAsync } from 'fastify';
import type { RouteContext } from '../../../platform/area.js';
import type { ObjectData } from '../objects.data.js';
import type { S3Service } from './s3.service.js';
import { S3_PREFIX } from '../objects.clusters.js';
import { S3_WEBSITE_PREFIX } from './s3.website.js';

const METHODS = ['GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'OPTIONS'];

/**
 * Mounts the S3 data plane on the API listener under `S3_PREFIX`. It is an encapsulated plugin
 * whose routes take over the raw request in onRequest (before any body parsing, so bodies
 * stream), and answer with S3's XML, not the API's JSON envelope.
 */
export function s3Plugin(
  ctx: RouteContext<{ s3: S3Service; data: ObjectData }>,
): FastifyPluginAsync {
  const { s3, data } = ctx.services;
  return async (app) => {
    app.addHook('onRequest', (req, reply, done) => {
      reply.hijack();
      if (req.url.startsWith(S3_WEBSITE_PREFIX)) {
        req.operation = 's3:Website';
        s3.website(req.raw, reply.raw).catch((err: unknown) => {
          req.log.error({ err }, 's3 website request failed');
          reply.raw.destroy();
        });
        done();
        return;
      }
      s3.handle(req.raw, reply.raw, req.id, req.log, (op) => {
        req.operation = op;
      }).catch((err: unknown) => {
        req.log.error({ err }, 's3 request failed');
        reply.raw.destroy();
      });
      done();
    });
    // Transfer counts still in memory are written before the database closes.
    app.addHook('onClose', async () => {
      await data.meter.flush();
    });
    const noop = async () => {};
    for (const url of [S3_PREFIX, `${S3_PREFIX}/*`, S3_WEBSITE_PREFIX, `${S3_WEBSITE_PREFIX}/*`]) {
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
  };
}
