import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { SerializerFactory } from '@fastify/fast-json-stringify-compiler';
import type { ValidateFunction } from 'ajv';

/**
 * Fastify compiles a serializer for every response schema of every route (each status code,
 * each content type) and a validator for every request part when the route is added. With the
 * problem responses every route carries that is several hundred generated functions, most of
 * which a process never runs, kept for its whole life (about 10 MB of heap at start). These
 * wrappers compile each one on first use instead: the same compiler on the same schema, later.
 */
export interface LazyCompilers {
  /** Fastify's own serializer factory (fast-json-stringify), compiling on a schema's first response. */
  serializerFactory: SerializerFactory;
  /** Wraps an Ajv compilation to run on the first request it validates. */
  validator(compile: () => ValidateFunction): LazyValidator;
  /** Compiles everything not compiled yet (tests: every schema must compile). */
  compileAll(): void;
}

export interface LazyValidator {
  (data: unknown, context?: object): boolean;
  errors?: ValidateFunction['errors'];
  schemaEnv?: true;
}

export function lazyCompilers(): LazyCompilers {
  const pending = new Set<() => unknown>();
  function once<T>(build: () => T): () => T {
    let built: T | undefined;
    const get = () => {
      if (built === undefined) {
        built = build();
        pending.delete(get);
      }
      return built;
    };
    pending.add(get);
    return get;
  }

  const fastJsonStringify = SerializerSelector();
  return {
    serializerFactory: (externalSchemas, options) => {
      const compile = fastJsonStringify(externalSchemas, options);
      return (route) => {
        const serializer = once(() => compile(route));
        return (data) => serializer()(data);
      };
    },
    // Fastify reads `errors` off the function after a call, and gives the parent object (so Ajv
    // can coerce a root value) only to functions with a `schemaEnv`, as every Ajv validator has.
    validator(compile) {
      const validator = once(compile);
      const validate: LazyValidator = (data, context) => {
        const fn = validator();
        const valid = fn(data, context as Parameters<ValidateFunction>[1]);
        validate.errors = fn.errors;
        return valid;
      };
      validate.schemaEnv = true;
      return validate;
    },
    compileAll() {
      for (const build of [...pending]) build();
    },
  };
}
