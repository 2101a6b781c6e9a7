import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { chromiumInstalled, launchChromium } from '../../helpers/chromium.js';
import { ensureConsoleBuild } from '../../helpers/console-build.js';
import { accessible, shot, signedInPage } from '../../helpers/console-browser.js';

/**
 * The newer areas in the web console, in a real browser (Chromium through playwright-core):
 * placement groups (create, assign, unassign, a refused delete), reserved IPv4 addresses
 * (price, reserve with tags, assign, release), resource locks on an instance (added, its delete
 * refused in the API's words, removed), the events' wording, and restricted users who see these
 * pages only as their grants allow. Timing `instant` on the test's clock: the jobs of the
 * instances made through the API are run by `settle`. axe-core checks each new page. With
 * STRATUS_SCREENSHOTS=1 (`npm run screenshots`) the placement group and reserved IP pages are saved into docs/console/.
 */
const installed = chromiumInstalled();
const FLOW_MS = 120_000;

describe.skipIf(!installed)('web console: placement groups, reserved IPs, locks', () => {
  let browser: Browser;
  let t: TestApp;
  let base: string;
  let page: Page;
  let web1: { id: number; label: string };
  let web2: { id: number; label: string };

  /** A page signed in with a personal access token. */
  const signedIn = (token: string, width = 1440) => signedInPage(browser, base, token, width);

  const instance = async (label: string) => {
    const r = await t.post('/v4/compute/instances', {
      region: 'us-east',
      type: 'g6-standard-1',
      label,
    });
    expect(r.status).toBe(200);
    return { id: r.body.id as number, label };
  };

  beforeAll(async () => {
    ensureConsoleBuild();
    browser = await launchChromium();
    t = await buildTestApp({ timing: 'instant' });
    web1 = await instance('web-1');
    web2 = await instance('web-2');
    await t.settle();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    page = await signedIn(t.admin.token);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it(
    'placement groups: created in the form, an instance assigned and unassigned, a delete of a group with members refused in the API’s words',
    async () => {
      await page.locator('#nav').getByRole('link', { name: 'Placement groups' }).click();
      await page.getByRole('heading', { name: 'Placement groups', level: 1 }).waitFor();
      const create = page.locator('details', { hasText: 'Create a placement group' });
      await create.getByText('Create a placement group').click();
      await create.getByLabel(/^Label/).fill('east-spread');
      // Only the regions with placement groups are offered.
      const offered = await create
        .getByLabel(/^Region/)
        .locator('option')
        .allTextContents();
      expect(offered.some((o) => o.includes('(us-east)'))).toBe(true);
      expect(offered.some((o) => o.includes('(us-west)'))).toBe(false);
      await create.getByLabel(/^Region/).selectOption('us-east');
      await create.getByLabel(/^Type/).selectOption('anti_affinity:local');
      await create.getByLabel(/^Policy/).selectOption('strict');
      await create.getByRole('button', { name: 'Create placement group' }).click();
      await page.getByRole('link', { name: 'east-spread' }).waitFor();
      const row = page.getByRole('row', { name: /east-spread/ });
      expect(await row.textContent()).toMatch(/us-east.*anti-affinity.*strict.*compliant.*0/);
      await accessible(page, 'the placement groups list');

      await page.getByRole('link', { name: 'east-spread' }).click();
      await page.getByRole('heading', { name: 'east-spread' }).waitFor();
      const assign = page.locator('details', { hasText: 'Assign an instance' });
      await assign.getByText('Assign an instance').click();
      await assign.getByLabel(/^Instance/).selectOption({ label: `web-1 (${web1.id})` });
      await assign.getByRole('button', { name: 'Assign' }).click();
      await page.getByRole('link', { name: 'web-1' }).waitFor();
      const group = (await t.get('/v4/placement/groups', { filter: { label: 'east-spread' } })).body
        .data[0];
      expect(group.members).toEqual([{ compute_id: web1.id, is_compliant: true }]);
      await accessible(page, 'a placement group');
      await shot(page, 'placement-group');

      // A group with members cannot be deleted: the API's refusal is shown.
      await page.getByRole('button', { name: 'Delete' }).click();
      await page
        .getByRole('alert')
        .getByText(
          'All Computes must be unassigned from the placement group before it can be deleted.',
        )
        .waitFor();

      await page.getByRole('button', { name: 'Unassign web-1' }).click();
      await page.getByRole('cell', { name: 'None yet.' }).waitFor();
      expect((await t.get(`/v4/placement/groups/${group.id}`)).body.members).toEqual([]);

      // The instance's page names its group while it is in one.
      await t.post(`/v4/placement/groups/${group.id}/assign`, { computes: [web2.id] });
      await page.goto(`${base}/console/instances/${web2.id}`);
      await page.getByRole('heading', { name: 'Placement group' }).waitFor();
      await page.getByRole('link', { name: 'east-spread' }).click();
      await page.getByRole('link', { name: 'web-2' }).waitFor();

      // The events read as words.
      await page.locator('#nav').getByRole('link', { name: 'Events' }).click();
      await page
        .getByRole('cell', { name: 'instance assigned to placement group' })
        .first()
        .waitFor();
      await page.getByRole('cell', { name: 'instance removed from placement group' }).waitFor();
      await page
        .getByRole('cell', { name: 'placement group east-spread, instance web-1' })
        .first()
        .waitFor();
    },
    FLOW_MS,
  );

  it(
    'reserved IPs: the price shown, an address reserved with tags, assigned to an instance, retagged and released; an instance’s address reserved from its Network tab',
    async () => {
      await page.locator('#nav').getByRole('link', { name: 'Reserved IPs' }).click();
      await page.getByRole('heading', { name: 'Reserved IPs', level: 1 }).waitFor();
      await page
        .getByTestId('reserved-price')
        .getByText('$0.0068 an hour', { exact: false })
        .waitFor();
      const reserve = page.locator('details', { hasText: 'Reserve an address' });
      await reserve.getByText('Reserve an address').click();
      await reserve.getByLabel(/^Region/).selectOption('us-east');
      await reserve.getByLabel('Tags').fill('edge, prod');
      await reserve.getByRole('button', { name: 'Reserve address' }).click();
      await reserve.getByText('Done.').waitFor();
      const list = (await t.get('/v4/networking/reserved/ips')).body.data;
      expect(list).toHaveLength(1);
      const address = list[0].address as string;
      expect(list[0]).toMatchObject({ region: 'us-east', tags: ['edge', 'prod'], reserved: true });
      const row = page.getByRole('row', { name: new RegExp(address.replace(/\./g, '\\.')) });
      await row.waitFor();
      expect(await row.textContent()).toContain('edge, prod');
      await accessible(page, 'the reserved IPs');
      await shot(page, 'reserved-ips');

      const assign = page.locator('details', { hasText: 'Assign to an instance' });
      await assign.getByText('Assign to an instance').click();
      await assign.getByLabel('Unassigned address').selectOption(address);
      await assign.getByLabel(/^Instance/).selectOption({ label: 'web-1 (us-east)' });
      await assign.getByRole('button', { name: 'Assign address' }).click();
      await row.getByRole('link', { name: 'web-1' }).waitFor();
      expect(
        (await t.get(`/v4/networking/reserved/ips/${address}`)).body.assigned_entity,
      ).toMatchObject({
        id: web1.id,
        type: 'compute',
      });

      const tags = page.locator('details', { hasText: 'Edit tags' });
      await tags.getByText('Edit tags').click();
      await tags.getByLabel(/^Address/).selectOption(address);
      await tags.getByLabel(/^New tags/).fill('edge');
      await tags.getByRole('button', { name: 'Save tags' }).click();
      await tags.getByText('Done.').waitFor();
      expect((await t.get(`/v4/networking/reserved/ips/${address}`)).body.tags).toEqual(['edge']);
      // The tag's page lists the address among its objects.
      await page.locator('#nav').getByRole('link', { name: 'Tags' }).click();
      await page.getByRole('button', { name: 'edge', exact: true }).click();
      const tagged = page.getByRole('region', { name: 'Objects tagged edge' });
      await tagged.getByRole('cell', { name: address, exact: true }).waitFor();
      expect(await tagged.getByRole('cell', { name: 'reserved ipv4 address' }).count()).toBe(1);
      await page.locator('#nav').getByRole('link', { name: 'Reserved IPs' }).click();

      await page.getByRole('button', { name: `Release ${address}` }).click();
      await page.getByRole('cell', { name: 'None yet.' }).waitFor();
      expect((await t.get('/v4/networking/reserved/ips')).body.results).toBe(0);
      // The address stays on its instance, no longer reserved.
      expect((await t.get(`/v4/networking/ips/${address}`)).body).toMatchObject({
        compute_id: web1.id,
        reserved: false,
      });

      // From an instance's Network tab: its own address reserved and unreserved, and one of the
      // account's reserved addresses added to it.
      const spare = (await t.post('/v4/networking/reserved/ips', { region: 'us-east' })).body
        .address as string;
      const own = (await t.get(`/v4/compute/instances/${web2.id}/ips`)).body.ipv4.public[0]
        .address as string;
      await page.goto(`${base}/console/instances/${web2.id}`);
      await page.getByRole('tab', { name: 'Network', exact: true }).click();
      await page.getByRole('button', { name: `Reserve ${own}`, exact: true }).click();
      await page.getByRole('button', { name: `Unreserve ${own}`, exact: true }).waitFor();
      expect((await t.get(`/v4/networking/reserved/ips/${own}`)).body.assigned_entity.id).toBe(
        web2.id,
      );
      const add = page.locator('details', { hasText: 'Add an IPv4 address' });
      await add.getByText('Add an IPv4 address').click();
      await add.getByLabel(/reserved addresses/).selectOption(spare);
      await add.getByRole('button', { name: 'Add address' }).click();
      await page.getByRole('button', { name: `Unreserve ${spare}`, exact: true }).waitFor();
      const held = (await t.get(`/v4/compute/instances/${web2.id}/ips`)).body.ipv4.public;
      expect(held).toContainEqual(expect.objectContaining({ address: spare, reserved: true }));
      await accessible(page, 'an instance’s addresses');
      await page.getByRole('button', { name: `Unreserve ${own}`, exact: true }).click();
      await page.getByRole('button', { name: `Reserve ${own}`, exact: true }).waitFor();
      expect((await t.get(`/v4/networking/ips/${own}`)).body).toMatchObject({
        compute_id: web2.id,
        reserved: false,
      });
    },
    FLOW_MS,
  );

  it(
    'locks: a lock added on the instance page refuses its delete in the API’s words, then is removed; volumes and NodeBalancers are locked from their pages',
    async () => {
      await page.goto(`${base}/console/instances/${web1.id}`);
      await page.getByRole('heading', { name: 'Locks' }).waitFor();
      await page.getByLabel(/^Lock type/).selectOption('cannot_delete');
      await page.getByRole('button', { name: 'Add lock' }).click();
      await page.getByRole('button', { name: 'Remove lock cannot_delete' }).waitFor();
      const locks = (await t.get('/v4/locks')).body.data;
      expect(locks).toEqual([
        expect.objectContaining({
          lock_type: 'cannot_delete',
          entity: expect.objectContaining({ id: web1.id, type: 'compute' }),
        }),
      ]);
      expect((await t.get(`/v4/compute/instances/${web1.id}`)).body.locks).toEqual([
        'cannot_delete',
      ]);
      await accessible(page, 'an instance with a lock');

      await page.getByRole('button', { name: 'Delete', exact: true }).click();
      const refusal = page.getByRole('alert').filter({ hasText: `Lock ID: ${locks[0].id}` });
      await refusal.waitFor();
      expect(await refusal.textContent()).toBe(
        `The cannot_delete lock (Lock ID: ${locks[0].id}) needs to be removed to delete this Compute.`,
      );
      expect((await t.get(`/v4/compute/instances/${web1.id}`)).status).toBe(200);

      await page.getByRole('button', { name: 'Remove lock cannot_delete' }).click();
      await page.getByRole('button', { name: 'Add lock' }).waitFor();
      expect((await t.get('/v4/locks')).body.results).toBe(0);

      // A volume's page has its locks too.
      const vol = await t.post('/v4/volumes', { label: 'data-1', region: 'us-east', size: 20 });
      await page.goto(`${base}/console/volumes/${vol.body.id}`);
      await page.getByRole('heading', { name: 'Locks' }).waitFor();
      await page.getByRole('button', { name: 'Add lock' }).click();
      await page.getByRole('button', { name: 'Remove lock cannot_delete' }).waitFor();
      expect((await t.get(`/v4/volumes/${vol.body.id}`)).body.locks).toEqual(['cannot_delete']);

      // And a NodeBalancer's, with the lock that also keeps its parts.
      const nb = await t.post('/v4/nodebalancers', { label: 'lb-1', region: 'us-east' });
      await page.goto(`${base}/console/nodebalancers/${nb.body.id}`);
      await page.getByRole('heading', { name: 'Locks' }).waitFor();
      await page.getByLabel(/^Lock type/).selectOption('cannot_delete_with_subresources');
      await page.getByRole('button', { name: 'Add lock' }).click();
      await page
        .getByRole('button', { name: 'Remove lock cannot_delete_with_subresources' })
        .waitFor();
      expect((await t.get(`/v4/nodebalancers/${nb.body.id}`)).body.locks).toEqual([
        'cannot_delete_with_subresources',
      ]);
    },
    FLOW_MS,
  );

  it(
    'restricted users: without a compute grant the pages are not in the menu; read-only sees no write action',
    async () => {
      const none = await createTestUser(t, {
        username: 'no-compute',
        global: { add_volumes: true },
      });
      const p1 = await signedIn(none.token);
      const nav1 = (await p1.locator('#nav').textContent()) ?? '';
      expect(nav1).toContain('Volumes');
      expect(nav1).not.toContain('Placement groups');
      expect(nav1).not.toContain('Reserved IPs');
      await p1.context().close();

      const ro = await createTestUser(t, {
        username: 'read-only',
        grants: [{ type: 'compute', id: web2.id, permissions: 'read_only' }],
      });
      const p2 = await signedIn(ro.token);
      await p2.locator('#nav').getByRole('link', { name: 'Placement groups' }).click();
      await p2.getByRole('link', { name: 'east-spread' }).click();
      await p2.getByRole('link', { name: 'web-2' }).waitFor();
      expect(await p2.getByText('Create a placement group').count()).toBe(0);
      expect(await p2.getByRole('button', { name: 'Delete' }).count()).toBe(0);
      expect(await p2.getByText('Assign an instance').count()).toBe(0);
      expect(await p2.getByRole('button', { name: /^Unassign/ }).count()).toBe(0);
      await accessible(p2, 'a placement group, read only');
      await p2.locator('#nav').getByRole('link', { name: 'Reserved IPs' }).click();
      await p2.getByRole('heading', { name: 'Reserved IPs', level: 1 }).waitFor();
      expect(await p2.getByText('Reserve an address').count()).toBe(0);
      await p2.goto(`${base}/console/instances/${web2.id}`);
      await p2.getByRole('heading', { name: 'Locks' }).waitFor();
      expect(await p2.getByRole('button', { name: 'Add lock' }).count()).toBe(0);
      await p2.getByRole('tab', { name: 'Network', exact: true }).click();
      await p2.getByRole('columnheader', { name: 'Reserved' }).waitFor();
      expect(await p2.getByRole('button', { name: /reserve/i }).count()).toBe(0);
      await p2.context().close();
    },
    FLOW_MS,
  );
});
