import { Type } from '@sinclair/typebox';
import { FaultRuleSchema } from './faults.js';
import { SeedFileSchema } from './seed.js';

export const ResetBody = Type.Object(
  {
    euuid: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'One account (its euuid); every account when absent (or no body).',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{}, { euuid: '9D2E6F1A-6C1B-4B0E-9F52-1A2B3C4D5E6F' }],
  },
);

/** A seed document, as STRATUS_SEED's file. */
export const SeedBody = Type.Composite([SeedFileSchema], {
  additionalProperties: false,
  examples: [
    {
      accounts: [
        {
          email: 'ci@example.com',
          username: 'ci-bot',
          token: 'ci-token-0123456789',
          users: [
            {
              username: 'reader',
              email: 'reader@example.com',
              restricted: true,
              tokens: [{ token: 'reader-token-0123456789', scopes: 'volumes:read_only' }],
            },
          ],
        },
      ],
      requests: [
        {
          as: 'ci-bot',
          method: 'POST',
          path: '/v4/volumes',
          body: { label: 'data', region: 'us-east', size: 20 },
        },
      ],
    },
  ],
});

export const SeedReply = Type.Object({
  accounts: Type.Array(
    Type.Object({
      euuid: Type.String(),
      username: Type.String(),
      token: Type.Optional(
        Type.String({ description: 'The `*` token drawn for the account (none given), once.' }),
      ),
    }),
  ),
  requests: Type.Integer({ description: 'The requests made.' }),
});

/** One run of the init hooks (STRATUS_INIT_DIR). */
export const InitRunSchema = Type.Object({
  stage: Type.Union([Type.Literal('first-start'), Type.Literal('reset')]),
  status: Type.Union([Type.Literal('running'), Type.Literal('done'), Type.Literal('failed')]),
  started: Type.String(),
  finished: Type.Optional(Type.String()),
  files: Type.Array(
    Type.Object({
      file: Type.String(),
      status: Type.Union([Type.Literal('done'), Type.Literal('failed'), Type.Literal('skipped')]),
      ms: Type.Optional(Type.Integer()),
      requests: Type.Optional(Type.Integer()),
      exit_code: Type.Optional(Type.Union([Type.Integer(), Type.Null()])),
      error: Type.Optional(Type.String()),
      output: Type.Optional(Type.String()),
    }),
  ),
});

export const ResetReply = Type.Object({
  scope: Type.Union([Type.Literal('all'), Type.Literal('account')]),
  euuid: Type.Optional(Type.String()),
  /** The default admin's new token, when it was generated (shown once). */
  admin: Type.Optional(Type.Object({ username: Type.String(), token: Type.String() })),
  /** The init hooks' run after the reset (STRATUS_INIT_DIR). */
  init: Type.Optional(InitRunSchema),
  /** The seed file's accounts (STRATUS_SEED); `token` only where it was generated. */
  seeded: Type.Optional(
    Type.Array(
      Type.Object({
        euuid: Type.String(),
        username: Type.String(),
        token: Type.Optional(Type.String()),
      }),
    ),
  ),
});

const Row = Type.Array(Type.Unknown());
export const SnapshotSchema = Type.Object({
  format: Type.String(),
  version: Type.Integer(),
  stratus: Type.String(),
  created: Type.String(),
  dialect: Type.String(),
  migrations: Type.Array(Type.String()),
  tables: Type.Record(
    Type.String(),
    Type.Object({ columns: Type.Array(Type.String()), rows: Type.Array(Row) }),
  ),
  sequences: Type.Record(Type.String(), Type.Number()),
  extensions: Type.Record(Type.String(), Type.Unknown()),
  blobs: Type.Optional(Type.Union([Type.Literal('follow'), Type.Literal('omitted')])),
});

export const SnapshotQuery = Type.Object({ bytes: Type.Optional(Type.Boolean()) });

export const ImportReply = Type.Object({
  tables: Type.Integer(),
  rows: Type.Integer(),
  /** Blobs (object and image bytes) a streamed snapshot brought. */
  blobs: Type.Optional(Type.Integer()),
});

const Profile = Type.Union([
  Type.Literal('instant'),
  Type.Literal('fast'),
  Type.Literal('realistic'),
]);

export const TimingBody = Type.Object(
  {
    profile: Type.Optional(Profile),
    overrides: Type.Optional(
      Type.Record(Type.String(), Type.Integer({ minimum: 0, maximum: 86_400_000 }), {
        description:
          'Milliseconds per kind of work (the keys of `durations_ms`), replacing the ' +
          'profile\u2019s figure. A new profile without overrides clears them.',
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [{ profile: 'instant' }, { profile: 'fast', overrides: { provision: 5000 } }],
  },
);

export const TimingReply = Type.Object({
  profile: Profile,
  overrides: Type.Record(Type.String(), Type.Integer()),
  durations_ms: Type.Record(Type.String(), Type.Integer()),
});

export const ClockReply = Type.Object({
  mode: Type.Union([Type.Literal('system'), Type.Literal('manual')]),
  now: Type.String(),
  now_ms: Type.Integer(),
});

export const ClockBody = Type.Object(
  { mode: Type.Union([Type.Literal('system'), Type.Literal('manual')]) },
  { additionalProperties: false, examples: [{ mode: 'manual' }] },
);

export const AdvanceBody = Type.Object(
  {
    seconds: Type.Optional(Type.Number({ minimum: 0, maximum: 365 * 86_400 })),
    ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 365 * 86_400_000 })),
  },
  { additionalProperties: false, examples: [{ seconds: 45 }, { ms: 1500 }] },
);

export const AdvanceReply = Type.Composite([ClockReply, Type.Object({ steps: Type.Integer() })]);

export const FaultsReply = Type.Object({
  rules: Type.Array(
    Type.Composite([
      Type.Omit(FaultRuleSchema, ['id']),
      Type.Object({ id: Type.String(), remaining: Type.Union([Type.Integer(), Type.Null()]) }),
    ]),
  ),
});
