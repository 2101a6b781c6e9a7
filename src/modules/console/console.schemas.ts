import { Type } from '@sinclair/typebox';

/** `GET /_stratus/info` (open): what the landing page shows of the server. */
export const ServerInfoSchema = Type.Object({
  name: Type.String(),
  version: Type.String(),
  spec_version: Type.String(),
  engine: Type.Union([Type.Literal('sqlite'), Type.Literal('postgres')]),
  timing: Type.String(),
  clock: Type.Object({ mode: Type.String(), now: Type.String() }),
  workers: Type.Object({
    /** Whether this process runs jobs (STRATUS_WORKER). */
    in_process: Type.Boolean(),
    /** The workers (any process) running a job right now. */
    busy: Type.Array(Type.String()),
  }),
  urls: Type.Object({
    api: Type.String(),
    s3: Type.String(),
    login: Type.String(),
    token: Type.String(),
    docs: Type.String(),
    openapi: Type.String(),
    console: Type.String(),
  }),
  console: Type.Object({
    /** The console's OAuth client (public, PKCE), registered by Stratus itself. */
    client_id: Type.String(),
    redirect_uri: Type.String(),
    /** Whether `dist/console/` holds a build. */
    built: Type.Boolean(),
  }),
});
