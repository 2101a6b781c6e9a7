import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteContext } from '../../platform/area.js';
import type { FirewallRulesetsService } from './firewall-rulesets.service.js';
import type { FirewallsService } from './firewalls.service.js';
import { principal, xFilter } from '../../http/principal.js';
import { Empty, PageQuery } from '../../http/schemas/common.js';
import {
  AddDeviceBody,
  CreateFirewallBody,
  CreateRulesetBody,
  DeviceParams,
  EvaluateBody,
  EvaluateResult,
  FirewallDevicePage,
  FirewallDeviceSchema,
  FirewallPage,
  FirewallParams,
  FirewallRulesView,
  FirewallSchema,
  FirewallSettingsSchema,
  FirewallTemplatePage,
  FirewallTemplateSchema,
  RulesetPage,
  RulesetParams,
  RulesetSchema,
  RuleVersionPage,
  RuleVersionParams,
  TemplateParams,
  UpdateFirewallBody,
  UpdateFirewallSettingsBody,
  UpdateRulesetBody,
  UpdateRulesBody,
} from './firewalls.schemas.js';

type Ctx = RouteContext<{ firewalls: FirewallsService; rulesets: FirewallRulesetsService }>;

const tags = ['Networking'];
const read = { scopes: ['firewall:read_only'] };
const write = { scopes: ['firewall:read_write'] };

/** `/networking/firewalls`: firewalls, their rules and devices. */
export function firewallsRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.firewalls;
  const rulesets = ctx.services.rulesets;
  return async (app) => {
    app.get(
      '/networking/firewalls',
      {
        schema: {
          tags,
          summary: 'Firewalls List',
          querystring: PageQuery,
          response: { 200: FirewallPage },
        },
        config: { operationId: 'getFirewalls', ...read, paged: true },
      },
      (req) => svc.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/networking/firewalls',
      {
        schema: {
          tags,
          summary: 'Firewall Create',
          body: CreateFirewallBody,
          response: { 200: FirewallSchema },
        },
        config: { operationId: 'createFirewalls', ...write },
      },
      (req) => svc.create(principal(req), req.body),
    );
    app.get(
      '/networking/firewalls/settings',
      {
        schema: {
          tags,
          summary: 'Default Firewalls View',
          response: { 200: FirewallSettingsSchema },
        },
        config: { operationId: 'getFirewallSettings', ...read },
      },
      (req) => svc.settings(principal(req)),
    );
    app.put(
      '/networking/firewalls/settings',
      {
        schema: {
          tags,
          summary: 'Default Firewalls Update',
          body: UpdateFirewallSettingsBody,
          response: { 200: FirewallSettingsSchema },
        },
        config: { operationId: 'updateFirewallSettings', ...write },
      },
      (req) => svc.updateSettings(principal(req), req.body),
    );
    app.get(
      '/networking/firewalls/templates',
      {
        schema: {
          tags,
          summary: 'Firewall Templates List',
          querystring: PageQuery,
          response: { 200: FirewallTemplatePage },
        },
        config: { operationId: 'getFirewallTemplates', auth: 'token', paged: true },
      },
      (req) => svc.templates(req.query),
    );
    app.get(
      '/networking/firewalls/templates/:slug',
      {
        schema: {
          tags,
          summary: 'Firewall Template View',
          params: TemplateParams,
          response: { 200: FirewallTemplateSchema },
        },
        config: { operationId: 'getFirewallTemplate', auth: 'token' },
      },
      (req) => svc.template(req.params.slug),
    );
    app.get(
      '/networking/firewalls/rulesets',
      {
        schema: {
          tags,
          summary: 'Firewall Rule Sets List',
          querystring: PageQuery,
          response: { 200: RulesetPage },
        },
        config: { operationId: 'getFirewallRulesets', ...read, paged: true },
      },
      (req) => rulesets.list(principal(req), req.query, xFilter(req)),
    );
    app.post(
      '/networking/firewalls/rulesets',
      {
        schema: {
          tags,
          summary: 'Firewall Rule Set Create',
          body: CreateRulesetBody,
          response: { 200: RulesetSchema },
        },
        config: { operationId: 'createFirewallRuleset', ...write },
      },
      (req) => rulesets.create(principal(req), req.body),
    );
    app.get(
      '/networking/firewalls/rulesets/:rulesetId',
      {
        schema: {
          tags,
          summary: 'Firewall Rule Set View',
          params: RulesetParams,
          response: { 200: RulesetSchema },
        },
        config: { operationId: 'getFirewallRuleset', ...read },
      },
      (req) => rulesets.get(principal(req), req.params.rulesetId),
    );
    app.put(
      '/networking/firewalls/rulesets/:rulesetId',
      {
        schema: {
          tags,
          summary: 'Firewall Rule Set Update',
          params: RulesetParams,
          body: UpdateRulesetBody,
          response: { 200: RulesetSchema },
        },
        config: { operationId: 'updateFirewallRuleset', ...write },
      },
      (req) => rulesets.update(principal(req), req.params.rulesetId, req.body),
    );
    app.delete(
      '/networking/firewalls/rulesets/:rulesetId',
      {
        schema: {
          tags,
          summary: 'Firewall Rule Set Delete',
          params: RulesetParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteFirewallRuleset', ...write },
      },
      async (req) => {
        await rulesets.delete(principal(req), req.params.rulesetId);
        return {};
      },
    );
    app.get(
      '/networking/firewalls/:firewallId',
      {
        schema: {
          tags,
          summary: 'Firewall View',
          params: FirewallParams,
          response: { 200: FirewallSchema },
        },
        config: { operationId: 'getFirewall', ...read },
      },
      (req) => svc.get(principal(req), req.params.firewallId),
    );
    app.put(
      '/networking/firewalls/:firewallId',
      {
        schema: {
          tags,
          summary: 'Firewall Update',
          params: FirewallParams,
          body: UpdateFirewallBody,
          response: { 200: FirewallSchema },
        },
        config: { operationId: 'updateFirewall', ...write },
      },
      (req) => svc.update(principal(req), req.params.firewallId, req.body),
    );
    app.delete(
      '/networking/firewalls/:firewallId',
      {
        schema: {
          tags,
          summary: 'Firewall Delete',
          params: FirewallParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteFirewall', ...write },
      },
      async (req) => {
        await svc.delete(principal(req), req.params.firewallId);
        return {};
      },
    );
    app.get(
      '/networking/firewalls/:firewallId/rules',
      {
        schema: {
          tags,
          summary: 'Firewall Rules List',
          params: FirewallParams,
          response: { 200: FirewallRulesView },
        },
        config: { operationId: 'getFirewallRules', ...read },
      },
      (req) => svc.rules(principal(req), req.params.firewallId),
    );
    app.put(
      '/networking/firewalls/:firewallId/rules',
      {
        schema: {
          tags,
          summary: 'Firewall Rules Update',
          params: FirewallParams,
          body: UpdateRulesBody,
          response: { 200: FirewallRulesView },
        },
        config: { operationId: 'updateFirewallRules', ...write },
      },
      (req) => svc.replaceRules(principal(req), req.params.firewallId, req.body),
    );
    app.get(
      '/networking/firewalls/:firewallId/rules/expansion',
      {
        schema: {
          tags,
          summary: 'Firewall Rules Expansion',
          params: FirewallParams,
          response: { 200: FirewallRulesView },
        },
        config: { operationId: 'getFirewallRulesExpansion', ...read },
      },
      (req) => svc.rulesExpansion(principal(req), req.params.firewallId),
    );
    app.get(
      '/networking/firewalls/:firewallId/history',
      {
        schema: {
          tags,
          summary: 'Firewall Rule Versions List',
          params: FirewallParams,
          querystring: PageQuery,
          response: { 200: RuleVersionPage },
        },
        config: { operationId: 'getFirewallRuleVersions', ...read, paged: true },
      },
      (req) => svc.history(principal(req), req.params.firewallId, req.query),
    );
    app.get(
      '/networking/firewalls/:firewallId/history/rules/:version',
      {
        schema: {
          tags,
          summary: 'Firewall Rule Version View',
          params: RuleVersionParams,
          response: { 200: FirewallRulesView },
        },
        config: { operationId: 'getFirewallRuleVersion', ...read },
      },
      (req) => svc.ruleVersion(principal(req), req.params.firewallId, req.params.version),
    );
    app.get(
      '/networking/firewalls/:firewallId/devices',
      {
        schema: {
          tags,
          summary: 'Firewall Devices List',
          params: FirewallParams,
          querystring: PageQuery,
          response: { 200: FirewallDevicePage },
        },
        config: { operationId: 'getFirewallDevices', ...read, paged: true },
      },
      (req) => svc.listDevices(principal(req), req.params.firewallId, req.query, xFilter(req)),
    );
    app.post(
      '/networking/firewalls/:firewallId/devices',
      {
        schema: {
          tags,
          summary: 'Firewall Device Create',
          params: FirewallParams,
          body: AddDeviceBody,
          response: { 200: FirewallDeviceSchema },
        },
        config: { operationId: 'createFirewallDevice', ...write },
      },
      (req) => svc.addDevice(principal(req), req.params.firewallId, req.body),
    );
    app.get(
      '/networking/firewalls/:firewallId/devices/:deviceId',
      {
        schema: {
          tags,
          summary: 'Firewall Device View',
          params: DeviceParams,
          response: { 200: FirewallDeviceSchema },
        },
        config: { operationId: 'getFirewallDevice', ...read },
      },
      (req) => svc.getDevice(principal(req), req.params.firewallId, req.params.deviceId),
    );
    app.delete(
      '/networking/firewalls/:firewallId/devices/:deviceId',
      {
        schema: {
          tags,
          summary: 'Firewall Device Delete',
          params: DeviceParams,
          response: { 200: Empty },
        },
        config: { operationId: 'deleteFirewallDevice', ...write },
      },
      async (req) => {
        await svc.removeDevice(principal(req), req.params.firewallId, req.params.deviceId);
        return {};
      },
    );
  };
}

/**
 * `POST /_stratus/firewalls/{id}/evaluate`: what the firewall's rules do with one packet, for
 * users testing their rules (Stratus only; needs a token with firewall:read_only).
 */
export function firewallInternalRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const svc = ctx.services.firewalls;
  return async (app) => {
    app.post(
      '/_stratus/firewalls/:firewallId/evaluate',
      {
        schema: {
          hide: true,
          // Shown in the controls' own document (/_stratus/openapi.json).
          tags: ['Stratus extensions'],
          summary: 'What a firewall\u2019s rules do with one packet',
          params: FirewallParams,
          body: EvaluateBody,
          response: { 200: EvaluateResult },
        },
        // An API token with firewall:read_only, not the operator token.
        config: { operationId: 'stratusEvaluateFirewall', ...read, operatorToken: false },
      },
      (req) => svc.evaluate(principal(req), req.params.firewallId, req.body),
    );
  };
}
