import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { StratusApp } from '../../http/stratus-app.js';
import type { RouteContext } from '../../platform/area.js';
import type { ControlsService } from './controls.service.js';
import { ConfigError } from '../../config/config-error.js';
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
  SeedBody,
  SeedReply,
  SnapshotQuery,
  SnapshotSchema,
  TimingBody,
  TimingReply,
} from './controls.schemas.js';
import { FAULT_RULES_DOC, FaultsBody } from './faults.js';
import type { InitHooks } from './init-hooks.js';
import {
  JobsQuery,
  OperatorAccountPage,
  OperatorJobsSchema,
  type OperatorViews,
} from './operator-views.js';
import { PageQuery } from '../../http/schemas/common.js';
import { ownUrl, populateAfterReset } from './populate.js';
import { applySeedNow, type Inject, seedRequests } from './seed.js';
import { importSnapshotStream, SNAPSHOT_NDJSON, snapshotLines } from './snapshot-stream.js';

type InjectRequest = Parameters<Inject>[0];

type Ctx = RouteContext<{ controls: ControlsService; init: InitHooks; views: OperatorViews }>;

/** The largest snapshot POST /_stratus/snapshot takes. */
export const SNAPSHOT_BODY_LIMIT = 512 * 1024 * 1024;

/**
 * The emulator controls under `/_stratus/`, behind the operator token (operator.ts). They are in
 * their own OpenAPI document (`/_stratus/openapi.json`, src/http/openapi.ts), not the API's: they
 * are Stratus's own, not the cloud's. `doc` gives each its summary and operation id there.
 */
export function controlsRoutes(ctx: Ctx): FastifyPluginAsync {
  const { state, db, clock } = ctx;
  const { controls, init, views } = ctx.services;
  return async (plain) => {
    const app = plain as unknown as StratusApp;
    const inject = (r: InjectRequest) => app.inject(r);
    const doc = (operationId: string, summary: string, description?: string) => ({
      // Hidden from the API's document; src/http/openapi.ts shows it in the controls' one.
      hide: true,
      tags: ['Emulator controls'],
      operationId,
      summary,
      ...(description ? { description } : {}),
    });

    app.post(
      '/_stratus/reset',
      {
        schema: {
          ...doc(
            'stratusReset',
            'Reset the state',
            'Every account back to the first-start state in one transaction (the default ' +
              'account keeps its admin token; the STRATUS_SEED accounts and requests, then the ' +
              'init hooks, follow), or one account (`euuid`): its entities, events and jobs go, ' +
              'its users and tokens stay. The catalogue is unchanged. A seed file or init hook ' +
              'that fails is a 400 naming it.',
          ),
          body: ResetBody,
          response: { 200: ResetReply },
        },
      },
      async (req) => {
        const { seed, ...result } = await state.reset(req.body.euuid);
        if (result.scope === 'all') {
          const target = { inject, baseUrl: ownUrl(app.server) };
          const { init: run } = await populateAfterReset(init, target, seed);
          if (run) return { ...result, init: run };
        }
        return result;
      },
    );
    app.post(
      '/_stratus/seed',
      {
        schema: {
          ...doc(
            'stratusSeed',
            'Add accounts, users, tokens and entities now',
            'A seed document (the format of STRATUS_SEED) applied beside the current state: its ' +
              'accounts, users and tokens in one transaction, then its requests in order. Not ' +
              'kept for later resets (STRATUS_SEED is). A bad entry, or a username or token ' +
              'already taken, is a 400 naming the place, and nothing is written.',
          ),
          body: SeedBody,
          response: { 200: SeedReply },
        },
      },
      async (req) => {
        const seeded = await applySeedNow(db, clock, req.body);
        let requests: number;
        try {
          requests = await seedRequests(inject, seeded.file, seeded.tokens);
        } catch (err) {
          if (!(err instanceof ConfigError)) throw err;
          throw errors.reason(
            `The accounts were created, then ${err.message.replace(/^STRATUS_SEED: /, '')}`,
          );
        }
        return { accounts: seeded.accounts, requests };
      },
    );
    // The streamed form (rows, then object and image bytes) is read as it arrives.
    app.addContentTypeParser(SNAPSHOT_NDJSON, (_req, payload, done) => done(null, payload));
    app.get(
      '/_stratus/snapshot',
      {
        schema: {
          ...doc(
            'stratusExportSnapshot',
            'Export the whole state',
            'NDJSON (`application/x-ndjson`, snapshot format 2): the rows as one JSON document ' +
              'on the first line, then the bytes of every object, multipart part and uploaded ' +
              'image in base64 chunks with their SHA-256, then `{"done":{"blobs":N}}`. ' +
              '`?bytes=false`: the rows alone, as one JSON document (`"blobs":"omitted"`). The ' +
              'catalogue and these controls\u2019 settings are left out.',
          ),
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
      {
        bodyLimit: SNAPSHOT_BODY_LIMIT,
        schema: {
          ...doc(
            'stratusImportSnapshot',
            'Replace the whole state with a snapshot',
            'The NDJSON stream of an export (`Content-Type: application/x-ndjson`, read as it ' +
              'arrives: bytes first, then the rows in one transaction), or a rows-only JSON ' +
              'document. A snapshot from a newer Stratus, a cut or damaged stream, rows the ' +
              'database refuses, or rows that refer to bytes neither sent nor on this server are ' +
              'a 400 naming the cause, and nothing changes.',
          ),
          consumes: [SNAPSHOT_NDJSON, 'application/json'],
          response: { 200: ImportReply },
        },
      },
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

    app.get(
      '/_stratus/timing',
      {
        schema: {
          ...doc('stratusGetTiming', 'The timing profile', 'How long asynchronous work takes.'),
          response: { 200: TimingReply },
        },
      },
      () => controls.timingView(),
    );
    app.put(
      '/_stratus/timing',
      {
        schema: {
          ...doc(
            'stratusSetTiming',
            'Set the timing profile',
            'A profile (`instant`, `fast`, `realistic`) and milliseconds per kind of work that ' +
              'replace its figures. Every process on the database follows within 250 ms.',
          ),
          body: TimingBody,
          response: { 200: TimingReply },
        },
      },
      (req) => controls.setTiming(req.body),
    );

    app.get(
      '/_stratus/clock',
      {
        schema: {
          ...doc('stratusGetClock', 'The job clock'),
          response: { 200: ClockReply },
        },
      },
      () => controls.clockView(),
    );
    app.put(
      '/_stratus/clock',
      {
        schema: {
          ...doc(
            'stratusSetClock',
            'Switch the job clock between system and manual time',
            '`manual`: time stands still until advanced; `system`: time runs again from where ' +
              'it stands.',
          ),
          body: ClockBody,
          response: { 200: ClockReply },
        },
      },
      (req) => controls.setClockMode(req.body.mode),
    );
    app.post(
      '/_stratus/clock/advance',
      {
        schema: {
          ...doc(
            'stratusAdvanceClock',
            'Move the job clock forward',
            'Runs every job step that falls due on the way, in time order, with the clock at ' +
              'each step\u2019s time, and answers once they ran: a test steps an instance ' +
              'through `provisioning`, `booting`, `running`. Give `seconds` or `ms`.',
          ),
          body: AdvanceBody,
          response: { 200: AdvanceReply },
        },
      },
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
      {
        schema: {
          ...doc(
            'stratusListAccounts',
            'Every account, for the operator',
            'A page of every account (`page`, `page_size`): its euuid, email, company, balance, ' +
              'active since and users; what the web console\u2019s operator panel shows.',
          ),
          querystring: PageQuery,
          response: { 200: OperatorAccountPage },
        },
      },
      (req) => views.accounts(req.query),
    );
    app.get(
      '/_stratus/jobs',
      {
        schema: {
          ...doc(
            'stratusListJobs',
            'The job queue, for the operator',
            'A page of jobs (`status`: queued, running, succeeded, failed) with their entity, ' +
              'attempts, lease and last error; the counts by status, the lag and this ' +
              'process\u2019s runner.',
          ),
          querystring: JobsQuery,
          response: { 200: OperatorJobsSchema },
        },
      },
      (req) => views.jobs(req.query),
    );

    app.get(
      '/_stratus/faults',
      {
        schema: {
          ...doc('stratusGetFaults', 'The fault rules, with the count each has left'),
          response: { 200: FaultsReply },
        },
      },
      () => controls.faultsView(),
    );
    app.put(
      '/_stratus/faults',
      {
        schema: {
          ...doc('stratusSetFaults', 'Replace the fault rules', FAULT_RULES_DOC),
          body: FaultsBody,
          response: { 200: FaultsReply },
        },
      },
      (req) => controls.setFaults(req.body),
    );
  };
}
