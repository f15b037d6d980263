// What the screens written before the component rewrite import (views/*.ts, drawn through
// ui/legacy.tsx): the same names, now backed by the app's core. A screen ported to a component
// imports from core/ instead; this file goes when the last one is ported.
import type { Signal } from '../../client/src/index.js';
import { client, refreshSession } from './core/client.js';
import { say } from './core/messages.js';
import { navigate as go } from './core/router.js';
import { toast } from './core/toast.js';

export { client };
export { rememberReturn, takeReturn } from './core/router.js';

export interface View {
  title: string;
  render(main: HTMLElement): Promise<void> | void;
  /** A signal arrived for this account: refresh what it shows. */
  onSignal?(signal: Signal): void | Promise<void>;
  leave?(): void;
}

export function announce(text: string): void {
  toast(text);
}

/** Moves on (after a sign-in, join or recovery the session is read again first). */
export async function navigate(path: string, note?: string, replace = false): Promise<void> {
  await refreshSession();
  go(path, { replace });
  if (note) toast(note);
}

/** A refusal or failure in words (core/messages.ts): never the server's detail. */
export const explain = (error: unknown): string => say(error);
