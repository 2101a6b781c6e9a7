import type { Database } from '../db/database.js';
import { GRANT_TYPES, type GrantType } from './authz.js';

/** One entity a grant can name: its id and its current label. */
export interface GrantableEntity {
  id: number;
  label: string;
}

/** Every entity of one type that belongs to an account, ordered by id. */
export type GrantableLister = (db: Database, accountId: number) => Promise<GrantableEntity[]>;

const none: GrantableLister = async () => [];

/**
 * How each grant type enumerates its entities, for the grants views (id and label) and to check
 * that a grant names an entity of the user's own account. An area that owns an entity table
 * registers its lister where it is wired (`createContext`), e.g.
 * `registerGrantable('volume', (db, accountId) => listVolumeLabels(db, accountId))`.
 * Types nobody registered have no entities, so a grant naming one of their ids is refused.
 */
const listers = new Map<GrantType, GrantableLister>();

export function registerGrantable(type: GrantType, lister: GrantableLister): void {
  listers.set(type, lister);
}

export const grantableEntities = {
  /** The entities of one type in an account. */
  list(db: Database, accountId: number, type: GrantType): Promise<GrantableEntity[]> {
    return (listers.get(type) ?? none)(db, accountId);
  },

  /** The entities of every grant type in an account. */
  async listAll(db: Database, accountId: number): Promise<Record<GrantType, GrantableEntity[]>> {
    const out = {} as Record<GrantType, GrantableEntity[]>;
    for (const type of GRANT_TYPES) out[type] = await grantableEntities.list(db, accountId, type);
    return out;
  },
};
