import type { TestApp } from '../../helpers/build-test-app.js';

export const STRONG = 's3cr3t-P4ssw0rd!';

/** Creates an instance from an image (running once settled unless `booted: false`). */
export async function runningInstance(
  t: TestApp,
  extra: Record<string, unknown> = {},
): Promise<number> {
  const r = await t.post('/v4/compute/instances', {
    region: 'us-east',
    type: 'g6-standard-1',
    image: 'compute/debian12',
    root_pass: STRONG,
    ...extra,
  });
  if (r.status !== 200) throw new Error(`create failed: ${JSON.stringify(r.body)}`);
  await t.settle();
  return r.body.id as number;
}

/** The instance's events, oldest first, as [action, status] pairs. */
export async function eventsOf(t: TestApp, id: number): Promise<[string, string][]> {
  const r = await t.get('/v4/account/events', {
    filter: { 'entity.id': id, 'entity.type': 'compute', '+order_by': 'id', '+order': 'asc' },
  });
  return r.body.data.map((e: { action: string; status: string }) => [e.action, e.status]);
}

export async function statusOf(t: TestApp, id: number): Promise<string> {
  return (await t.get(`/v4/compute/instances/${id}`)).body.status;
}

/** Runs the due jobs and moves the clock on by `ms`, `n` times, collecting the statuses seen. */
export async function stepThrough(
  t: TestApp,
  id: number,
  ms: number,
  n: number,
): Promise<string[]> {
  const seen: string[] = [await statusOf(t, id)];
  for (let i = 0; i < n; i++) {
    await t.runDue();
    t.clock.set(t.clock.nowMs() + ms);
    const s = await statusOf(t, id);
    if (seen[seen.length - 1] !== s) seen.push(s);
  }
  return seen;
}
