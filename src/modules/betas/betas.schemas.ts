import { Type } from '@sinclair/typebox';
import { DateTime, Nullable, PageOf } from '../../http/schemas/common.js';

export const BetaProgramSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  description: Nullable(Type.String()),
  started: DateTime(),
  ended: Nullable(DateTime({ description: 'null while the program runs' })),
  greenlight_only: Type.Boolean(),
  more_info: Nullable(Type.String()),
});
export const BetaProgramPage = PageOf(BetaProgramSchema);

export const EnrolledBetaSchema = Type.Object({
  id: Type.String(),
  label: Type.String(),
  description: Nullable(Type.String()),
  started: DateTime(),
  ended: Nullable(DateTime()),
  enrolled: DateTime(),
});
export const EnrolledBetaPage = PageOf(EnrolledBetaSchema);

export const EnrollBody = Type.Object({
  id: Type.String({ description: 'An active beta program (GET /betas).' }),
});

export const BetaParams = Type.Object({ betaId: Type.String() });
