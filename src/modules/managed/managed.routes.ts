import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { StratusApp } from '../../http/stratus-app.js';
import type { RouteContext } from '../../platform/area.js';
import type { ManagedAccountService } from './managed.account.js';
import type { ManagedContactsService } from './contacts.service.js';
import type { ManagedCredentialsService } from './credentials.service.js';
import type { ManagedServicesService } from './services.service.js';
import type {
  ManagedComputeSettingsService,
  ManagedIssuesService,
  ManagedStatsService,
} from './views.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  ComputeParams,
  ComputeSettingsPage,
  ComputeSettingsSchema,
  ContactPage,
  ContactParams,
  ContactSchema,
  CreateContactBody,
  CreateCredentialBody,
  CreateServiceBody,
  CredentialPage,
  CredentialParams,
  CredentialSchema,
  CredentialSecretBody,
  EuuidBody,
  IssuePage,
  IssueParams,
  IssueSchema,
  RevealedCredential,
  ServicePage,
  ServiceParams,
  ServiceSchema,
  SshKeySchema,
  StatsSchema,
  UpdateComputeSettingsBody,
  UpdateContactBody,
  UpdateCredentialBody,
  UpdateServiceBody,
} from './managed.schemas.js';

type Ctx = RouteContext<{
  account: ManagedAccountService;
  contacts: ManagedContactsService;
  credentials: ManagedCredentialsService;
  services: ManagedServicesService;
  issues: ManagedIssuesService;
  computeSettings: ManagedComputeSettingsService;
  stats: ManagedStatsService;
}>;

const tags = ['Managed'];
const read = { scopes: ['account:read_only'] };
const write = { scopes: ['account:read_write'] };

/** `/managed`: contacts, credentials and the SSH key, services, issues, per-instance settings, stats. */
export function managedRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const s = ctx.services;
  return async (app) => {
    app.post(
      '/account/settings/managed-enable',
      {
        schema: { tags: ['Account'], summary: 'Compute Managed Enable', response: { 200: Empty } },
        config: { operationId: 'enableAccountManaged', ...write },
      },
      async (req) => {
        await s.account.enable(principal(req));
        return {};
      },
    );

    // ---- contacts ----
    app.get(
      '/managed/contacts',
      {
        schema: {
          tags,
          summary: 'Managed Contacts List',
          querystring: PageQuery,
          response: { 200: ContactPage },
        },
        config: { operationId: 'getManagedContacts', ...read, paged: true },
      },
      (req) => s.contacts.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/managed/contacts',
      {
        schema: {
          tags,
          summary: 'Managed Contact Create',
          body: CreateContactBody,
          response: { 200: ContactSchema },
        },
        config: { operationId: 'createManagedContact', ...write },
      },
      (req) => s.contacts.create(principal(req), req.body),
    );
    app.get(
      '/managed/contacts/:contactId',
      {
        schema: {
          tags,
          summary: 'Managed Contact View',
          params: ContactParams,
          response: { 200: ContactSchema },
        },
        // The reference asks for account:read_write here.
        config: { operationId: 'getManagedContact', ...write },
      },
      (req) => s.contacts.get(principal(req), req.params.contactId),
    );
    app.put(
      '/managed/contacts/:contactId',
      {
        schema: {
          tags,
          summary: 'Managed Contact Update',
          params: ContactParams,
          body: UpdateContactBody,
          response: { 200: ContactSchema },
        },
        config: { operationId: 'updateManagedContact', ...write },
      },
      (req) => s.contacts.update(principal(req), req.params.contactId, req.body),
    );
    app.delete(
      '/managed/contacts/:contactId',
      {
        schema: {
          tags,
          summary: 'Managed Contact Delete',
          params: ContactParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteManagedContact', ...write },
      },
      async (req) => {
        await s.contacts.delete(principal(req), req.params.contactId);
        return {};
      },
    );

    // ---- credentials ----
    app.get(
      '/managed/credentials',
      {
        schema: {
          tags,
          summary: 'Managed Credentials List',
          querystring: PageQuery,
          response: { 200: CredentialPage },
        },
        config: { operationId: 'getManagedCredentials', ...read, paged: true },
      },
      (req) => s.credentials.list(principal(req), req.query),
    );
    app.post(
      '/managed/credentials',
      {
        schema: {
          tags,
          summary: 'Managed Credential Create',
          body: CreateCredentialBody,
          response: { 200: CredentialSchema },
        },
        config: { operationId: 'createManagedCredential', ...write },
      },
      (req) => s.credentials.create(principal(req), req.body),
    );
    app.get(
      '/managed/credentials/sshkey',
      {
        schema: { tags, summary: 'Managed SSH Key View', response: { 200: SshKeySchema } },
        config: { operationId: 'viewManagedSSHKey', ...read },
      },
      (req) => s.account.sshKey(principal(req)),
    );
    app.get(
      '/managed/credentials/:credentialId',
      {
        schema: {
          tags,
          summary: 'Managed Credential View',
          params: CredentialParams,
          response: { 200: CredentialSchema },
        },
        // The reference asks for account:read_write here.
        config: { operationId: 'getManagedCredential', ...write },
      },
      (req) => s.credentials.get(principal(req), req.params.credentialId),
    );
    app.put(
      '/managed/credentials/:credentialId',
      {
        schema: {
          tags,
          summary: 'Managed Credential Update',
          params: CredentialParams,
          body: UpdateCredentialBody,
          response: { 200: CredentialSchema },
        },
        config: { operationId: 'updateManagedCredential', ...write },
      },
      (req) => s.credentials.update(principal(req), req.params.credentialId, req.body.label),
    );
    app.post(
      '/managed/credentials/:credentialId/update',
      {
        schema: {
          tags,
          summary: 'Managed Credential Username and Password Update',
          params: CredentialParams,
          body: CredentialSecretBody,
          response: { 200: Empty },
        },
        config: { operationId: 'updateManagedCredentialUsernamePassword', ...write },
      },
      async (req) => {
        await s.credentials.updateSecret(principal(req), req.params.credentialId, req.body);
        return {};
      },
    );
    app.post(
      '/managed/credentials/:credentialId/revoke',
      {
        schema: {
          tags,
          summary: 'Managed Credential Delete',
          params: CredentialParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteManagedCredential', ...write },
      },
      async (req) => {
        await s.credentials.revoke(principal(req), req.params.credentialId);
        return {};
      },
    );

    // ---- issues ----
    app.get(
      '/managed/issues',
      {
        schema: {
          tags,
          summary: 'Managed Issues List',
          querystring: PageQuery,
          response: { 200: IssuePage },
        },
        config: { operationId: 'getManagedIssues', ...read, paged: true },
      },
      (req) => s.issues.list(principal(req), req.query),
    );
    app.get(
      '/managed/issues/:issueId',
      {
        schema: {
          tags,
          summary: 'Managed Issue View',
          params: IssueParams,
          response: { 200: IssueSchema },
        },
        config: { operationId: 'getManagedIssue', ...read },
      },
      (req) => s.issues.get(principal(req), req.params.issueId),
    );

    // ---- per-instance settings ----
    app.get(
      '/managed/compute-settings',
      {
        schema: {
          tags,
          summary: 'Managed Compute Settings List',
          querystring: PageQuery,
          response: { 200: ComputeSettingsPage },
        },
        config: { operationId: 'getManagedComputeSettings', ...read, paged: true },
      },
      (req) => s.computeSettings.list(principal(req), req.query),
    );
    app.get(
      '/managed/compute-settings/:computeId',
      {
        schema: {
          tags,
          summary: "Compute's Managed Settings View",
          params: ComputeParams,
          response: { 200: ComputeSettingsSchema },
        },
        config: { operationId: 'getManagedComputeSetting', ...read },
      },
      (req) => s.computeSettings.get(principal(req), req.params.computeId),
    );
    app.put(
      '/managed/compute-settings/:computeId',
      {
        schema: {
          tags,
          summary: "Compute's Managed Settings Update",
          params: ComputeParams,
          body: UpdateComputeSettingsBody,
          response: { 200: ComputeSettingsSchema },
        },
        config: { operationId: 'updateManagedComputeSetting', ...write },
      },
      (req) => s.computeSettings.update(principal(req), req.params.computeId, req.body),
    );

    // ---- services ----
    app.get(
      '/managed/services',
      {
        schema: {
          tags,
          summary: 'Managed Services List',
          querystring: PageQuery,
          response: { 200: ServicePage },
        },
        config: { operationId: 'getManagedServices', ...read, paged: true },
      },
      (req) => s.services.list(principal(req), req.query),
    );
    app.post(
      '/managed/services',
      {
        schema: {
          tags,
          summary: 'Managed Service Create',
          body: CreateServiceBody,
          response: { 200: ServiceSchema },
        },
        config: { operationId: 'createManagedService', ...write },
      },
      (req) => s.services.create(principal(req), req.body),
    );
    app.get(
      '/managed/services/:serviceId',
      {
        schema: {
          tags,
          summary: 'Managed Service View',
          params: ServiceParams,
          response: { 200: ServiceSchema },
        },
        config: { operationId: 'getManagedService', ...read },
      },
      (req) => s.services.get(principal(req), req.params.serviceId),
    );
    app.put(
      '/managed/services/:serviceId',
      {
        schema: {
          tags,
          summary: 'Managed Service Update',
          params: ServiceParams,
          body: UpdateServiceBody,
          response: { 200: ServiceSchema },
        },
        config: { operationId: 'updateManagedService', ...write },
      },
      (req) => s.services.update(principal(req), req.params.serviceId, req.body),
    );
    app.delete(
      '/managed/services/:serviceId',
      {
        schema: {
          tags,
          summary: 'Managed Service Delete',
          params: ServiceParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteManagedService', ...write },
      },
      async (req) => {
        await s.services.delete(principal(req), req.params.serviceId);
        return {};
      },
    );
    app.post(
      '/managed/services/:serviceId/disable',
      {
        schema: {
          tags,
          summary: 'Managed Service Disable',
          params: ServiceParams,
          response: { 200: ServiceSchema },
        },
        config: { operationId: 'disableManagedService', ...write },
      },
      (req) => s.services.disable(principal(req), req.params.serviceId),
    );
    app.post(
      '/managed/services/:serviceId/enable',
      {
        schema: {
          tags,
          summary: 'Managed Service Enable',
          params: ServiceParams,
          response: { 200: ServiceSchema },
        },
        config: { operationId: 'enableManagedService', ...write },
      },
      (req) => s.services.enable(principal(req), req.params.serviceId),
    );

    app.get(
      '/managed/stats',
      {
        schema: { tags, summary: 'Managed Stats List', response: { 200: StatsSchema } },
        config: { operationId: 'getManagedStats', ...read, rateLimit: 'stats' },
      },
      (req) => s.stats.stats(principal(req)),
    );
  };
}

/**
 * Support's side of Managed, for test suites (operator token, hidden from the API document):
 * `POST /_stratus/managed/disable` turns Managed off for an account (event `managed_disabled`),
 * `POST /_stratus/managed/credentials/{credentialId}/reveal` opens a credential as support
 * would (the secret in clear; `last_decrypted` set).
 */
export function managedControlRoutes(ctx: Ctx): FastifyPluginAsync {
  const s = ctx.services;
  return async (plain) => {
    const app = plain as unknown as StratusApp;
    const hide = { hide: true, tags: ['Emulator controls'] };
    app.post(
      '/_stratus/managed/disable',
      {
        schema: {
          ...hide,
          operationId: 'stratusDisableManaged',
          summary: 'Disable Managed for an account (as support does)',
          body: EuuidBody,
        },
      },
      (req) => s.account.disable(req.body.euuid),
    );
    app.post(
      '/_stratus/managed/credentials/:credentialId/reveal',
      {
        schema: {
          ...hide,
          operationId: 'stratusRevealManagedCredential',
          summary: 'A Managed credential in clear, as the support team reads it',
          params: CredentialParams,
          response: { 200: RevealedCredential },
        },
      },
      (req) => s.credentials.reveal(req.params.credentialId),
    );
  };
}
