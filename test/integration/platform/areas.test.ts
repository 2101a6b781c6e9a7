import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { areaModules } from '../../../src/areas.js';
import { needsOf } from '../../../src/context.js';
import { defineJob } from '../../../src/jobs/job.js';
import { volumesModule } from '../../../src/modules/volumes/volumes.module.js';
import { listTables } from '../../../src/modules/controls/state.tables.js';
import { type AnyArea, defineArea } from '../../../src/platform/area.js';
import { checkAreas, PLATFORM_TABLES } from '../../../src/platform/check-areas.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { operatorToken } from '../controls/helpers.js';

/** A minimal area for the checks: what the tests do not set is empty. */
const area = (name: string, more: Partial<AnyArea> = {}): AnyArea =>
  defineArea({ name, needs: [], tables: [], services: () => ({}), ...more });

describe('area modules', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('area modules: every table of the database belongs to exactly one area or the platform', async () => {
    t = await buildTestApp();
    const inDatabase = (await listTables(t.ctx.db))
      .map((x) => x.name)
      .filter((n) => n !== 'sqlite_sequence')
      .sort();
    const owned = [...PLATFORM_TABLES, ...areaModules.flatMap((m) => m.tables)].sort();
    expect(owned).toEqual(inDatabase);
    expect(new Set(owned).size).toBe(owned.length);
  });

  it('area modules: the shipped list has unique names, tables, entity types, grants and jobs, and each area comes after those it needs', () => {
    expect(() => checkAreas(areaModules)).not.toThrow();
    const names = areaModules.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
    const jobs = areaModules.flatMap((m) => (m.jobs ?? []).map((j) => j.name));
    expect(new Set(jobs).size).toBe(jobs.length);
    expect(jobs.length).toBeGreaterThan(5);
  });

  it('area modules: a list that breaks a rule is refused, naming the areas at fault', () => {
    expect(() => checkAreas([area('a'), area('a')])).toThrow('area a is listed twice');
    expect(() => checkAreas([area('a', { needs: [volumesModule] })])).toThrow(
      'area a needs area volumes, which must come before it',
    );
    expect(() => checkAreas([area('a', { tables: ['t'] }), area('b', { tables: ['t'] })])).toThrow(
      'table t is declared by area a and by area b',
    );
    expect(() => checkAreas([area('a', { tables: ['jobs'] })])).toThrow(
      'table jobs is declared by the platform and by area a',
    );
    const job = defineJob<object>({
      name: 'j',
      version: 1,
      payload: Type.Object({}),
      maxAttempts: 1,
      handle: async () => undefined,
    });
    expect(() => checkAreas([area('a', { jobs: [job] }), area('b', { jobs: [job] })])).toThrow(
      'job j is declared by area a and by area b',
    );
    const entity = { type: 'thing', url: (id: number) => `/v4/things/${id}`, list: async () => [] };
    expect(() =>
      checkAreas([area('a', { entities: [entity] }), area('b', { entities: [entity] })]),
    ).toThrow('entity type thing is declared by area a and by area b');
  });

  it('area modules: an area reads only the areas it declared in needs', () => {
    const built = { catalogue: { catalogue: 1 }, compute: { instances: 2 } };
    const needs = needsOf(area('x', { needs: [areaModules[0]] }), built);
    expect(needs.catalogue).toEqual({ catalogue: 1 });
    expect(() => needs.compute).toThrow('area x uses area compute without declaring it in needs');
    // Every shipped area's services and routes were built through it by buildTestApp already;
    // the area mechanism gave each exactly its declared areas.
    for (const m of areaModules) {
      const declared = Object.keys(
        needsOf(m, Object.fromEntries(areaModules.map((a) => [a.name, {}]))),
      );
      expect(declared).toEqual(m.needs.map((n) => n.name));
    }
  });

  it('area modules: two areas declaring the same route stop the start, naming both', async () => {
    const copycat = area('copycat', {
      api: () => [
        async (app: FastifyInstance) => {
          app.get('/volumes', async () => ({}));
        },
      ],
    });
    await expect(buildTestApp({ areas: [copycat] })).rejects.toThrow(
      'route GET /v4/volumes is declared by area volumes and by area copycat',
    );
  });

  it('area modules: an area added to the list is served whole: its routes, job, entity type, metrics and state hook', async () => {
    const log: string[] = [];
    const noteJob = defineJob<{ text: string }>({
      name: 'note_write',
      version: 1,
      payload: Type.Object({ text: Type.String() }),
      maxAttempts: 1,
      handle: async (_ctx, p) => {
        log.push(`job:${p.text}`);
        return undefined;
      },
    });
    const notes = defineArea({
      name: 'notes',
      needs: [volumesModule],
      tables: [],
      entities: [{ type: 'note', url: (id) => `/v4/notes/${id}`, list: async () => [] }],
      jobs: [noteJob],
      services: ({ db, queue }, { volumes }) => ({
        notes: {
          write: (text: string) => db.transaction((tx) => queue.enqueue(tx, noteJob, { text })),
          volumes: volumes.volumes,
        },
      }),
      api: (ctx) => [
        async (app: FastifyInstance) => {
          app.post(
            '/notes',
            {
              schema: { response: { 200: Type.Object({ job: Type.Number() }) } },
              config: { operationId: 'createNote', auth: 'token' },
            },
            async () => ({ job: await ctx.services.notes.write('hello') }),
          );
        },
      ],
      stateHooks: () => [{ name: 'notes', onReset: async () => void log.push('reset') }],
      metrics: () => ['stratus_notes_written 1'],
    });
    t = await buildTestApp({ areas: [notes] });
    expect(t.ctx.areas).not.toHaveProperty('missing');
    expect((t.ctx.areas as Record<string, unknown>).notes).toBeDefined();
    const created = await t.post('/v4/notes', {});
    expect(created.status).toBe(200);
    await t.settle();
    expect(log).toContain('job:hello');
    expect(t.ctx.entities.get('note')?.url(3)).toBe('/v4/notes/3');
    const token = await operatorToken(t);
    const metrics = await t.get('/_stratus/metrics', { token });
    expect(metrics.text).toContain('stratus_notes_written 1');
    const reset = await t.post('/_stratus/reset', {}, { token });
    expect(reset.status).toBe(200);
    expect(log).toContain('reset');
  });
});
