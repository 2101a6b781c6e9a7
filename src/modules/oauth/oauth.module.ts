import { defineArea } from '../../platform/area.js';
import { AppsService } from './apps.js';
import { AuthorizeService } from './authorize.service.js';
import { ClientsService } from './clients.service.js';
import { DevicesService } from './devices.js';
import { loginServiceRoutes } from './login-service.routes.js';
import { LoginsService } from './logins.js';
import { oauthEntities } from './oauth.entities.js';
import { oauthRoutes } from './oauth.routes.js';
import { PhoneService } from './phone.service.js';
import { PreferencesService } from './preferences.js';
import { SecurityQuestionsService } from './security-questions.js';
import { TfaService } from './tfa.service.js';
import { TokenService } from './token.service.js';

/**
 * OAuth clients and the login service (sign-in, consent, tokens), with the profile's security
 * endpoints: two-factor authentication, trusted devices, authorized apps, logins, phone,
 * preferences and security questions.
 */
export const oauthModule = defineArea({
  name: 'oauth',
  needs: [],
  tables: [
    'oauth_clients',
    'oauth_apps',
    'oauth_codes',
    'oauth_refresh_tokens',
    'oauth_sessions',
    'logins',
    'user_credentials',
    'security_answers',
    'phone_verifications',
    'sms_outbox',
    'trusted_devices',
    'user_preferences',
  ],
  entities: oauthEntities,
  services: ({ db, clock, events, sealer }) => {
    const securityQuestions = new SecurityQuestionsService(db, clock);
    return {
      clients: new ClientsService(db, clock, events),
      authorize: new AuthorizeService(db, clock, sealer),
      tokens: new TokenService(db, clock),
      logins: new LoginsService(db, clock),
      apps: new AppsService(db),
      tfa: new TfaService(db, clock, events, sealer, securityQuestions),
      devices: new DevicesService(db, clock),
      preferences: new PreferencesService(db),
      phone: new PhoneService(db, clock),
      securityQuestions,
    };
  },
  api: (ctx) => [oauthRoutes(ctx)],
  login: (ctx) => [loginServiceRoutes(ctx)],
});
