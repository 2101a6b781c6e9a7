import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumInstalled, launchChromium } from '../../helpers/chromium.js';
import { createTestUser } from '../../helpers/auth.js';
import { buildTestApp, type TestApp } from '../../helpers/build-test-app.js';
import { ensureConsoleBuild } from '../../helpers/console-build.js';
import { accessible, shot, signedInPage } from '../../helpers/console-browser.js';
import { instance } from '../networking/fixtures.js';

/**
 * The console's pages of the referred areas in a real browser (Chromium through playwright-core),
 * against one server of the test on its manual clock (the test runs the due jobs itself): support
 * tickets (open one about a volume, reply, support's answer in the thread, an attachment, close;
 * a restricted user sees only its own tickets), Longview (a client created, renamed, its keys, the
 * plan changed) and Managed (enabled, a contact, a credential whose password is never shown back,
 * a failing service seen as a problem with its issue and ticket). axe-core checks each new page.
 * The prerequisite (Chromium installed on CI) is asserted by console.browser.test.ts.
 */
const installed = chromiumInstalled();
const OPERATOR = 'operator-token-for-the-referred-console-test';
const FLOW_MS = 120_000;

/** A local port nothing listens on (a TCP check of it is refused). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

describe.skipIf(!installed)('web console: support, Longview, Managed (Chromium)', () => {
  let browser: Browser;
  let t: TestApp;
  let base: string;
  let ctx: BrowserContext;
  let page: Page;

  /** A tab of the console signed in with a token (pasted, as a personal access token). */
  const signedIn = (token: string, width = 1280) => signedInPage(browser, base, token, width);

  const nav = (p: Page, name: string) => p.locator('#nav').getByRole('link', { name });

  beforeAll(async () => {
    ensureConsoleBuild();
    browser = await launchChromium();
    t = await buildTestApp({ env: { STRATUS_OPERATOR_TOKEN: OPERATOR } });
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    page = await signedIn(t.admin.token);
    ctx = page.context();
  }, FLOW_MS);
  afterAll(async () => {
    await ctx?.close();
    await browser?.close();
    await t?.close();
  });

  it(
    "support tickets: open one about a volume, reply, read support's answer, attach a file, close",
    async () => {
      const vol = await t.post('/v4/volumes', { label: 'data-1', region: 'us-east', size: 20 });
      expect(vol.status).toBe(200);
      await nav(page, 'Support tickets').click();
      await page.getByRole('heading', { name: 'Support tickets' }).waitFor();
      await page.getByText('Open a ticket').click();
      await page.getByLabel('About').selectOption({ label: 'A volume' });
      await page.getByLabel('Which volume').selectOption({ label: 'data-1' });
      await page.getByLabel('Summary').fill('Volume is slow');
      await page.getByLabel('Description').fill('Reads take seconds.\nSince this morning.');
      await page.getByRole('button', { name: 'Open ticket' }).click();
      await page.getByRole('heading', { name: /Volume is slow/ }).waitFor();
      const id = Number(new URL(page.url()).pathname.split('/').pop());
      const ticket = (await t.get(`/v4/support/tickets/${id}`)).body;
      expect(ticket).toMatchObject({
        summary: 'Volume is slow',
        description: 'Reads take seconds.\nSince this morning.',
        entity: { id: vol.body.id, type: 'volume', label: 'data-1' },
        status: 'new',
      });
      expect(await page.getByRole('link', { name: 'data-1' }).getAttribute('href')).toBe(
        `/console/volumes/${vol.body.id}`,
      );
      await accessible(page, 'a ticket');

      // A reply in the form, then support's answer (the emulator control) in the thread.
      await page.getByLabel('Your reply').fill('It is the volume data-1.');
      await page.getByRole('button', { name: 'Reply', exact: true }).click();
      const thread = page.getByRole('list', { name: 'Conversation' });
      await thread.getByText('It is the volume data-1.').waitFor();
      const answer = await t.post(
        `/_stratus/support/tickets/${id}/replies`,
        { description: 'We are looking into it.' },
        { token: OPERATOR },
      );
      expect(answer.status).toBe(200);
      await page.reload();
      await thread.getByText('We are looking into it.').waitFor();
      await shot(page, 'support-ticket');
      expect(await thread.locator('li').count()).toBe(3);
      expect(await thread.locator('li.support').textContent()).toContain('(support)');

      // An attachment, multipart, as the API takes it.
      await page.getByText('Attach a file').click();
      await page.getByLabel('File').setInputFiles({
        name: 'iostat.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from('sda 12.0 0.1\n'),
      });
      await page.getByRole('button', { name: 'Attach' }).click();
      await page.getByText('iostat.txt').waitFor();
      expect((await t.get(`/v4/support/tickets/${id}`)).body.attachments).toEqual(['iostat.txt']);

      await page.getByRole('button', { name: 'Close ticket' }).click();
      await page.getByText('This ticket is closed').waitFor();
      expect(await page.getByRole('button', { name: 'Reply', exact: true }).count()).toBe(0);
      expect((await t.get(`/v4/support/tickets/${id}`)).body.status).toBe('closed');

      // The list: not among the open tickets, among the closed ones.
      await nav(page, 'Support tickets').click();
      const open = page.getByRole('region', { name: 'Open tickets' });
      await open.getByText('None yet.').waitFor();
      await page.getByRole('tab', { name: 'Closed' }).click();
      await page.getByRole('link', { name: 'Volume is slow' }).waitFor();
      await accessible(page, 'the ticket list');
    },
    FLOW_MS,
  );

  it(
    'support tickets: a restricted user sees its own tickets only, and no Managed',
    async () => {
      const user = await createTestUser(t, { username: 'helpdesk-user' });
      const mine = await t.post(
        '/v4/support/tickets',
        { summary: 'My own question', description: 'How do I resize?' },
        { token: user.token },
      );
      expect(mine.status).toBe(200);
      const p = await signedIn(user.token, 375);
      await p.getByRole('button', { name: 'Menu' }).click();
      const text = (await p.locator('#nav').textContent()) ?? '';
      expect(text).toContain('Support tickets');
      expect(text).not.toContain('Managed');
      expect(text).not.toContain('Longview');
      await nav(p, 'Support tickets').click();
      await p.getByRole('link', { name: 'My own question' }).waitFor();
      await p.getByRole('tab', { name: 'Closed' }).click();
      await p.getByRole('region', { name: 'Closed tickets' }).getByText('None yet.').waitFor();
      expect(await p.getByRole('link', { name: 'Volume is slow' }).count()).toBe(0);
      await p.context().close();
    },
    FLOW_MS,
  );

  it(
    'support tickets: one about a VLAN names it by its label and region',
    async () => {
      // Another unrestricted user: the API opens at most 2 tickets a minute per token.
      const user = await createTestUser(t, { username: 'netops', restricted: false });
      await instance(t, {
        label: 'vlan-host',
        extra: {
          interfaces: [
            { purpose: 'public' },
            { purpose: 'vlan', label: 'backend', ipam_address: '10.0.0.1/24' },
          ],
        },
      });
      const p = await signedIn(user.token);
      await nav(p, 'Support tickets').click();
      await p.getByText('Open a ticket').click();
      await p.getByLabel('About').selectOption({ label: 'A VLAN' });
      await p.getByLabel('Which vlan').selectOption({ label: 'backend (us-east)' });
      await p.getByLabel('Summary').fill('VLAN drops packets');
      await p.getByLabel('Description').fill('Between the two hosts.');
      await p.getByRole('button', { name: 'Open ticket' }).click();
      await p.getByRole('heading', { name: /VLAN drops packets/ }).waitFor();
      const id = Number(new URL(p.url()).pathname.split('/').pop());
      expect((await t.get(`/v4/support/tickets/${id}`)).body.entity).toEqual({
        id: null,
        label: 'backend',
        type: 'vlan',
        url: '/v4/networking/vlans',
      });
      await p.context().close();
    },
    FLOW_MS,
  );

  it(
    'Longview: a client created in the form shows its keys; renamed; the plan changed',
    async () => {
      await nav(page, 'Longview').click();
      await page.getByRole('heading', { name: 'Longview', exact: true }).waitFor();
      await expect
        .poll(() => page.getByTestId('longview-plan').textContent())
        .toContain('Longview Free');
      const add = page.locator('details', { hasText: 'Add a client' });
      await add.getByText('Add a client').click();
      await add.getByLabel('Label').fill('web-agent');
      await page.getByRole('button', { name: 'Add client' }).click();
      await page.getByRole('heading', { name: 'web-agent' }).waitFor();
      const c = (await t.get('/v4/longview/clients', { filter: { label: 'web-agent' } })).body
        .data[0];
      const details = (await page.locator('dl.details').textContent()) ?? '';
      expect(details).toContain(c.api_key);
      expect(details).toContain(c.install_code);
      expect(c.install_code).toMatch(/^[0-9A-F]{8}-/);
      await accessible(page, 'a Longview client');

      await page.locator('summary', { hasText: 'Rename' }).click();
      await page.getByLabel('Label').fill('web-agent-2');
      await page.getByRole('button', { name: 'Rename' }).click();
      await page.getByRole('heading', { name: 'web-agent-2' }).waitFor();

      await nav(page, 'Longview').click();
      await page.getByRole('link', { name: 'web-agent-2' }).waitFor();
      await page.getByRole('combobox', { name: 'Plan' }).selectOption('longview-3');
      await page.getByRole('button', { name: 'Change plan' }).click();
      await expect
        .poll(() => page.getByTestId('longview-plan').textContent())
        .toContain('Longview Pro 3 pack');
      expect((await t.get('/v4/longview/plan')).body.id).toBe('longview-3');
      await accessible(page, 'Longview');

      await page.getByRole('link', { name: 'web-agent-2' }).click();
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('heading', { name: 'Longview', exact: true }).waitFor();
      expect((await t.get('/v4/longview/clients')).body.results).toBe(0);
    },
    FLOW_MS,
  );

  it(
    'Longview: a restricted user with read_only on a client sees it with its keys redacted, no write action and no plan',
    async () => {
      const seen = await t.post('/v4/longview/clients', { label: 'shared-agent' });
      const other = await t.post('/v4/longview/clients', { label: 'other-agent' });
      expect([seen.status, other.status]).toEqual([200, 200]);
      const user = await createTestUser(t, {
        username: 'longview-reader',
        grants: [{ type: 'longview', id: seen.body.id, permissions: 'read_only' }],
      });
      const p = await signedIn(user.token);
      await nav(p, 'Longview').click();
      await p.getByRole('link', { name: 'shared-agent' }).waitFor();
      expect(await p.getByRole('link', { name: 'other-agent' }).count()).toBe(0);
      expect(await p.getByText('Add a client').count()).toBe(0);
      expect(await p.getByRole('heading', { name: 'Plan' }).count()).toBe(0);
      await p.getByRole('link', { name: 'shared-agent' }).click();
      await p.getByRole('heading', { name: 'shared-agent' }).waitFor();
      expect(await p.locator('dl.details').textContent()).toContain('[REDACTED]');
      expect(await p.locator('dl.details').textContent()).not.toContain(seen.body.api_key);
      expect(await p.getByRole('button', { name: 'Delete' }).count()).toBe(0);
      expect(await p.locator('summary', { hasText: 'Rename' }).count()).toBe(0);
      await p.context().close();
      for (const c of [seen, other])
        expect((await t.del(`/v4/longview/clients/${c.body.id}`)).status).toBe(200);
    },
    FLOW_MS,
  );

  it(
    'Managed: enabled from the console; a contact, a credential never shown back, a failing service opens an issue',
    async () => {
      // An instance that has run: Managed covers it (SSH access) and charts it (statistics).
      const host = await instance(t, { label: 'managed-host' });
      await nav(page, 'Managed').click();
      await page.getByRole('button', { name: 'Enable Managed' }).click();
      await page.getByRole('tab', { name: 'Services' }).waitFor();
      expect((await t.get('/v4/account/settings')).body.managed).toBe(true);

      await page.getByRole('tab', { name: 'Contacts' }).click();
      await page.getByText('Add a contact').click();
      await page.getByLabel('Name').fill('On call');
      await page.getByLabel('Email').fill('oncall@example.com');
      await page.getByLabel('Phone', { exact: true }).fill('+1 555 0100');
      await page.getByRole('button', { name: 'Add contact' }).click();
      await page.getByRole('cell', { name: 'oncall@example.com' }).waitFor();
      // Edited in place: a group set, the second phone left empty (null).
      await page.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('region', { name: 'Edit On call' });
      await edit.getByLabel('Group').fill('night-shift');
      await edit.getByRole('button', { name: 'Save contact' }).click();
      await page.getByRole('cell', { name: 'night-shift' }).waitFor();
      const contact = (await t.get('/v4/managed/contacts')).body.data[0];
      expect(contact).toMatchObject({
        name: 'On call',
        group: 'night-shift',
        phone: { primary: '+1 555 0100', secondary: null },
      });

      const secret = 'pw-never-shown-7731';
      await page.getByRole('tab', { name: 'Credentials' }).click();
      await page.getByText('Add a credential').click();
      await page.getByLabel('Label').fill('db-admin');
      await page.getByLabel('Username').first().fill('postgres');
      await page.getByLabel('Password').first().fill(secret);
      await page.getByRole('button', { name: 'Add credential' }).click();
      await page.getByRole('cell', { name: 'db-admin' }).waitFor();
      await page.getByText(/^ssh-ed25519 /).waitFor();
      await accessible(page, 'Managed credentials');
      // The form starts empty again: nothing on the page carries the secret.
      expect(await page.getByLabel('Password').first().inputValue()).toBe('');
      expect(await page.content()).not.toContain(secret);

      const port = await closedPort();
      await page.getByRole('tab', { name: 'Services' }).click();
      await page.getByText('Add a service').click();
      await page.getByLabel('Label').fill('database');
      await page.getByLabel('Type').selectOption('tcp');
      await page.getByRole('textbox', { name: 'Address', exact: true }).fill(`127.0.0.1:${port}`);
      await page.getByLabel('Timeout (seconds)').fill('5');
      await page.getByLabel('Credential').selectOption({ label: 'db-admin' });
      await page.getByRole('button', { name: 'Add service' }).click();
      const row = page.getByRole('row', { name: /database/ });
      await row.getByText('pending').waitFor();
      expect(await row.textContent()).toContain('db-admin');
      // The check (a job) runs: the port refuses, the service is a problem with an issue.
      await t.runDue();
      await page.reload();
      await row.getByText('problem').waitFor();
      await accessible(page, 'Managed services');
      await shot(page, 'managed');
      // Edited: a change to what is checked (the timeout) makes it pending again.
      await row.getByRole('button', { name: 'Edit' }).click();
      const editService = page.getByRole('region', { name: 'Edit database' });
      await editService.getByLabel('Notes').fill('Primary database.');
      await editService.getByLabel('Timeout (seconds)').fill('7');
      await editService.getByRole('button', { name: 'Save service' }).click();
      await row.getByText('pending').waitFor();
      expect((await t.get('/v4/managed/services')).body.data[0]).toMatchObject({
        label: 'database',
        notes: 'Primary database.',
        timeout: 7,
        status: 'pending',
      });
      await page.getByRole('tab', { name: 'Issues' }).click();
      const issue = (await t.get('/v4/managed/issues')).body.data[0];
      await page.getByRole('link', { name: issue.entity.label }).click();
      await page
        .getByRole('heading', { name: `#${issue.entity.id}: ${issue.entity.label}` })
        .waitFor();
      expect(await page.getByRole('button', { name: 'Close ticket' }).count()).toBe(0);

      await nav(page, 'Managed').click();
      await page.getByRole('tab', { name: 'SSH access' }).click();
      await page.getByText("Change an instance's SSH access").click();
      await page
        .getByRole('combobox', { name: 'Instance' })
        .selectOption({ label: 'managed-host' });
      await page.getByLabel('User (empty: root)').fill('admin');
      await page.getByLabel('Port (empty: 22)').fill('2222');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('cell', { name: '2222' }).waitFor();
      expect((await t.get(`/v4/managed/compute-settings/${host.id}`)).body.ssh).toEqual({
        access: true,
        user: 'admin',
        ip: 'any',
        port: 2222,
      });

      await t.clock.advance(15 * 60_000);
      await page.getByRole('tab', { name: 'Statistics' }).click();
      await page.getByRole('heading', { name: /Statistics/ }).waitFor();
      const charts = page.locator('figure.chart-figure');
      await charts.first().waitFor();
      expect(await charts.locator('figcaption strong').allTextContents()).toEqual([
        'CPU',
        'Public network',
        'Disk I/O',
      ]);
      await page.locator('figure.chart-figure canvas').first().waitFor();
      await accessible(page, 'Managed statistics');

      // With Managed on, a ticket may be about Managed itself (a Managed issue, no entity).
      await nav(page, 'Support tickets').click();
      await page.getByText('Open a ticket').click();
      await page.getByLabel('About').selectOption({ label: 'Managed' });
      await page.getByLabel('Summary').fill('Monitor our API too');
      await page.getByLabel('Description').fill('Please add a check.');
      await page.getByRole('button', { name: 'Open ticket' }).click();
      await page.getByRole('heading', { name: /Monitor our API too/ }).waitFor();
      const tid = Number(new URL(page.url()).pathname.split('/').pop());
      expect((await t.get(`/v4/support/tickets/${tid}`)).body.entity).toBeNull();
      const stored = await t.ctx.db.db
        .selectFrom('support_tickets')
        .select('managed_issue')
        .where('id', '=', tid)
        .executeTakeFirstOrThrow();
      expect(Number(stored.managed_issue)).toBe(1);
    },
    FLOW_MS,
  );
});
