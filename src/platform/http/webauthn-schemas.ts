import { Type } from 'typebox';

/** WebAuthn Level 3 JSON shapes (§5.4, §5.5 and the response JSON), as @simplewebauthn produces and reads them. */
const B64url = (maxLength: number, description?: string) => Type.String({ pattern: '^[A-Za-z0-9_-]*$', maxLength, description });

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

export const CeremonyId = Type.String({ maxLength: 64, description: 'From the matching /begin response' });

