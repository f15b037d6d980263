import { Type } from 'typebox';

export const Username = Type.String({ minLength: 1, maxLength: 128, description: 'As the person typed it; 3-32 characters once normalised' });

export const UsernameCheckBody = Type.Object({ username: Username }, { additionalProperties: false });

export const UsernameCheckResult = Type.Object(
  {
    username: Type.String(),
    canonical: Type.Union([Type.String(), Type.Null()], { description: 'The enforced form uniqueness is checked on; null when invalid' }),
    available: Type.Boolean(),
    reason: Type.Optional(Type.Union([Type.Literal('invalid'), Type.Literal('reserved'), Type.Literal('confusable'), Type.Literal('taken')])),
    detail: Type.Optional(Type.String({ description: 'Why an invalid name is invalid' })),
    schema_version: Type.Literal(1),
  },
  { $id: 'UsernameCheckResult', title: 'UsernameCheckResult', additionalProperties: false },
);

