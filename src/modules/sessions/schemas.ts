import { Type } from 'typebox';
import { IsoDateTime, ref } from '../../platform/http/schemas.js';

const B64url = (maxLength: number, description?: string) => Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength, description });

export const Username = Type.String({ minLength: 1, maxLength: 128, description: 'As the person typed it; 3-32 characters once normalised' });

export const UsernameCheckBody = Type.Object({ username: Username }, { additionalProperties: false });

export const UsernameCheckResult = Type.Object(
  {
    username: Type.String(),
    canonical: Type.Union([Type.String(), Type.Null()], { description: 'The enforced form uniqueness is checked on; null when invalid' }),
    available: Type.Boolean(),
    reason: Type.Optional(Type.Union([Type.Literal('invalid'), Type.Literal('reserved'), Type.Literal('confusable'), Type.Literal('taken')])),
    detail: Type.Optional(Type.String({ description: 'Why an invalid name is invalid' })),
  },
  { $id: 'UsernameCheckResult', title: 'UsernameCheckResult', additionalProperties: false },
);

const CredentialDescriptor = Type.Object(
  { id: Type.String(), type: Type.String({ description: 'public-key' }), transports: Type.Optional(Type.Array(Type.String())) },
  { additionalProperties: false },
);

/** PublicKeyCredentialCreationOptionsJSON (WebAuthn L3 §5.4), ready for navigator.credentials.create(). */
export const CreationOptions = Type.Object(
  {
    rp: Type.Object({ id: Type.Optional(Type.String()), name: Type.String() }, { additionalProperties: false }),
    user: Type.Object({ id: Type.String(), name: Type.String(), displayName: Type.String() }, { additionalProperties: false }),
    challenge: Type.String(),
    pubKeyCredParams: Type.Array(Type.Object({ type: Type.Literal('public-key'), alg: Type.Integer() }, { additionalProperties: false })),
    timeout: Type.Optional(Type.Integer()),
    excludeCredentials: Type.Optional(Type.Array(CredentialDescriptor)),
    authenticatorSelection: Type.Optional(
      Type.Object(
        {
          authenticatorAttachment: Type.Optional(Type.String()),
          residentKey: Type.Optional(Type.String()),
          requireResidentKey: Type.Optional(Type.Boolean()),
          userVerification: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    hints: Type.Optional(Type.Array(Type.String())),
    attestation: Type.Optional(Type.String()),
    extensions: Type.Optional(Type.Object({ credProps: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
  },
  { $id: 'CreationOptions', title: 'CreationOptions', additionalProperties: false },
);

/** PublicKeyCredentialRequestOptionsJSON (WebAuthn L3 §5.5), for navigator.credentials.get(). */
export const RequestOptions = Type.Object(
  {
    challenge: Type.String(),
    timeout: Type.Optional(Type.Integer()),
    rpId: Type.Optional(Type.String()),
    allowCredentials: Type.Optional(Type.Array(CredentialDescriptor)),
    userVerification: Type.Optional(Type.String()),
    hints: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'RequestOptions', title: 'RequestOptions', additionalProperties: false },
);

const ClientExtensionResults = Type.Object({}, { additionalProperties: true });

/** RegistrationResponseJSON as @simplewebauthn/browser's startRegistration() returns it. */
export const RegistrationCredential = Type.Object(
  {
    id: B64url(1400),
    rawId: B64url(1400),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: B64url(4096),
        attestationObject: B64url(16384),
        authenticatorData: Type.Optional(B64url(4096)),
        transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 })),
        publicKeyAlgorithm: Type.Optional(Type.Integer()),
        publicKey: Type.Optional(B64url(4096)),
      },
      { additionalProperties: false },
    ),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
    clientExtensionResults: ClientExtensionResults,
  },
  { $id: 'RegistrationCredential', title: 'RegistrationCredential', additionalProperties: false },
);

/** AuthenticationResponseJSON as @simplewebauthn/browser's startAuthentication() returns it. */
export const AuthenticationCredential = Type.Object(
  {
    id: B64url(1400),
    rawId: B64url(1400),
    type: Type.Literal('public-key'),
    response: Type.Object(
      {
        clientDataJSON: B64url(4096),
        authenticatorData: B64url(4096),
        signature: B64url(1024),
        userHandle: Type.Optional(B64url(128)),
      },
      { additionalProperties: false },
    ),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
    clientExtensionResults: ClientExtensionResults,
  },
  { $id: 'AuthenticationCredential', title: 'AuthenticationCredential', additionalProperties: false },
);

const CeremonyId = Type.String({ maxLength: 64, description: 'From the matching /begin response' });

export const RegisterBeginBody = Type.Object({ username: Username }, { additionalProperties: false });
export const RegisterBeginResult = Type.Object(
  { ceremony_id: Type.String(), options: ref(CreationOptions) },
  { title: 'RegisterBeginResult', additionalProperties: false },
);
export const RegisterFinishBody = Type.Object(
  { ceremony_id: CeremonyId, username: Username, credential: ref(RegistrationCredential) },
  { additionalProperties: false },
);

export const LoginBeginResult = Type.Object(
  { ceremony_id: Type.String(), options: ref(RequestOptions) },
  { title: 'LoginBeginResult', additionalProperties: false },
);
export const LoginFinishBody = Type.Object({ ceremony_id: CeremonyId, credential: ref(AuthenticationCredential) }, { additionalProperties: false });

export const Tokens = Type.Object(
  {
    session_id: Type.String(),
    token_type: Type.Literal('DPoP'),
    access_token: Type.String(),
    expires_in: Type.Integer({ description: 'Seconds the access token stays valid' }),
    refresh_token: Type.String(),
    refresh_expires_in: Type.Integer({ description: 'Seconds the refresh token stays valid unless used' }),
    trusted: Type.Boolean({ description: 'false for an ephemeral (join without persist_device) session' }),
  },
  { $id: 'Tokens', title: 'Tokens', additionalProperties: false },
);

export const RenewBody = Type.Object({ refresh_token: Type.String({ minLength: 1, maxLength: 128 }) }, { additionalProperties: false });

export const Session = Type.Object(
  {
    id: Type.String(),
    device_label: Type.String(),
    user_agent: Type.String(),
    trusted: Type.Boolean(),
    current: Type.Boolean({ description: 'true for the session making this request' }),
    created_at: IsoDateTime,
    last_seen_at: IsoDateTime,
    expires_at: IsoDateTime,
  },
  { $id: 'Session', title: 'Session', additionalProperties: false },
);

export const SessionIdParams = Type.Object({ id: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
