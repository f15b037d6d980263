import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

/**
 * Checks every response of the HTTP suites against the OpenAPI document the server serves:
 * the status must be documented for the operation, and a JSON body must match its schema.
 * So the contract cannot drift from the code.
 */
export interface ContractChecker {
  check(method: string, path: string, status: number, contentType: string | null, body: unknown): void;
}

interface Response {
  $ref?: string;
  content?: Record<string, { schema: unknown }>;
}

interface Operation {
  responses: Record<string, Response>;
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function createContractChecker(document: { paths: Record<string, Record<string, Operation>>; components?: { responses?: Record<string, Response> } }): ContractChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...document, $id: 'openapi.json' } as never);
  // As the router does: a static segment wins over a parameter (/share-links/resolve, not /share-links/{id}).
  const templates = Object.keys(document.paths)
    .map((template) => ({ template, params: (template.match(/\{/g) ?? []).length, regex: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`) }))
    .sort((a, b) => a.params - b.params);
  const compiled = new Map<string, ValidateFunction>();

  return {
    check(method, fullPath, status, contentType, body) {
      const path = fullPath.split('?')[0]!.replace(/^\/api\/v1/, '');
      const match = templates.find((t) => t.regex.test(path));
      if (!match) throw new Error(`contract: ${method} ${path} is not in the OpenAPI document`);
      const operation = document.paths[match.template]?.[method.toLowerCase()];
      if (!operation) throw new Error(`contract: ${method} ${match.template} is not in the OpenAPI document`);
      const listed = operation.responses[String(status)];
      // An error response is a shared component (components/responses/<name>) named by $ref.
      const shared = listed?.$ref?.split('/').pop();
      const response = shared ? document.components?.responses?.[shared] : listed;
      if (!response) throw new Error(`contract: ${method} ${match.template} answered ${status}, which the document does not list`);
      if (!response.content || status === 204) return;
      const mediaType = (contentType ?? '').split(';')[0]!.trim();
      if (!response.content[mediaType]) {
        throw new Error(`contract: ${method} ${match.template} ${status} answered ${mediaType}, documented: ${Object.keys(response.content).join(', ')}`);
      }
      const pointer = (shared ? ['components', 'responses', shared] : ['paths', match.template, method.toLowerCase(), 'responses', String(status)]).concat(['content', mediaType, 'schema']).map(escapePointer).join('/');
      let validate = compiled.get(pointer);
      if (!validate) {
        validate = ajv.compile({ $ref: `openapi.json#/${pointer}` });
        compiled.set(pointer, validate);
      }
      if (!validate(body)) {
        throw new Error(`contract: ${method} ${match.template} ${status} body does not match: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 500)}`);
      }
    },
  };
}
