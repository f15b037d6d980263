import { AuthenticationCredential, CreationOptions, RegistrationCredential, RequestOptions, Session, Tokens, UsernameCheckResult } from '../../modules/sessions/schemas.js';
import { Problem } from './schemas.js';
import { AddressCountryRule, FieldDetails, FieldSchema, FieldType, FieldValidation, PhoneCountryRule, SocialPlatform } from '../../modules/fields/schemas.js';
import { JoinAttempt, PendingJoin } from '../../modules/join/schemas.js';
import { SignalSchema } from '../../modules/signals/schemas.js';
import { MeSchema } from '../../modules/me/schemas.js';
import { Passkey, SecurityLogEntry, TotpAuthenticator } from '../../modules/methods/schemas.js';

/** Every schema with an $id: registered once for validation, serialisation and the OpenAPI components. */
export const sharedSchemas = [
  Problem,
  UsernameCheckResult,
  CreationOptions,
  RequestOptions,
  RegistrationCredential,
  AuthenticationCredential,
  Tokens,
  Session,
  MeSchema,
  PhoneCountryRule,
  AddressCountryRule,
  SocialPlatform,
  FieldType,
  FieldDetails,
  FieldValidation,
  FieldSchema,
  Passkey,
  TotpAuthenticator,
  SecurityLogEntry,
  JoinAttempt,
  PendingJoin,
  SignalSchema,
];
