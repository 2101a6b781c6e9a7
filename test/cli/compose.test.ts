import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { envToConfig } from '../../src/config/config.js';
import { readEnv } from '../../src/config/env.js';
import { readSeedFile } from '../../src/modules/controls/seed.js';

// compose.yaml cannot be started here (no container engine on the test machines): its syntax is
// checked by a YAML parser (anchors and merge keys resolved as compose resolves them), and what
// Stratus reads from it by Stratus's own configuration and seed checks.
const ROOT = path.resolve(import.meta.dirname, '../..');
const doc = parseDocument(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8'), { merge: true });

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  ports?: string[];
}
const compose = doc.toJS() as { services: Record<string, Service> };
const services = compose.services;
const of = (re: RegExp) => Object.entries(services).filter(([name]) => re.test(name));

describe('compose.yaml', () => {
  it('compose.yaml: parses without error or warning', () => {
    expect(doc.errors).toEqual([]);
    expect(doc.warnings).toEqual([]);
  });

  it('compose.yaml: two API processes and two workers run the scale-out test’s commands', () => {
    expect(of(/^api-/).map(([, s]) => s.command)).toEqual([
      ['serve', '--no-worker'],
      ['serve', '--no-worker'],
    ]);
    expect(of(/^worker-/).map(([, s]) => s.command)).toEqual([['worker'], ['worker']]);
    expect(new Set(of(/^api-/).map(([, s]) => s.ports?.[0]?.split(':')[0])).size).toBe(2);
  });

  it('compose.yaml: every Stratus process has the scale-out test’s settings, and they are valid', async () => {
    for (const [name, service] of of(/^(api|worker)-/)) {
      const env = service.environment ?? {};
      // test/scale/scale-out.test.ts: instant timing, shared rate limits, an operator token, a seed.
      expect(env.STRATUS_TIMING, name).toBe('instant');
      expect(env.STRATUS_RATE_LIMITS, name).toBe('on');
      expect(env.STRATUS_OPERATOR_TOKEN, name).toBeTruthy();
      expect(env.DATABASE_URL, name).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//);
      expect(Object.keys(service.depends_on ?? {}).sort(), name).toEqual([
        'blobs-bucket',
        'postgres',
      ]);
      const config = envToConfig(readEnv(env));
      expect(config.blob.backend, name).toBe('s3');
      // The seed file mounted is the repository's example, and it passes the start's check.
      const mount = service.volumes?.find((v) => v.split(':')[1] === env.STRATUS_SEED);
      expect(mount, name).toBeDefined();
      await readSeedFile(path.join(ROOT, mount?.split(':')[0] ?? ''));
    }
  });

  it('compose.yaml: the blob store’s bucket and credentials are the ones Stratus is given', () => {
    const env = services['api-1']?.environment ?? {};
    const minio = services.blobs?.environment ?? {};
    expect(minio.MINIO_ROOT_USER).toBe(env.STRATUS_BLOB_S3_ACCESS_KEY_ID);
    expect(minio.MINIO_ROOT_PASSWORD).toBe(env.STRATUS_BLOB_S3_SECRET_ACCESS_KEY);
    const mb = String(services['blobs-bucket']?.command);
    expect(mb).toContain(`mc mb --ignore-existing blobs/${env.STRATUS_BLOB_S3_BUCKET}`);
  });
});
