import { defineArea } from '../../platform/area.js';
import { accountModule } from '../account/account.module.js';
import { profileRoutes } from './profile.routes.js';
import { ProfileService } from './profile.service.js';
import { SshKeysService } from './sshkeys.service.js';
import { TokensService } from './tokens.service.js';

/** The caller's profile, personal access tokens and SSH keys (`/profile/grants` reads grants). */
export const profileModule = defineArea({
  name: 'profile',
  needs: [accountModule],
  tables: [],
  services: ({ db, clock, events }) => ({
    profile: new ProfileService(db, events),
    tokens: new TokensService(db, clock, events),
    sshKeys: new SshKeysService(db, clock, events),
  }),
  api: (ctx) => [profileRoutes(ctx)],
});
