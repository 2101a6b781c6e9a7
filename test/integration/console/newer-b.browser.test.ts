import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, launchChromium } from '../../helpers/chromium.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { ensureConsoleBuild } from '../../helpers/console-build.js';
import { accessible, pasteToken, shot } from '../../helpers/console-browser.js';
import { operatorToken, op } from '../controls/helpers.js';

/**
 * The newer features in the web console, in a real browser (Chromium through playwright-core,
 * `instant` timing, a job runner on the real clock): an instance of the new interface generation
 * created with a maintenance policy, disk encryption and a placement group (fields offered only
 * where the region has them), a VPC interface added on its Network interfaces tab, the account's
 * defaults changed and seen as the create form's defaults; a legacy instance's upgrade after its
 * dry run; the default firewalls and a firewall made from a template; volume encryption; an image
 * replicated from its page; a restricted user who sees the interfaces but no change. axe-core
 * checks each page changed.
 */
const installed = chromiumInstalled();
const STRONG = 's3cr3t-P4ssw0rd!';
const FLOW_MS = 180_000;

describe.skipIf(!installed)(
  'web console: the newer features (Chromium)',
  { timeout: 120_000 },
  () => {
    let browser: Browser;
    let t: TestApp;
    let base: string;
    let ctx: BrowserContext;
    let page: Page;
    let subnetId: number;
    let groupId: number;

    /** Signs in with a personal access token (the sign-in flow itself is console.browser's). */
    const signIn = (p: Page, token: string) => pasteToken(p, base, token);

    /** The form inside a disclosure, opened. */
    async function disclosure(p: Page, label: string) {
      const d = p.locator('details', { has: p.locator('summary', { hasText: label }) });
      await d.locator('summary').click();
      return d;
    }

    async function noAlerts(p: Page): Promise<void> {
      expect(await p.getByRole('alert').allTextContents()).toEqual([]);
    }

    beforeAll(async () => {
      ensureConsoleBuild();
      browser = await launchChromium();
      t = await buildTestApp({ timing: 'instant' });
      t.clock.setMode('system');
      t.ctx.runner.start();
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      const vpc = await t.post('/v4/vpcs', {
        label: 'net-1',
        region: 'us-iad',
        subnets: [{ label: 'sub-1', ipv4: '10.8.0.0/24' }],
      });
      expect(vpc.status).toBe(200);
      subnetId = vpc.body.subnets[0].id;
      const group = await t.post('/v4/placement/groups', {
        label: 'spread-1',
        region: 'us-iad',
        placement_group_type: 'anti_affinity:local',
        placement_group_policy: 'strict',
      });
      expect(group.status).toBe(200);
      groupId = group.body.id;
      ctx = await browser.newContext({ viewport: { width: 1440, height: 900 }, bypassCSP: true });
      page = await ctx.newPage();
      page.setDefaultTimeout(60_000);
      page.on('dialog', (d) => void d.accept());
      await signIn(page, t.admin.token);
    });
    afterAll(async () => {
      await browser?.close();
      await t?.ctx.runner.stop();
      await t?.close();
    });

    it(
      'instance create: a new-generation instance with a maintenance policy, encrypted disks and a placement group; a VPC interface added on its tab',
      async () => {
        await page.goto(`${base}/console/instances/create`);
        await page.getByRole('heading', { name: 'Create an instance' }).waitFor();
        // A region without disk encryption or placement groups is not offered those fields.
        await page.getByLabel('Region').selectOption('us-central');
        await page.getByLabel('Maintenance policy').waitFor();
        expect(await page.getByLabel('Encrypt the disks').count()).toBe(0);
        expect(await page.getByLabel('Placement group').count()).toBe(0);
        expect(await page.getByLabel('VPC subnet').count()).toBe(0);
        await page.getByLabel('Region').selectOption('us-iad');
        await page.getByLabel('Encrypt the disks').waitFor();
        expect(await page.getByLabel('Encrypt the disks').isChecked()).toBe(true);
        // The account's setting is the default generation (legacy here), the other allowed.
        expect(await page.getByLabel('Network interfaces').inputValue()).toBe('legacy_config');
        await page.getByLabel('Label').fill('gen-1');
        await page.getByLabel('Plan').selectOption('g6-standard-1');
        await page.getByLabel('Image', { exact: true }).selectOption('compute/debian12');
        await page.getByLabel('Root password').fill(STRONG);
        await page.getByLabel('Network interfaces').selectOption('compute');
        await page.getByLabel('Maintenance policy').selectOption('compute/power_off_on');
        await page.getByLabel('Placement group').selectOption(String(groupId));
        await accessible(page, 'the create form');
        await shot(page, 'instance-create');
        await page.getByRole('button', { name: 'Create instance' }).click();
        await page.getByRole('heading', { name: 'gen-1' }).waitFor();
        const found = await t.get('/v4/compute/instances', { filter: { label: 'gen-1' } });
        const inst = found.body.data[0];
        expect(inst).toMatchObject({
          interface_generation: 'compute',
          maintenance_policy: 'compute/power_off_on',
          disk_encryption: 'enabled',
          placement_group: { id: groupId },
        });
        await page.getByRole('tab', { name: 'Network interfaces' }).click();
        await page.getByRole('heading', { name: 'Interface settings' }).waitFor();
        const table = page.getByRole('region', { name: 'Network interfaces' });
        await table.getByRole('cell', { name: 'public', exact: true }).waitFor();
        const add = await disclosure(page, 'Add an interface');
        await add.getByLabel('Kind').selectOption('vpc');
        await add.getByLabel('VPC subnet').selectOption(String(subnetId));
        await add.getByRole('button', { name: 'Add interface' }).click();
        await table.getByRole('cell', { name: 'vpc', exact: true }).waitFor();
        await noAlerts(page);
        const ifaces = (await t.get(`/v4/compute/instances/${inst.id}/interfaces`)).body.interfaces;
        expect(ifaces).toHaveLength(2);
        expect(ifaces[1].vpc).toMatchObject({ subnet_id: subnetId });
        await table.getByRole('cell', { name: /^10\.8\.0\.\d+$/ }).waitFor();
        await accessible(page, 'the network interfaces tab');
        await shot(page, 'instance-interfaces');
        // The instance's policy is editable on its Settings tab.
        await page.getByRole('tab', { name: 'Settings' }).click();
        const policy = page.getByRole('region', { name: 'Maintenance policy' });
        expect(await policy.getByLabel('Maintenance policy').inputValue()).toBe(
          'compute/power_off_on',
        );
        await policy.getByLabel('Maintenance policy').selectOption('compute/migrate');
        await policy.getByRole('button', { name: 'Save maintenance policy' }).click();
        await policy.getByText('Done.').waitFor();
        expect((await t.get(`/v4/compute/instances/${inst.id}`)).body.maintenance_policy).toBe(
          'compute/migrate',
        );
      },
      FLOW_MS,
    );

    it(
      'account settings: the default maintenance policy and interface generation become the create form defaults',
      async () => {
        await page.goto(`${base}/console/account`);
        const edit = await disclosure(page, 'Edit settings');
        await edit
          .getByLabel('Default maintenance policy of new instances')
          .selectOption('compute/power_off_on');
        await edit
          .getByLabel('Network interfaces of new instances')
          .selectOption('compute_default_but_legacy_config_allowed');
        await edit.getByRole('button', { name: 'Save settings' }).click();
        await edit.getByText('Done.').waitFor();
        expect((await t.get('/v4/account/settings')).body).toMatchObject({
          maintenance_policy: 'compute/power_off_on',
          interfaces_for_new_computes: 'compute_default_but_legacy_config_allowed',
        });
        await accessible(page, 'the account page');
        await page.goto(`${base}/console/instances/create`);
        await page.getByLabel('Maintenance policy').waitFor();
        expect(await page.getByLabel('Maintenance policy').inputValue()).toBe(
          'compute/power_off_on',
        );
        expect(await page.getByLabel('Network interfaces').inputValue()).toBe('compute');
        await t.put('/v4/account/settings', {
          interfaces_for_new_computes: 'legacy_config_default_but_compute_allowed',
        });
      },
      FLOW_MS,
    );

    it(
      'account page: a failure to read the settings is shown, beside the contact details',
      async () => {
        const o = op(t, await operatorToken(t));
        const set = await o.put('/_stratus/faults', {
          rules: [
            {
              id: 'settings-down',
              method: 'GET',
              path: '/account/settings',
              response: 'error',
              status: 503,
              message: 'The settings are unavailable',
            },
          ],
        });
        expect(set.status, set.text).toBe(200);
        try {
          await page.goto(`${base}/console/account`);
          await page.getByRole('alert').getByText('The settings are unavailable').waitFor();
          await page.getByRole('heading', { name: 'Contact and billing details' }).waitFor();
          expect(await page.getByRole('heading', { name: 'Settings' }).count()).toBe(0);
        } finally {
          expect((await o.put('/_stratus/faults', { rules: [] })).status).toBe(200);
        }
      },
      FLOW_MS,
    );

    it(
      'interface upgrade: a legacy instance is upgraded after its dry run is shown',
      async () => {
        const made = await t.post('/v4/compute/instances', {
          label: 'old-1',
          region: 'us-east',
          type: 'g6-standard-1',
          image: 'compute/debian12',
          root_pass: STRONG,
          interface_generation: 'legacy_config',
        });
        expect(made.status).toBe(200);
        await page.goto(`${base}/console/instances/${made.body.id}`);
        await page.getByRole('tab', { name: 'Network interfaces' }).click();
        await page.getByRole('button', { name: 'Preview the upgrade (dry run)' }).click();
        const preview = page.getByRole('region', { name: 'Interfaces after the upgrade' });
        await preview.getByRole('cell', { name: 'public', exact: true }).waitFor();
        // The dry run changed nothing.
        expect((await t.get(`/v4/compute/instances/${made.body.id}`)).body).toMatchObject({
          interface_generation: 'legacy_config',
        });
        await accessible(page, 'the upgrade preview');
        await page.getByRole('button', { name: 'Upgrade interfaces' }).click();
        await page.getByRole('heading', { name: 'Interface settings' }).waitFor();
        await noAlerts(page);
        expect((await t.get(`/v4/compute/instances/${made.body.id}`)).body).toMatchObject({
          interface_generation: 'compute',
        });
        const ifaces = (await t.get(`/v4/compute/instances/${made.body.id}/interfaces`)).body
          .interfaces;
        expect(ifaces.map((i: { public: unknown }) => i.public !== null)).toEqual([true]);
      },
      FLOW_MS,
    );

    it(
      'firewalls: one made from a template becomes the default of new public interfaces; its rules show their version and history',
      async () => {
        await page.goto(`${base}/console/firewalls`);
        const create = await disclosure(page, 'Create a firewall');
        await create.getByLabel(/^Label/).fill('from-template');
        await create.getByLabel('Rules from a template').selectOption('public');
        await create.getByRole('button', { name: 'Create firewall' }).click();
        await page.getByRole('link', { name: 'from-template' }).waitFor();
        const fw = (await t.get('/v4/networking/firewalls', { filter: { label: 'from-template' } }))
          .body.data[0];
        const template = (await t.get('/v4/networking/firewalls/templates/public')).body;
        expect(fw.rules.inbound).toEqual(template.rules.inbound);
        const defaults = await disclosure(page, 'Change the default firewalls');
        await defaults.getByLabel('New public interfaces').selectOption(String(fw.id));
        await defaults.getByRole('button', { name: 'Save default firewalls' }).click();
        await defaults.getByText('Done.').waitFor();
        expect(
          (await t.get('/v4/networking/firewalls/settings')).body.default_firewall_ids,
        ).toEqual({
          compute: null,
          nodebalancer: null,
          public_interface: fw.id,
          vpc_interface: null,
        });
        await accessible(page, 'the firewalls page');
        await page.getByRole('link', { name: 'from-template' }).click();
        await page
          .getByTestId('rules-version')
          .getByText(/^Version 1/)
          .waitFor();
        await page
          .getByRole('region', { name: 'Rules history' })
          .getByRole('cell', { name: '1', exact: true })
          .waitFor();
        await accessible(page, 'a firewall with its history');
      },
      FLOW_MS,
    );

    it(
      'volumes and images: encryption offered where the region has it; an image replicated from its page',
      async () => {
        await page.goto(`${base}/console/volumes`);
        const create = await disclosure(page, 'Create a volume');
        await create.getByLabel(/^Label/).fill('secret-1');
        await create.getByLabel('Region (or attach at once)').selectOption('us-central');
        expect(await create.getByLabel('Encrypt the volume').count()).toBe(0);
        await create.getByLabel('Region (or attach at once)').selectOption('us-iad');
        // Off unless asked for, as the provider's console has it.
        expect(await create.getByLabel('Encrypt the volume').isChecked()).toBe(false);
        await create.getByLabel('Encrypt the volume').check();
        await create.getByRole('button', { name: 'Create volume' }).click();
        await page.getByRole('link', { name: 'secret-1' }).waitFor();
        const vol = (await t.get('/v4/volumes', { filter: { label: 'secret-1' } })).body.data[0];
        expect(vol).toMatchObject({ region: 'us-iad', encryption: 'enabled' });
        await accessible(page, 'the volumes page');

        const inst = (await t.get('/v4/compute/instances', { filter: { label: 'gen-1' } })).body
          .data[0];
        const disk = (await t.get(`/v4/compute/instances/${inst.id}/disks`)).body.data[0];
        const captured = await t.post('/v4/images', { disk_id: disk.id, label: 'golden-1' });
        expect(captured.status).toBe(200);
        const imagePath = `/v4/images/${captured.body.id}`;
        for (let i = 0; i < 100 && (await t.get(imagePath)).body.status !== 'available'; i++)
          await new Promise((r) => setTimeout(r, 100));
        await page.goto(`${base}/console/images`);
        await page.getByRole('link', { name: 'golden-1' }).click();
        const replicas = page.getByRole('region', { name: 'Replicas' });
        await replicas.getByRole('cell', { name: 'us-iad' }).waitFor();
        const replicate = await disclosure(page, 'Replicate');
        expect(await replicate.getByLabel(/\(us-iad\)$/).isChecked()).toBe(true);
        await replicate.getByLabel(/\(us-east\)$/).check();
        await replicate.getByRole('button', { name: 'Save regions' }).click();
        await replicas.getByRole('cell', { name: 'us-east' }).waitFor();
        await noAlerts(page);
        const regions = (await t.get(imagePath)).body.regions.map(
          (r: { region: string }) => r.region,
        );
        expect(regions).toEqual(['us-iad', 'us-east']);
        await accessible(page, 'an image with its replicas');
      },
      FLOW_MS,
    );

    it(
      'restricted user: sees a granted instance interfaces read-only, and no account defaults; without account access the create form offers both generations',
      async () => {
        const inst = (await t.get('/v4/compute/instances', { filter: { label: 'gen-1' } })).body
          .data[0];
        const user = await createTestUser(t, {
          username: 'viewer',
          grants: [{ type: 'compute', id: inst.id, permissions: 'read_only' }],
          global: { account_access: 'read_write' },
        });
        const rctx = await browser.newContext({ bypassCSP: true });
        const p = await rctx.newPage();
        p.setDefaultTimeout(60_000);
        await signIn(p, user.token);
        await p.goto(`${base}/console/instances/${inst.id}`);
        await p.getByRole('tab', { name: 'Network interfaces' }).click();
        await p
          .getByRole('region', { name: 'Network interfaces' })
          .getByRole('cell', { name: 'vpc', exact: true })
          .waitFor();
        expect(await p.getByText('Add an interface').count()).toBe(0);
        expect(await p.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
        // Account access lets it edit the account's settings, not the defaults of new instances.
        await p.goto(`${base}/console/account`);
        await (await disclosure(p, 'Edit settings')).getByLabel('Network helper').waitFor();
        expect(await p.getByLabel('Default maintenance policy of new instances').count()).toBe(0);
        expect(await p.getByLabel('Network interfaces of new instances').count()).toBe(0);
        await rctx.close();
        // A user who may create instances but not read the account's settings: the form still
        // offers both generations, the account's default when none is chosen.
        const maker = await createTestUser(t, {
          username: 'maker',
          global: { add_computes: true },
        });
        const mctx = await browser.newContext({ bypassCSP: true });
        const m = await mctx.newPage();
        m.setDefaultTimeout(60_000);
        await signIn(m, maker.token);
        await m.goto(`${base}/console/instances/create`);
        await m.getByLabel('Region').selectOption('us-iad');
        await m.getByLabel('Maintenance policy').waitFor();
        expect(await m.getByLabel('Network interfaces').inputValue()).toBe('');
        const choices = await m
          .getByLabel('Network interfaces')
          .locator('option')
          .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value));
        expect(choices).toEqual(['', 'legacy_config', 'compute']);
        expect(await m.getByRole('alert').count()).toBe(0);
        await mctx.close();
      },
      FLOW_MS,
    );
    it(
      'network interfaces: a VPC interface edited, a firewall added to it, the IPv4 default route moved to it, then deleted',
      async () => {
        const inst = (await t.get('/v4/compute/instances', { filter: { label: 'gen-1' } })).body
          .data[0];
        const ifacesPath = `/v4/compute/instances/${inst.id}/interfaces`;
        const vpcIface = (await t.get(ifacesPath)).body.interfaces.find(
          (i: { vpc: unknown }) => i.vpc !== null,
        );
        const fw = await t.post('/v4/networking/firewalls', {
          label: 'vpc-edge',
          rules: { inbound_policy: 'DROP', outbound_policy: 'ACCEPT', inbound: [], outbound: [] },
        });
        expect(fw.status).toBe(200);
        await page.goto(`${base}/console/instances/${inst.id}`);
        await page.getByRole('tab', { name: 'Network interfaces' }).click();
        const name = `vpc interface ${vpcIface.id}`;
        const edit = await disclosure(page, `Edit ${name}`);
        await edit.getByLabel('VPC IPv4 address').fill('10.8.0.50');
        await edit.getByRole('button', { name: 'Save interface' }).click();
        await edit.getByText('Done.').waitFor();
        const table = page.getByRole('region', { name: 'Network interfaces' });
        await table.getByRole('cell', { name: '10.8.0.50' }).waitFor();
        const addFw = await disclosure(page, 'Add a firewall to an interface');
        await addFw.getByLabel('Interface').selectOption(String(vpcIface.id));
        await addFw.getByLabel('Firewall').selectOption(String(fw.body.id));
        await addFw.getByRole('button', { name: 'Add firewall' }).click();
        await table.getByRole('link', { name: 'vpc-edge' }).waitFor();
        const fws = await t.get(`${ifacesPath}/${vpcIface.id}/firewalls`);
        expect(fws.body.data.map((f: { id: number }) => f.id)).toEqual([fw.body.id]);
        const settings = await disclosure(page, 'Edit interface settings');
        await settings.getByLabel('IPv4 default route').selectOption(String(vpcIface.id));
        await settings.getByRole('button', { name: 'Save interface settings' }).click();
        await settings.getByText('Done.').waitFor();
        expect((await t.get(`${ifacesPath}/settings`)).body.default_route.ipv4_interface_id).toBe(
          vpcIface.id,
        );
        // The firewall leaves with the interface.
        await table.getByRole('button', { name: `Remove vpc-edge from ${name}` }).click();
        await table.getByRole('link', { name: 'vpc-edge' }).waitFor({ state: 'detached' });
        expect((await t.get(`${ifacesPath}/${vpcIface.id}/firewalls`)).body.data).toEqual([]);
        await table.getByRole('button', { name: `Delete ${name}` }).click();
        await table.getByRole('cell', { name: 'vpc', exact: true }).waitFor({ state: 'detached' });
        await noAlerts(page);
        expect((await t.get(ifacesPath)).body.interfaces).toHaveLength(1);
      },
      FLOW_MS,
    );
  },
);
