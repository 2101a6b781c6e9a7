import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTestApp } from '../../helpers/build-test-app.js';
import type { OpenApiDoc } from '../../helpers/openapi-compare.js';
import { realWire } from '../../helpers/real-wire.js';

/**
 * Every operation Stratus serves that the real wire recorded (test/fixtures/reference/
 * real-wire.json): each key path of each recorded success is declared by the operation's response
 * schema in the generated document, with one of the JSON types the wire shows. Response schemas
 * are the serializers (a required field missing from an answer fails the serializer, an
 * undeclared one is dropped), so a declared path is a sent path.
 *
 * Departures are listed by operation and path with their reason, also in docs/fidelity.md
 * ("Departures from the wire"); an entry that no longer departs fails the last test.
 */
const DEPARTURES: Record<string, { paths: string[]; reason: string }> = {
  'PUT /compute/instances/{computeId}/configs/{configId}': {
    paths: [
      'devices.sdi',
      'devices.sdj',
      'devices.sdk',
      'devices.sdk.disk_id',
      'devices.sdk.volume_id',
      'devices.sdl',
      'devices.sdl.disk_id',
      'devices.sdl.volume_id',
    ],
    reason:
      "configs: `devices` `sdi`..`sdl` (the wire's volumes beyond eight slots; the reference and spec have sda..sdh) not carried",
  },
  'PUT /networking/firewalls/{firewallId}': {
    paths: ['rules.outbound'],
    reason:
      "firewalls: the wire's `outbound: null` (a firewall without outbound rules) where Stratus answers `[]`",
  },
  'PUT /networking/firewalls/{firewallId}/rules': {
    paths: ['outbound'],
    reason:
      "firewalls: the wire's `outbound: null` (a firewall without outbound rules) where Stratus answers `[]`",
  },
};

interface Schema {
  type?: string | string[];
  nullable?: boolean;
  properties?: Record<string, Schema>;
  additionalProperties?: unknown;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
}

/** Every path of a response schema with its JSON types (`any` for free-form parts). */
function flatten(s: Schema, prefix: string, out: Map<string, Set<string>>): void {
  const alts = s.anyOf ?? s.oneOf;
  if (alts) {
    for (const a of alts) flatten(a, prefix, out);
    return;
  }
  const set = out.get(prefix) ?? new Set<string>();
  const types = s.type === undefined ? ['any'] : [s.type].flat();
  for (const t of types) set.add(t);
  if (s.nullable) set.add('null');
  if (prefix !== '') out.set(prefix, set);
  for (const [k, v] of Object.entries(s.properties ?? {}))
    flatten(v, prefix === '' ? k : `${prefix}.${k}`, out);
  if (s.additionalProperties) out.set(`${prefix}.*`, new Set(['any']));
  if (s.items) flatten(s.items, `${prefix}[]`, out);
}

/** Whether a wire path is declared with a type the wire shows (integers are numbers). */
function problem(declared: Map<string, Set<string>>, path: string, wire: string): string | null {
  // The tagged objects' `data<type>` variants are one `data` object in the schema.
  const plain = path.replace(/<[^>]+>/g, '');
  const free = [...declared].some(
    ([k, t]) => t.has('any') && (plain.startsWith(`${k.replace(/\.\*$/, '')}.`) || plain === k),
  );
  const ours = declared.get(plain);
  if (!ours) return free ? null : `missing ${path} (${wire})`;
  if (ours.has('any')) return null;
  const seen = wire.split('|').filter((t) => t !== 'null');
  if (seen.length === 0) return ours.has('null') ? null : `${path}: null on the wire`;
  const fits = (t: string) =>
    ours.has(t) ||
    (t === 'integer' && ours.has('number')) ||
    (t === 'number' && ours.has('integer'));
  return seen.some(fits) ? null : `${path}: ${wire} on the wire, ${[...ours].join('|')} here`;
}

const t = await buildTestApp();
const doc = (await t.get<OpenApiDoc>('/v4/openapi.json', { token: null })).body;
const template = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
const served = new Map<string, Record<string, unknown>>();
for (const [path, item] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(item)) {
    served.set(`${method.toUpperCase()} ${template(path)}`, op as Record<string, unknown>);
  }
}
const walked = Object.entries(realWire.operations).filter(([key]) => {
  const [m, p] = key.split(' ', 2);
  return served.has(`${m} ${template(p ?? '')}`);
});

afterAll(async () => {
  await t.close();
});

describe('real wire: every served operation answers the recorded shape', () => {
  it('walks every served operation of real-wire.json', () => {
    expect(walked.length).toBeGreaterThanOrEqual(180);
  });

  const departed = new Set<string>();
  for (const [key, wire] of walked) {
    it(`${key}: every recorded key path is declared with a real type`, () => {
      const [m, p] = key.split(' ', 2);
      const op = served.get(`${m} ${template(p ?? '')}`) as {
        responses?: Record<string, { content?: Record<string, { schema?: Schema }> }>;
      };
      const out: string[] = [];
      for (const [status, s] of Object.entries(wire.statuses)) {
        if (!status.startsWith('2') || Object.keys(s.shape ?? {}).length === 0) continue;
        const schema = (op.responses?.[status] ?? op.responses?.['200'])?.content?.[
          'application/json'
        ]?.schema;
        if (!schema) {
          out.push(`status ${status}: no response schema`);
          continue;
        }
        const declared = new Map<string, Set<string>>();
        flatten(schema, '', declared);
        for (const [path, types] of Object.entries(s.shape ?? {})) {
          const pb = problem(declared, path, types);
          if (pb === null) continue;
          if (DEPARTURES[key]?.paths.includes(path)) {
            departed.add(`${key} ${path}`);
            continue;
          }
          out.push(pb);
        }
      }
      expect(out).toEqual([]);
    });
  }

  it('every listed departure still departs and is written in docs/fidelity.md', () => {
    const fidelity = readFileSync(new URL('../../../docs/fidelity.md', import.meta.url), 'utf8');
    const listed = Object.entries(DEPARTURES).flatMap(([k, d]) => d.paths.map((p) => `${k} ${p}`));
    expect(listed.filter((l) => !departed.has(l))).toEqual([]);
    expect(Object.keys(DEPARTURES).filter((k) => !fidelity.includes(`\`${k}\``))).toEqual([]);
  });
});
