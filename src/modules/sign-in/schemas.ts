import { Type } from 'typebox';
import { ref } from '../../platform/http/schemas.js';
import { AuthenticationCredential, CeremonyId, CreationOptions, RegistrationCredential, RequestOptions } from '../../platform/http/webauthn-schemas.js';
import { MeSchema } from '../me/schemas.js';
import { Tokens } from '../sessions/schemas.js';
import { Username } from '../usernames/schemas.js';

export const RegisterBeginBody = Type.Object({ username: Username }, { additionalProperties: false });
export const RegisterBeginResult = Type.Object(
  { ceremony_id: Type.String(), options: ref(CreationOptions), schema_version: Type.Literal(1) },
  { title: 'RegisterBeginResult', additionalProperties: false },
);
export const RegisterFinishBody = Type.Object(
  { ceremony_id: CeremonyId, username: Username, credential: ref(RegistrationCredential) },
  { additionalProperties: false },
);

export const LoginBeginResult = Type.Object(
  { ceremony_id: Type.String(), options: ref(RequestOptions), schema_version: Type.Literal(1) },
  { title: 'LoginBeginResult', additionalProperties: false },
);
export const LoginFinishBody = Type.Object({ ceremony_id: CeremonyId, credential: ref(AuthenticationCredential) }, { additionalProperties: false });


export const Registration = Type.Object(
  { account: ref(MeSchema), passkey_id: Type.String(), tokens: ref(Tokens), schema_version: Type.Literal(1) },
  { title: 'Registration', additionalProperties: false },
);
