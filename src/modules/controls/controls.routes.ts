import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { StratusApp } from '../../http/stratus-app.js';
import type { RouteContext } from '../../platform/area.js';
import type { ControlsService } from './controls.service.js';
import { errors } from '../../errors/errors.js';
import {
  AdvanceBody,
  AdvanceReply,
  ClockBody,
  ClockReply,
  FaultsReply,
  ImportReply,
  ResetBody,
  ResetReply,
  SnapshotQuery,
  SnapshotSchema,
  TimingBody,
  TimingReply,
} from './controls.schemas.js';
import { FaultsBody } from './faults.js';
import {
  JobsQuery,
  OperatorAccountPage,
  OperatorJobsSchema,
  type OperatorViews,
} from './operator-views.js';
import { PageQuery } from '../../http/schemas/common.js';
import { seedRequests } from './seed.js';
import { importSnapshotStream, SNAPSHOT_NDJSON, snapshotLines } from './snapshot-stream.js';

type Ctx = RouteContext<{ controls: ControlsService; views: OperatorViews }>;

/** The largest snapshot POST /_stratus/snapshot takes. */
export const SNAPSHOT_BODY_LIMIT = 512 * 1024 * 1024;

/**
 * The emulator controls under `/_stratus/`, behind the operator token (operator.ts). Hidden from
 * the API's OpenAPI document: they are Stratus's own, not the cloud's.
 */
export function controlsRoutes(ctx: Ctx): FastifyPluginAsync {
  const { state } = ctx;
  const { controls, views } = ctx.services;
  return async (plain) => {
    const app = plain as unknown as StratusApp;
    const hide = { hide: true, tags: ['Emulator controls'] };

    app.post(
      '/_stratus/reset',
      { schema: { ...hide, body: ResetBody, response: { 200: ResetReply } } },
      async (req) => {
        const { seed, ...result } = await state.reset(req.body.euuid);
        if (seed) await seedRequests((r) => app.inject(r), seed.file, seed.tokens);
        return result;
      },
    );
    // The streamed form (rows, then object and image bytes) is read as it arrives.
    app.addContentTypeParser(SNAPSHOT_NDJSON, (_req, payload, done) => done(null, payload));
    app.get(
      '/_stratus/snapshot',
      {
        schema: {
          ...hide,
          querystring: SnapshotQuery,
          response: { 200: SnapshotSchema },
        },
      },
      async (req, reply) => {
        // ?bytes=false: the rows alone, as one JSON document.
        if (req.query.bytes === false)
          return { ...(await state.exportSnapshot()), blobs: 'omitted' as const };
        reply.type(SNAPSHOT_NDJSON);
        reply.header('content-disposition', 'attachment; filename="stratus-snapshot.ndjson"');
        return reply.send(Readable.from(snapshotLines(state)) as never);
      },
    );
    app.post(
      '/_stratus/snapshot',
      { bodyLimit: SNAPSHOT_BODY_LIMIT, schema: { ...hide, response: { 200: ImportReply } } },
      async (req, reply) => {
        if (req.body instanceof Readable) {
          try {
            return await importSnapshotStream(state, req.body);
          } catch (err) {
            // Refused before the whole stream was read: close the connection after the answer,
            // or the client (still sending, the rest unread) holds it open until a timeout.
            if (!req.body.readableEnded) reply.header('connection', 'close');
            throw err;
          }
        }
        if (req.body === undefined) throw errors.reason('Send the snapshot as the request body.');
        return state.importSnapshot(req.body);
      },
    );

    app.get('/_stratus/timing', { schema: { ...hide, response: { 200: TimingReply } } }, () =>
      controls.timingView(),
    );
    app.put(
      '/_stratus/timing',
      { schema: { ...hide, body: TimingBody, response: { 200: TimingReply } } },
      (req) => controls.setTiming(req.body),
    );

    app.get('/_stratus/clock', { schema: { ...hide, response: { 200: ClockReply } } }, () =>
      controls.clockView(),
    );
    app.put(
      '/_stratus/clock',
      { schema: { ...hide, body: ClockBody, response: { 200: ClockReply } } },
      (req) => controls.setClockMode(req.body.mode),
    );
    app.post(
      '/_stratus/clock/advance',
      { schema: { ...hide, body: AdvanceBody, response: { 200: AdvanceReply } } },
      (req) => {
        const { seconds, ms } = req.body;
        if ((seconds === undefined) === (ms === undefined)) {
          throw errors.reason('Give either "seconds" or "ms".');
        }
        return controls.advance(ms ?? Math.round((seconds ?? 0) * 1000));
      },
    );

    app.get(
      '/_stratus/accounts',
      { schema: { ...hide, querystring: PageQuery, response: { 200: OperatorAccountPage } } },
      (req) => views.accounts(req.query),
    );
    app.get(
      '/_stratus/jobs',
      { schema: { ...hide, querystring: JobsQuery, response: { 200: OperatorJobsSchema } } },
      (req) => views.jobs(req.query),
    );

    app.get('/_stratus/faults', { schema: { ...hide, response: { 200: FaultsReply } } }, () =>
      controls.faultsView(),
    );
    app.put(
      '/_stratus/faults',
      { schema: { ...hide, body: FaultsBody, response: { 200: FaultsReply } } },
      (req) => controls.setFaults(req.body),
    );
  };
}
