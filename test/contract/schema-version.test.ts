import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';

/**
 * PRODUCT §0 and the spec ("Single resources carry schema_version"): every JSON object a 2xx
 * answer returns is either a list ({data, next_cursor, has_more}) or a single resource that
 * requires `schema_version`, the integer 1. Read from the OpenAPI document the routes generate,
 * so a new route without it fails here.
 */
describe('schema_version on every single resource', () => {
  let document: any;
  let close: () => Promise<void>;
  before(async () => {
    const { app } = await buildApp({ config: loadConfig({ SQLITE_PATH: ':memory:', SECRET_KEY: 'A'.repeat(43) }), logger: false });
    const response = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(response.statusCode, 200);
    document = response.json();
    close = () => app.close();
  });
  after(() => close());

  function resolve(schema: any): any {
    let seen = 0;
    while (schema?.$ref) {
      assert.ok(++seen < 20, `a $ref loop at ${schema.$ref}`);
      const name = String(schema.$ref).replace(/^#\/components\/schemas\//, '');
      schema = document.components.schemas[name];
      assert.ok(schema, `unresolved $ref ${name}`);
    }
    return schema;
  }

  /** The object schemas a JSON answer may be: a union's branches each, or the one schema. */
  function shapes(schema: any): any[] {
    const resolved = resolve(schema);
    const branches = resolved?.anyOf ?? resolved?.oneOf;
    return branches ? branches.flatMap(shapes) : [resolved];
  }

  const isList = (schema: any) => ['data', 'next_cursor', 'has_more'].every((name) => name in (schema.properties ?? {})) && resolve(schema.properties.data).type === 'array';

  it('lists carry the list envelope; every other JSON object answer requires schema_version: 1', () => {
    const missing: string[] = [];
    let checked = 0;
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses ?? {})) {
          if (!/^2\d\d$/.test(status)) continue;
          for (const [type, content] of Object.entries<any>(response.content ?? {})) {
            if (!/^application\/(.+\+)?json$/.test(type.split(';')[0]!)) continue;
            for (const schema of shapes(content.schema)) {
              const where = `${method.toUpperCase()} ${path} ${status}`;
              checked++;
              if (schema?.type !== 'object') {
                missing.push(`${where}: not an object (${schema?.type ?? 'no type'})`);
                continue;
              }
              if (isList(schema)) continue;
              const version = schema.properties?.schema_version && resolve(schema.properties.schema_version);
              if (!version || !(schema.required ?? []).includes('schema_version')) missing.push(`${where}: no required schema_version`);
              else if (!(version.const === 1 || (version.enum?.length === 1 && version.enum[0] === 1)) || !['integer', 'number'].includes(version.type)) missing.push(`${where}: schema_version is not the number 1`);
            }
          }
        }
      }
    }
    assert.ok(checked > 50, `only ${checked} JSON answers found: is the document complete?`);
    assert.deepEqual(missing, []);
  });
});
