import { defineArea } from '../../platform/area.js';

/**
 * Accounts, users, their tokens, SSH keys and grants: the rows every other area's principal is
 * read from (src/auth). Its API is served by the profile and account areas; its operator
 * commands are `stratus admin` (admin-cli.ts).
 */
export const identityModule = defineArea({
  name: 'identity',
  needs: [],
  tables: ['accounts', 'users', 'tokens', 'ssh_keys', 'entity_grants'],
  services: () => ({}),
});
