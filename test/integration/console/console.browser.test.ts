import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_MISSING, chromiumInstalled, launchChromium } from '../../helpers/chromium.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { ensureConsoleBuild } from '../../helpers/console-build.js';
import { accessible, shot } from '../../helpers/console-browser.js';
import { bootstrapAccount } from '../../../src/modules/identity/bootstrap.js';
import { givePassword, PASSWORD } from '../oauth/fixtures.js';

/**
 * The web console in a real browser (Debian's Chromium through playwright-core), against one
 * server of the test (the console's build, the API, the login service, a job runner on the real
 * clock, `fast` timing): sign-in, an instance created in the form and seen reaching `running`, a
 * volume attached, a firewall rule edited, an object uploaded and downloaded back, an invoice
 * read after the operator advanced the clock, an account reset by the operator, and a restricted
 * user who sees only what its grants allow. axe-core checks the main pages. With
 * STRATUS_SCREENSHOTS=1 (`npm run screenshots`) the pages are saved into docs/console/.
 */
const installed = chromiumInstalled();
const inCi = process.env.CI === 'true' || process.env.CI === '1';
const OPERATOR = 'operator-token-for-the-console-test';
const STRONG = 's3cr3t-P4ssw0rd!';
/** Each flow waits on a browser and on jobs of a shared, busy machine. */
const FLOW_MS = 180_000;

describe.runIf(!installed && inCi)('console browser tests: prerequisites', () => {
  it(
    'chromium: is installed for the browser tests',
    () => {
      throw new Error(CHROMIUM_MISSING);
    },
    FLOW_MS,
  );
});

// A flow waits on the browser and the job clock; on a loaded machine (CI runs both engines side by
// side) one can take longer than the suite's 30 s default, so these tests get 120 s each.
describe.skipIf(!installed)(
  'web console in a real browser (Chromium)',
  { timeout: 120_000 },
  () => {
    let browser: Browser;
    let t: TestApp;
    let base: string;
    let ctx: BrowserContext;
    let page: Page;

    /** The operator panel in a new tab (its token is kept per tab, as sessionStorage is). */
    async function operatorPage(): Promise<Page> {
      const op = await ctx.newPage();
      op.setDefaultTimeout(60_000);
      op.on('dialog', (d) => void d.accept());
      await op.goto(`${base}/console/operator`);
      await op.getByLabel('Operator token').fill(OPERATOR);
      await op.getByRole('button', { name: 'Use this token' }).click();
      await op.getByRole('heading', { name: 'Accounts' }).waitFor();
      return op;
    }

    const newContext = (width = 1440, height = 900) =>
      browser.newContext({
        viewport: { width, height },
        // axe is added as a script; the console's policy allows only its own.
        bypassCSP: true,
        acceptDownloads: true,
      });

    beforeAll(async () => {
      ensureConsoleBuild();
      browser = await launchChromium();
      t = await buildTestApp({ env: { STRATUS_OPERATOR_TOKEN: OPERATOR } });
      // The real clock and a job runner, as a served process has: work proceeds by itself.
      t.clock.setMode('system');
      t.ctx.runner.start();
      await givePassword(t, 'owner');
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      ctx = await newContext();
      page = await ctx.newPage();
      page.setDefaultTimeout(60_000);
      page.on('dialog', (d) => void d.accept());
    });
    afterAll(async () => {
      await browser?.close();
      await t?.ctx.runner.stop();
      await t?.close();
    });

    it(
      'landing page: shows the server, its engine and timing, and the way to sign in',
      async () => {
        const res = await page.goto(`${base}/`);
        expect(res?.headers()['cache-control']).toBe('no-cache');
        await page.getByRole('heading', { name: 'The server' }).waitFor();
        const text = await page.locator('main').textContent();
        expect(text).toContain(t.ctx.db.dialect === 'postgres' ? 'PostgreSQL' : 'SQLite');
        expect(text).toContain('fast');
        expect(text).toContain(`${base}/v4`);
        await accessible(page, 'the landing page');
        await shot(page, 'landing');
      },
      FLOW_MS,
    );

    it(
      'sign-in: through the login service (OAuth, PKCE) into the console',
      async () => {
        await page.getByRole('link', { name: 'Sign in to the console' }).click();
        await page.getByRole('button', { name: 'Sign in with Stratus' }).click();
        await page.waitForURL((u) => u.pathname === '/oauth/authorize');
        expect(await page.locator('h1').textContent()).toBe('Sign in');
        await accessible(page, 'the sign-in page');
        await shot(page, 'sign-in');
        await page.locator('#username').fill('owner');
        await page.locator('#password').fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in' }).click();
        await page.locator('h1', { hasText: 'Authorize access' }).waitFor();
        await page.getByRole('button', { name: 'Allow' }).click();
        await page.getByRole('heading', { name: 'Overview' }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/console');
        expect(await page.locator('.who').textContent()).toContain('owner');
        // Domains light up when the server serves them (its OpenAPI document lists /domains).
        const served = Object.keys((await t.get('/v4/openapi.json')).body.paths).includes(
          '/domains',
        );
        expect(await page.locator('#nav').getByRole('link', { name: 'Domains' }).count()).toBe(
          served ? 1 : 0,
        );
        // The console is an authorized app of the user, through the system client.
        const apps = await t.get('/v4/profile/apps');
        expect(apps.body.data.map((a: { label: string }) => a.label)).toContain('Stratus console');
      },
      FLOW_MS,
    );

    it(
      'instances: a create in the form is seen going through provisioning to running',
      async () => {
        // The operator stretches provisioning and booting (timing overrides) so that a busy machine
        // still shows each status for a few seconds.
        const timing = (body: unknown) => t.put('/_stratus/timing', body, { token: OPERATOR });
        expect((await timing({ overrides: { provision: 6000, boot: 4000 } })).status).toBe(200);
        await page.locator('#nav').getByRole('link', { name: 'Instances' }).click();
        await page.getByRole('link', { name: 'Create instance' }).click();
        // The create page is loaded on demand: until it is shown, the list's filters (Label,
        // Region) are what the labels find, and a label typed there is lost.
        await page.getByRole('heading', { name: 'Create an instance' }).waitFor();
        await page.getByLabel('Label').fill('web-1');
        await page.getByLabel('Region').selectOption('us-east');
        await page.getByLabel('Plan').selectOption('g6-standard-1');
        await page.getByLabel('Image', { exact: true }).selectOption('compute/debian12');
        await page.getByLabel('Root password').fill(STRONG);
        await page.getByRole('button', { name: 'Create instance' }).click();
        const shown = page.getByRole('heading', { name: 'web-1' });
        // A refused create says why (the form's alert) rather than timing out.
        await shown.or(page.getByRole('alert')).first().waitFor();
        expect(await page.getByRole('alert').allTextContents()).toEqual([]);
        await shown.waitFor();
        const status = page.getByTestId('instance-status');
        const seen: string[] = [];
        for (const end = Date.now() + 90_000; Date.now() < end; ) {
          const s = (await status.textContent())?.trim() ?? '';
          if (seen[seen.length - 1] !== s) seen.push(s);
          if (s === 'running') break;
          await page.waitForTimeout(100);
        }
        expect(seen[0]).toBe('provisioning');
        expect(seen[seen.length - 1]).toBe('running');
        expect(seen).toContain('booting');
        expect((await timing({ profile: 'fast', overrides: {} })).status).toBe(200);
        await accessible(page, 'an instance');
        await shot(page, 'instance');
        await page.locator('#nav').getByRole('link', { name: 'Instances' }).click();
        await page.getByRole('link', { name: 'web-1' }).waitFor();
        await accessible(page, 'the instances list');
        await shot(page, 'instances');
      },
      FLOW_MS,
    );

    it(
      'volumes: a volume is attached to the instance from its page',
      async () => {
        const vol = await t.post('/v4/volumes', { label: 'data-1', region: 'us-east', size: 20 });
        expect(vol.status).toBe(200);
        await page.goto(`${base}/console/volumes/${vol.body.id}`);
        await page.getByRole('heading', { name: 'data-1' }).waitFor();
        // Attachable once it is active: the page follows the event feed from `creating`.
        await page.getByTestId('volume-status').getByText('active').waitFor();
        await page.getByLabel('Attach to instance').selectOption({ label: 'web-1 (us-east)' });
        await page.getByRole('button', { name: 'Attach' }).click();
        const done = page.getByRole('button', { name: /Detach from web-1/ });
        await done.or(page.getByRole('alert')).first().waitFor();
        expect(await page.getByRole('alert').allTextContents()).toEqual([]);
        await done.waitFor();
        const after = await t.get(`/v4/volumes/${vol.body.id}`);
        expect(after.body.compute_label).toBe('web-1');
      },
      FLOW_MS,
    );

    it(
      'firewalls: a rule is edited in the rule editor and saved; a rule set named stays',
      async () => {
        const rs = await t.post('/v4/networking/firewalls/rulesets', {
          label: 'web-in',
          type: 'inbound',
          rules: [
            { action: 'ACCEPT', protocol: 'TCP', ports: '80', addresses: { ipv4: ['0.0.0.0/0'] } },
          ],
        });
        expect(rs.status).toBe(200);
        const fw = await t.post('/v4/networking/firewalls', {
          label: 'edge',
          rules: {
            inbound_policy: 'DROP',
            outbound_policy: 'ACCEPT',
            inbound: [
              {
                action: 'ACCEPT',
                protocol: 'TCP',
                ports: '22',
                label: 'ssh',
                addresses: { ipv4: ['0.0.0.0/0'] },
              },
              { ruleset: rs.body.id },
            ],
            outbound: [],
          },
        });
        expect(fw.status).toBe(200);
        await page.goto(`${base}/console/firewalls/${fw.body.id}`);
        await page.getByRole('heading', { name: 'Inbound rules' }).waitFor();
        await page.getByLabel('inbound rule 1 ports').fill('22, 443');
        await page.getByLabel('inbound rule 1 label').fill('ssh-and-tls');
        await page.getByRole('button', { name: 'Save rules' }).click();
        await page.getByText('Rules saved.').waitFor();
        const rules = await t.get(`/v4/networking/firewalls/${fw.body.id}/rules`);
        expect(rules.body.inbound[0]).toMatchObject({ ports: '22, 443', label: 'ssh-and-tls' });
        await page.getByText(`Rule set ${rs.body.id}`).waitFor();
        expect(rules.body.inbound[1]).toEqual({ ruleset: rs.body.id });
        await accessible(page, 'a firewall');
        await shot(page, 'firewall');
      },
      FLOW_MS,
    );

    it(
      'object storage: an object uploaded through a pre-signed URL downloads back byte for byte',
      async () => {
        const cluster = (await t.get('/v4/object-storage/clusters')).body.data[0].id as string;
        const b = await t.post('/v4/object-storage/buckets', { cluster, label: 'console-bucket' });
        expect(b.status).toBe(200);
        await page.goto(`${base}/console/object-storage/${cluster}/console-bucket`);
        await page.getByRole('heading', { name: 'console-bucket' }).waitFor();
        const bytes = randomBytes(300_000);
        await page
          .getByLabel('File')
          .setInputFiles({ name: 'blob.bin', mimeType: 'application/octet-stream', buffer: bytes });
        await page.getByRole('button', { name: 'Upload' }).click();
        await page.getByText('Uploaded blob.bin (300000 bytes).').waitFor();
        await page.getByRole('cell', { name: 'blob.bin' }).waitFor();
        const download = page.waitForEvent('download');
        await page.getByRole('button', { name: 'Download' }).click();
        const file = await (await download).path();
        expect(Buffer.compare(readFileSync(file), bytes)).toBe(0);
        await accessible(page, 'the object browser');
        await shot(page, 'object-storage');
      },
      FLOW_MS,
    );

    it(
      'domains: a zone and a record are added from the console',
      async () => {
        await page.locator('#nav').getByRole('link', { name: 'Domains' }).click();
        await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
        const add = page.locator('details', { hasText: 'Add a domain' });
        await add.getByText('Add a domain').click();
        await add.getByLabel(/^Domain/).fill('console-example.com');
        await add.getByLabel('SOA email').fill('admin@console-example.com');
        await add.getByRole('button', { name: 'Add domain' }).click();
        await page.getByRole('link', { name: 'console-example.com' }).click();
        await page.getByRole('heading', { name: 'Records' }).waitFor();
        const record = page.locator('details', { hasText: 'Add a record' });
        await record.getByText('Add a record').click();
        await record.getByLabel(/^Type/).selectOption('A');
        await record.getByLabel('Name', { exact: true }).fill('www');
        await record.getByLabel('Target').fill('192.0.2.10');
        await record.getByRole('button', { name: 'Add record' }).click();
        await page.getByRole('cell', { name: '192.0.2.10' }).waitFor();
        const domains = await t.get('/v4/domains', { filter: { domain: 'console-example.com' } });
        const records = await t.get(`/v4/domains/${domains.body.data[0].id}/records`);
        expect(records.body.data).toContainEqual(
          expect.objectContaining({ type: 'A', name: 'www', target: '192.0.2.10' }),
        );
        await accessible(page, 'a domain');
        await shot(page, 'domain');
      },
      FLOW_MS,
    );

    it(
      'billing: after the operator advances the clock past the 1st, the invoice is read with its items',
      async () => {
        // 35 days on, the signed-in page's access token (2 hours) has expired: its next poll of
        // the events is refused and it refreshes its session. A navigation while that refresh is
        // under way would lose the rotated token, and the old one is then refused as reused
        // (the family is revoked): wait for the refresh before leaving the page.
        const refreshed = page.waitForResponse(
          (r) => r.url().endsWith('/oauth/token') && r.request().method() === 'POST',
          { timeout: 60_000 },
        );
        const op = await operatorPage();
        await op.getByLabel('Advance by (days)').fill('35');
        await op.getByRole('button', { name: 'Advance by days' }).click();
        await op.getByText('Done.').first().waitFor({ timeout: 60_000 });
        await op.close();
        expect((await refreshed).status()).toBe(200);
        // The job runner writes the month's invoice on its own time: wait for it as a user would.
        for (let i = 0; i < 100 && (await t.get('/v4/account/invoices')).body.results === 0; i++)
          await new Promise((r) => setTimeout(r, 200));
        await page.goto(`${base}/console/billing`);
        const invoice = page.getByRole('link', { name: /^Invoice/ }).first();
        await invoice.waitFor();
        await accessible(page, 'billing');
        await shot(page, 'billing');
        await invoice.click();
        await page.getByRole('heading', { name: 'Items' }).waitFor();
        await page.getByRole('cell', { name: /web-1/ }).first().waitFor();
      },
      FLOW_MS,
    );

    it(
      'instance statistics: CPU, network and disk I/O are drawn as charts',
      async () => {
        const id = (await t.get('/v4/compute/instances', { filter: { label: 'web-1' } })).body
          .data[0].id;
        await page.goto(`${base}/console/instances/${id}`);
        await page.getByRole('tab', { name: 'Analytics' }).click();
        await page.getByText('Statistics (last 24 hours)').waitFor();
        for (const title of ['CPU', 'Network (IPv4)', 'Disk I/O'])
          await page
            .getByRole('img', { name: new RegExp(`^${title.replace(/[()]/g, '\\$&')}: chart`) })
            .locator('canvas')
            .waitFor();
        // A day of samples after the clock moved: the charts have figures, not empty axes.
        expect(await page.locator('figcaption').first().textContent()).toMatch(/latest: CPU \d/);
        await accessible(page, 'instance statistics');
        await shot(page, 'instance-analytics');
      },
      FLOW_MS,
    );

    it(
      'operator: resets one account from the panel',
      async () => {
        const other = await bootstrapAccount(t.ctx.db, t.clock, {
          email: 'other@example.com',
          username: 'other',
        });
        const vol = await t.post(
          '/v4/volumes',
          { label: 'theirs', region: 'us-east', size: 20 },
          { token: other.token },
        );
        expect(vol.status).toBe(200);
        const op = await operatorPage();
        await op.getByRole('button', { name: 'Reset other@example.com' }).click();
        await op.getByText('Account other@example.com is back to its first state.').waitFor();
        await accessible(op, 'the operator panel');
        await shot(op, 'operator');
        await op.close();
        expect((await t.get('/v4/volumes', { token: other.token })).body.results).toBe(0);
        expect((await t.get('/v4/volumes')).body.results).toBeGreaterThan(0);
      },
      FLOW_MS,
    );

    it(
      'restricted user: sees only what its grants allow',
      async () => {
        const hidden = await t.post('/v4/compute/instances', {
          region: 'us-east',
          type: 'g6-standard-1',
          label: 'hidden-1',
        });
        const shown = (await t.get('/v4/compute/instances', { filter: { label: 'web-1' } })).body
          .data[0];
        const user = await createTestUser(t, {
          username: 'limited',
          grants: [{ type: 'compute', id: shown.id, permissions: 'read_only' }],
        });
        const rctx = await newContext(375, 800);
        const p = await rctx.newPage();
        p.setDefaultTimeout(60_000);
        await p.goto(`${base}/console/sign-in`);
        await p.getByLabel('Personal access token').fill(user.token);
        await p.getByRole('button', { name: 'Use this token' }).click();
        await p.getByRole('heading', { name: 'Overview' }).waitFor();
        await p.getByRole('button', { name: 'Menu' }).click();
        const nav = (await p.locator('#nav').textContent()) ?? '';
        expect(nav).toContain('Instances');
        for (const hide of ['Volumes', 'Firewalls', 'Billing', 'Account & users', 'Object storage'])
          expect(nav).not.toContain(hide);
        await p.locator('#nav').getByRole('link', { name: 'Instances' }).click();
        await p.getByRole('link', { name: 'web-1' }).waitFor();
        expect(await p.getByRole('link', { name: 'hidden-1' }).count()).toBe(0);
        expect(await p.getByRole('link', { name: 'Create instance' }).count()).toBe(0);
        await p.getByRole('link', { name: 'web-1' }).click();
        await p.getByRole('heading', { name: 'web-1' }).waitFor();
        expect(await p.getByRole('button', { name: 'Delete' }).count()).toBe(0);
        // Usable at 375 px: nothing wider than the screen.
        expect(
          await p.evaluate(
            () => (globalThis as any).document.documentElement.scrollWidth as number,
          ),
        ).toBeLessThanOrEqual(375);
        await accessible(p, 'an instance at 375 px');
        await shot(p, 'restricted-375');
        expect(hidden.status).toBe(200);
        await rctx.close();
      },
      FLOW_MS,
    );
  },
);
