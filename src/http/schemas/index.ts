import { AuthenticationCredential, CreationOptions, RegistrationCredential, RequestOptions, Session, Tokens, UsernameCheckResult } from './auth.js';
import { Problem } from './common.js';
import { AddressCountryRule, FieldDetails, FieldSchema, FieldType, FieldValidation, PhoneCountryRule, SocialPlatform } from './fields.js';
import { JoinAttempt, PendingJoin } from './join.js';
import { SignalSchema } from './events.js';
import { MeSchema } from './me.js';
import { Passkey, SecurityLogEntry, TotpAuthenticator } from './security.js';

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
