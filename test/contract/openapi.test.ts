import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/platform/config.js';
import { modules } from '../../src/modules/index.js';
import { createContractChecker } from '../helpers/contract.js';

/** A response, or the shared response component its `$ref` names. */
function resolve(document: any, response: any): any {
  return typeof response.$ref === 'string' ? document.components.responses[response.$ref.split('/').pop()] : response;
}

/** Every module's operations.ts, merged. */
const OPERATION_NAMES: Record<string, string> = Object.assign({}, ...modules.map((module) => module.operations ?? {}));

/** The contract itself: generated from the route schemas, lint-clean, and complete. */
describe('the OpenAPI document', () => {
  let document: any;
  let close: () => Promise<void>;
  let compileSchemas: () => void;
  before(async () => {
    const { app, ...built } = await buildApp({ config: loadConfig({ SQLITE_PATH: ':memory:', SECRET_KEY: 'A'.repeat(43) }), logger: false });
    compileSchemas = built.compileSchemas;
    const response = await app.inject({ method: 'GET', url: '/api/v1/openapi.json' });
    assert.equal(response.statusCode, 200);
    document = response.json();
    close = () => app.close();
  });
  after(() => close());

  it('compiles every request validator and response serializer (they are compiled on first use)', () => {
    assert.doesNotThrow(() => compileSchemas());
  });

  it('is OpenAPI 3.1 with the DPoP security scheme and a relative server for {base_url}', () => {
    assert.equal(document.openapi, '3.1.0');
    // Two header API keys required together (generators warn about `type: http, scheme: DPoP`).
    assert.deepEqual(document.components.securitySchemes.DPoP, { ...document.components.securitySchemes.DPoP, type: 'apiKey', in: 'header', name: 'Authorization' });
    assert.deepEqual(document.components.securitySchemes.DPoPProof, { ...document.components.securitySchemes.DPoPProof, type: 'apiKey', in: 'header', name: 'DPoP' });
    assert.deepEqual(document.paths['/me'].get.security, [{ DPoP: [], DPoPProof: [] }]);
    assert.equal(document.servers[0].url, '/api/v1');
  });

  it('gives every operation an operationId, a security statement and problem+json errors', () => {
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        assert.ok(operation.operationId, `${where} has no operationId`);
        // Named in its module's operations.ts, not spelled out from the path (postAuthJoinApproveWithFactor).
        assert.equal(operation.operationId, OPERATION_NAMES[where], `${where} has no name in its module's operations.ts`);
        assert.match(operation.operationId, /^[a-z]+[A-Za-z]*$/, where);
        assert.ok(Array.isArray(operation.security), `${where} states no security`);
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (Number(status) >= 400) assert.ok(resolve(document, response).content?.['application/problem+json'], `${where} ${status} is not problem+json`);
        }
        if (operation.security.length) assert.ok(operation.responses['401'], `${where} is authenticated but documents no 401`);
      }
    }
  });

  it('describes every response: no "Default Response", error responses name their problem codes', () => {
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          const where = `${method.toUpperCase()} ${path} ${status}`;
          assert.ok(response.description && response.description !== 'Default Response', `${where} has no description`);
          if (Number(status) >= 400) assert.ok(operation['x-problem-codes']?.[status]?.length, `${where} names no problem code`);
        }
      }
    }
    // Request bodies are named components: generators emit CreateFieldBody, not an anonymous type.
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        if (schema) assert.match(schema.$ref ?? '', /^#\/components\/schemas\/\w+$/, `${method.toUpperCase()} ${path}: an inline request body`);
      }
    }
    assert.deepEqual(document.components.schemas.CreateFieldBody.required, ['type', 'value']);
    const page = document.paths['/profiles'].get.responses['200'].description;
    assert.match(page, /^OK: one page of the profile list/);
    assert.equal(document.paths['/me/fields'].post.responses['201'].description, 'Created: the field');
  });

  it('describes every operation: a description beside its summary', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        if (typeof operation.description !== 'string' || !operation.description.trim()) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    assert.deepEqual(missing, [], 'give each route a schema.description: what it does beyond its summary');
  });

  it('shares the error responses: each a component with its headers, referenced with the route\'s own description', () => {
    let errors = 0;
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          if (Number(status) < 400) continue;
          errors++;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          assert.match(response.$ref ?? '', /^#\/components\/responses\/\w+$/, `${where} repeats its headers inline`);
          assert.deepEqual(Object.keys(response).sort(), ['$ref', 'description'], where);
          assert.ok(resolve(document, response).headers['VID-Request-Id'], `${where}: the shared response has no headers`);
        }
      }
    }
    assert.ok(errors > 500 && Object.keys(document.components.responses).length < 60);
    // The headers once per shared response, not on each of ~950 error responses: 1.5 MB compact before.
    assert.ok(JSON.stringify(document).length < 800_000, `the document is ${JSON.stringify(document).length} bytes`);
  });

  it('shows an example on every response that answers JSON or text (success answers recorded by the contract walk)', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          for (const [type, content] of Object.entries<any>(resolve(document, response).content ?? {})) {
            // Image bytes make no example a reader could use; the event stream's frames are in docs/events.md.
            if (type.startsWith('image/') || type === 'text/event-stream') continue;
            if (content.example === undefined) missing.push(`${method.toUpperCase()} ${path} ${status} ${type}`);
          }
        }
      }
    }
    assert.deepEqual(missing, [], 'record them: VID_RECORD_EXAMPLES=1 VID_TEST_BACKEND=sqlite node scripts/run-tests.mjs test/contract/walk.test.ts');
  });

  it('shows a real answer as an example on every operation that answers a body (recorded by the contract walk)', () => {
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        const media = Object.values<any>(operation.responses).flatMap((response) => Object.values<any>(response.content ?? {}));
        const answersABody = Object.entries<any>(operation.responses).some(([status, response]) => Number(status) < 300 && Object.keys(response.content ?? {}).some((type) => /json|vcard|text\/plain/.test(type)));
        if (answersABody && !media.some((content) => content.example !== undefined)) missing.push(`${method.toUpperCase()} ${path}`);
      }
    }
    assert.deepEqual(missing, [], 'record them: VID_RECORD_EXAMPLES=1 VID_TEST_BACKEND=sqlite node scripts/run-tests.mjs test/contract/walk.test.ts');
    // And each still matches its schema: a changed response shape asks for the examples to be recorded again.
    const contract = createContractChecker(document);
    for (const [path, item] of Object.entries<any>(document.paths)) {
      for (const [method, operation] of Object.entries<any>(item)) {
        for (const [status, response] of Object.entries<any>(operation.responses)) {
          for (const [type, content] of Object.entries<any>(resolve(document, response).content ?? {})) {
            if (content.example === undefined || !/json/.test(type)) continue;
            assert.doesNotThrow(() => contract.check(method.toUpperCase(), path, Number(status), type, content.example), `${method.toUpperCase()} ${path} ${status}: the example no longer matches; record the examples again`);
          }
        }
      }
    }
  });

  it('lints with zero errors under @redocly/cli', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'vid-openapi-')), 'openapi.json');
    writeFileSync(file, JSON.stringify(document));
    // Throws (non-zero exit) on any lint error; the output names the rule and the path.
    const output = execFileSync(join('node_modules', '.bin', 'redocly'), ['lint', file, '--config', 'redocly.yaml', '--format=summary'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    assert.doesNotMatch(output, /error/i);
  });
});
