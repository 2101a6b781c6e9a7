import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { RouteContext } from '../../platform/area.js';
import type { ClientsService } from './clients.service.js';
import type { LoginsService } from './logins.js';
import type { AppsService } from './apps.js';
import type { TfaService } from './tfa.service.js';
import type { DevicesService } from './devices.js';
import type { PreferencesService } from './preferences.js';
import type { PhoneService } from './phone.service.js';
import type { SecurityQuestionsService } from './security-questions.js';
import { principal, xFilter } from '../../http/principal.js';
import { DateTime, Empty, PageQuery } from '../../http/schemas/common.js';
import { AppParams, AuthorizedAppPage, AuthorizedAppSchema } from './apps.js';
import { clientsRoutes } from './clients.routes.js';
import { DevicePage, DeviceParams, DeviceSchema } from './devices.js';
import { PhoneNumberBody, PhoneVerifyBody } from './phone.service.js';
import { PreferencesSchema } from './preferences.js';
import {
  SecurityQuestionsGet,
  SecurityQuestionsPostBody,
  SecurityQuestionsPostReply,
} from './security-questions.js';
import { LoginPage, LoginParams, LoginSchema } from './logins.js';

type Ctx = RouteContext<{
  clients: ClientsService;
  logins: LoginsService;
  apps: AppsService;
  tfa: TfaService;
  devices: DevicesService;
  preferences: PreferencesService;
  phone: PhoneService;
  securityQuestions: SecurityQuestionsService;
}>;

const read = { scopes: ['account:read_only'] };
const write = { scopes: ['account:read_write'] };

/** The API side of the OAuth area: clients, logins, authorized apps and two-factor settings. */
export function oauthRoutes(ctx: Ctx): FastifyPluginAsyncTypebox {
  const {
    logins,
    apps,
    tfa,
    devices,
    preferences,
    phone,
    securityQuestions: questions,
  } = ctx.services;
  return async (app) => {
    await app.register(clientsRoutes(ctx));

    for (const own of [false, true]) {
      const tags = own ? ['Profile'] : ['Account'];
      const base = own ? '/profile/logins' : '/account/logins';
      app.get(
        base,
        {
          schema: {
            tags,
            summary: 'Logins List',
            querystring: PageQuery,
            response: { 200: LoginPage },
          },
          config: {
            operationId: own ? 'getProfileLogins' : 'getAccountLogins',
            ...read,
            paged: true,
          },
        },
        (req) => logins.list(principal(req), own, req.query, xFilter(req)),
      );
      app.get(
        `${base}/:loginId`,
        {
          schema: {
            tags,
            summary: 'Login View',
            params: LoginParams,
            response: { 200: LoginSchema },
          },
          config: { operationId: own ? 'getProfileLogin' : 'getAccountLogin', ...read },
        },
        (req) => logins.get(principal(req), own, req.params.loginId),
      );
    }

    const tags = ['Profile'];
    app.get(
      '/profile/apps',
      {
        schema: {
          tags,
          summary: 'Authorized Apps List',
          querystring: PageQuery,
          response: { 200: AuthorizedAppPage },
        },
        config: { operationId: 'getProfileApps', ...read, paged: true },
      },
      (req) => apps.list(principal(req), req.query, xFilter(req), `${req.protocol}://${req.host}`),
    );
    app.get(
      '/profile/apps/:appId',
      {
        schema: {
          tags,
          summary: 'Authorized App View',
          params: AppParams,
          response: { 200: AuthorizedAppSchema },
        },
        config: { operationId: 'getProfileApp', ...read },
      },
      (req) => apps.get(principal(req), req.params.appId, `${req.protocol}://${req.host}`),
    );
    app.delete(
      '/profile/apps/:appId',
      {
        schema: { tags, summary: 'App Access Revoke', params: AppParams, response: { 200: Empty } },
        config: { operationId: 'deleteProfileApp', ...write },
      },
      async (req) => {
        await apps.delete(principal(req), req.params.appId);
        return {};
      },
    );

    app.get(
      '/profile/devices',
      {
        schema: {
          tags,
          summary: 'Trusted Devices List',
          querystring: PageQuery,
          response: { 200: DevicePage },
        },
        config: { operationId: 'getDevices', ...read, paged: true },
      },
      (req) => devices.list(principal(req), req.query, xFilter(req)),
    );
    app.get(
      '/profile/devices/:deviceId',
      {
        schema: {
          tags,
          summary: 'Trusted Device View',
          params: DeviceParams,
          response: { 200: DeviceSchema },
        },
        config: { operationId: 'getTrustedDevice', ...read },
      },
      (req) => devices.get(principal(req), req.params.deviceId),
    );
    app.delete(
      '/profile/devices/:deviceId',
      {
        schema: {
          tags,
          summary: 'Trusted Device Revoke',
          params: DeviceParams,
          response: { 200: Empty },
        },
        config: { operationId: 'revokeTrustedDevice', ...write },
      },
      async (req) => {
        await devices.delete(principal(req), req.params.deviceId);
        return {};
      },
    );

    app.get(
      '/profile/preferences',
      {
        schema: { tags, summary: 'User Preferences View', response: { 200: PreferencesSchema } },
        config: { operationId: 'getUserPreferences', ...read },
      },
      (req) => preferences.get(principal(req)),
    );
    app.put(
      '/profile/preferences',
      {
        schema: {
          tags,
          summary: 'User Preferences Update',
          body: PreferencesSchema,
          response: { 200: PreferencesSchema },
        },
        config: { operationId: 'updateUserPreferences', ...write },
      },
      (req) => preferences.update(principal(req), req.body),
    );

    app.post(
      '/profile/phone-number',
      {
        schema: {
          tags,
          summary: 'Phone Number Verification Code Send',
          body: PhoneNumberBody,
          response: { 200: Empty },
        },
        config: { operationId: 'postProfilePhoneNumber', ...write },
      },
      async (req) => {
        await phone.send(principal(req), req.body);
        return {};
      },
    );
    app.post(
      '/profile/phone-number/verify',
      {
        schema: {
          tags,
          summary: 'Phone Number Verify',
          body: PhoneVerifyBody,
          response: { 200: Empty },
        },
        config: { operationId: 'postProfilePhoneNumberVerify', ...write },
      },
      async (req) => {
        await phone.verify(principal(req), req.body.otp_code);
        return {};
      },
    );
    app.delete(
      '/profile/phone-number',
      {
        schema: { tags, summary: 'Phone Number Delete', response: { 200: Empty } },
        config: { operationId: 'deleteProfilePhoneNumber', ...write },
      },
      async (req) => {
        await phone.delete(principal(req));
        return {};
      },
    );

    app.get(
      '/profile/security-questions',
      {
        schema: {
          tags,
          summary: 'Security Questions List',
          response: { 200: SecurityQuestionsGet },
        },
        config: { operationId: 'getSecurityQuestions', ...read },
      },
      (req) => questions.list(principal(req)),
    );
    app.post(
      '/profile/security-questions',
      {
        schema: {
          tags,
          summary: 'Security Questions Answer',
          body: SecurityQuestionsPostBody,
          response: { 200: SecurityQuestionsPostReply },
        },
        config: { operationId: 'postSecurityQuestions', ...write },
      },
      (req) => questions.answer(principal(req), req.body),
    );

    app.post(
      '/profile/tfa-enable',
      {
        schema: {
          tags,
          summary: 'Two Factor Secret Create',
          response: { 200: Type.Object({ secret: Type.String(), expiry: DateTime() }) },
        },
        config: { operationId: 'tfaEnable', ...write },
      },
      (req) => tfa.enable(principal(req)),
    );
    app.post(
      '/profile/tfa-enable-confirm',
      {
        schema: {
          tags,
          summary: 'Two Factor Authentication Confirm/Enable',
          body: Type.Object({ tfa_code: Type.Optional(Type.String({ maxLength: 64 })) }),
          response: { 200: Type.Object({ scratch: Type.String() }) },
        },
        config: { operationId: 'tfaConfirm', ...write },
      },
      (req) => tfa.confirm(principal(req), req.body.tfa_code),
    );
    app.post(
      '/profile/tfa-disable',
      {
        schema: { tags, summary: 'Two Factor Authentication Disable', response: { 200: Empty } },
        config: { operationId: 'tfaDisable', ...write },
      },
      async (req) => {
        await tfa.disable(principal(req));
        return {};
      },
    );
  };
}
