import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import type PinoPretty from 'pino-pretty';

// Loaded only for a terminal: a service under a supervisor or in a container never loads it, and
// esbuild leaves a createRequire call alone, so it stays out of the bundle (decision 120).
const require = createRequire(import.meta.url);

/**
 * Where the service's log goes. For a collector (stdout is a pipe or a file): pino's JSON, one
 * record a line. For a person (stdout is a terminal): one readable line a record,
 * "[14:03:07] INFO: GET /api/v1/me 200 4.2 ms", the fields a person does not read left out.
 * The result is merged into the logger's options (AppDeps.logger).
 */
export function logOutput(stdout: { isTTY?: boolean }): { stream?: Writable } {
  if (!stdout.isTTY) return {};
  const pretty = require('pino-pretty') as typeof PinoPretty;
  return {
    stream: pretty({
      // Written before the next line of the program runs, so nothing is lost when it exits.
      sync: true,
      translateTime: 'SYS:HH:MM:ss',
      singleLine: true,
      ignore: 'pid,hostname,reqId,req,res,responseTime,refusal',
      // A refusal's detail says what to fix: "POST /api/v1/me/fields 400 3.1 ms validation_failed (…)".
      messageFormat: (log, messageKey) => {
        const refusal = log.refusal as { detail?: string } | undefined;
        return refusal?.detail ? `${log[messageKey]} (${refusal.detail})` : String(log[messageKey]);
      },
    }),
  };
}
