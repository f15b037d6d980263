// The person cancelled the passkey prompt (or it was aborted): no refusal to explain. Apart from
// webauthn.ts so that forms can ask without loading the WebAuthn helpers.
export function isCancel(error: unknown): boolean {
  const name = (error as { name?: string } | undefined)?.name;
  return name === 'AbortError' || name === 'NotAllowedError';
}
