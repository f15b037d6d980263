import type { FastifyPluginAsync } from 'fastify';
import type { Migration } from 'kysely';
import type { TSchema } from 'typebox';
import type { AccountData } from './account-data.js';
import type { Ceremonies } from './ceremonies.js';
import type { Clock } from './clock.js';
import type { Config } from './config.js';
import type { AttemptLimiter } from './limits/attempt-limiter.js';
import type { RateLimits } from './http/plugins/rate-limit.js';
import type { SecretBox } from './crypto/secret-box.js';
import type { SealedColumns } from './crypto/sealed-columns.js';
import type { Metrics } from './metrics/metrics.js';
import type { Store } from './store/store.js';

/**
 * A resource group is one folder under src/modules with a module.ts that declares it with
 * defineModule(): its migrations, the shared schemas its routes reference, its OpenAPI tags,
 * and build(), which makes its services from the platform (and from services other modules
 * provide) and returns its routes. src/modules/index.ts lists the modules; app.ts builds them
 * in that order. See docs/decisions/060-feature-modules.md.
 */

/** What every module may use: the shared platform, never another module's internals. */
export interface Platform {
  config: Config;
  clock: Clock;
  store: Store;
  /** Seals secrets at rest (AES-256-GCM under SECRET_KEY; opens under any key of the ring). */
  box: SecretBox;
  /** A key for one purpose, derived from SECRET_KEY (the current key): what new keyed hashes use. */
  subkey(purpose: string): Buffer;
  /** The same purpose's key under every key of the ring, current first: what lookups try (decision 110). */
  subkeys(purpose: string): Buffer[];
  /** Where each module keeps sealed values, for the rotation to re-seal them. */
  sealed: SealedColumns;
  limiter: AttemptLimiter;
  /** Per-principal request limits and the monthly quota, for a route that learns its principal itself. */
  rateLimits: RateLimits;
  ceremonies: Ceremonies;
  /** What each module holds about an account: its export sections, purge and table fates. */
  accountData: AccountData;
  /** Logs a failure nobody is waiting for (background work, stream delivery). */
  warn(error: unknown, what: string): void;
  /** Counts authentication outcomes and the like for /metrics; does nothing when METRICS_PORT is unset. */
  metrics: Metrics;
}

/**
 * The services modules offer each other, keyed by name. Each module that provides one declares
 * it here by interface merging, next to its service:
 *   declare module '../../platform/module.js' { interface ModuleServices { fields: FieldService } }
 * A module reads only the services of modules listed before it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface ModuleServices {}

export interface ModuleParts {
  /** The services this module offers the modules after it (and app.ts). */
  provides?: Partial<ModuleServices>;
  /** Routes under /api/v1. */
  routes?: FastifyPluginAsync;
  /** Routes outside /api/v1 (health probes, the web app). */
  rootRoutes?: FastifyPluginAsync;
  /** After the server is ready (background work). */
  start?(): Promise<void> | void;
  /**
   * On SIGTERM, before the port closes: the node still serves, but tells the balancer to stop
   * sending it traffic (readiness answers 503) for DRAIN_DELAY_S.
   */
  drain?(): void;
  /** Before the server closes (open streams end). */
  stop?(): void;
  /** When the server has closed. */
  close?(): Promise<void> | void;
  /** Housekeeping once a minute (expired rows). */
  prune?(now: number): Promise<unknown>;
}

export interface VidModule {
  name: string;
  /** Migrations this module adds, by globally ordered name ("006-profiles"). */
  migrations?: Record<string, Migration>;
  /** Schemas with an $id that routes reference (registered once; OpenAPI components). */
  schemas?: TSchema[];
  /** OpenAPI tags this module's routes use. */
  tags?: Array<{ name: string; description: string }>;
  build(platform: Platform, services: ModuleServices): ModuleParts;
}

export const defineModule = (module: VidModule): VidModule => module;

export interface BuiltModules {
  services: ModuleServices;
  parts: Array<ModuleParts & { name: string }>;
}

/**
 * Builds the modules in list order. Each sees the services of the modules before it; asking for
 * one that is not built (yet) fails at start, naming both, rather than at the first request.
 */
export function buildModules(modules: readonly VidModule[], platform: Platform): BuiltModules {
  const provided: Record<string, unknown> = {};
  let building = '';
  const services = new Proxy(provided, {
    get(target, name) {
      if (typeof name === 'string' && !(name in target)) throw new Error(`module ${building} needs the service "${name}", which no module before it provides`);
      return target[name as string];
    },
  }) as unknown as ModuleServices;
  const parts = modules.map((module) => {
    building = module.name;
    const built = module.build(platform, services);
    for (const [name, service] of Object.entries(built.provides ?? {})) {
      if (name in provided) throw new Error(`service "${name}" of module ${module.name} is provided twice`);
      provided[name] = service;
    }
    return { ...built, name: module.name };
  });
  return { services: provided as unknown as ModuleServices, parts };
}
