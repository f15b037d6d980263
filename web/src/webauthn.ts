// The authenticator callbacks the client takes, via @simplewebauthn/browser.
import { startAuthentication, startRegistration } from '@simplewebauthn/browser';
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import type { CreateCredential, GetAssertion } from '../../client/src/index.js';

export const createCredential: CreateCredential = (options) =>
  startRegistration({ optionsJSON: options as unknown as PublicKeyCredentialCreationOptionsJSON });

export const getAssertion: GetAssertion = (options) =>
  startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON });

/** Conditional mediation: the browser offers passkeys in the username field's autofill. */
export const autofillAssertion: GetAssertion = (options) =>
  startAuthentication({ optionsJSON: options as unknown as PublicKeyCredentialRequestOptionsJSON, useBrowserAutofill: true });

/** Step-up for sensitive calls (VID-Step-Up), the same passkey prompt. */
export const stepUp = getAssertion;

export { isCancel } from './cancel.js';
