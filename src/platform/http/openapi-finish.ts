// The last pass over the generated OpenAPI document: what the route schemas leave generic is
// said in words a reader (and a generator's doc comments) can use. A success response whose
// route gave no description reads "Default Response" from @fastify/swagger; here it says what
// comes back, from its status and the schema it answers (OpenAPI 3.1 §4.8.17: description is
// REQUIRED, and it is what generators put above the method). Inline request bodies get names.
// And each operation shows a real
// answer as its example: the contract walk records them (VID_RECORD_EXAMPLES=1, one per operation,
// of the status it walks to) into openapi-examples.json, so they cannot drift from what is served.
import recordedExamples from './openapi-examples.json' with { type: 'json' };

/** Per `METHOD /path/{template}`, per status: the media type answered and the body. */
type RecordedExamples = Record<string, Record<string, { mediaType: string; value: unknown }>>;

/** Schema names whose words alone say nothing ("the me"). */
const NAMED: Record<string, string> = { Me: 'signed-in account' };

/** `SecurityLogPage` → `security log page`. */
function wordsOf(name: string): string {
  if (NAMED[name]) return NAMED[name];
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase();
}

/** The name of the schema a response answers: its component, or the title a route gave it. */
function schemaName(response: Record<string, any>): string | undefined {
  for (const media of Object.values<Record<string, any>>(response.content ?? {})) {
    const schema = media?.schema ?? {};
    const name = typeof schema.$ref === 'string' ? schema.$ref.split('/').pop() : schema.title;
    if (typeof name === 'string' && name) return name;
  }
  return undefined;
}

/** What a success response answers, in a sentence. */
export function successDescription(status: string, response: Record<string, any>): string {
  const name = schemaName(response);
  const words = name ? wordsOf(name) : undefined;
  const what = !words
    ? undefined
    : / page$/.test(words)
      ? `one page of the ${words.replace(/ page$/, '')} list ({data, next_cursor, has_more}; follow next_cursor while has_more)`
      : / list$/.test(words)
        ? `the whole ${words.replace(/ list$/, '')} list`
        : `the ${words}`;
  switch (status) {
    case '200':
      return what ? `OK: ${what}` : 'OK';
    case '201':
      return what ? `Created: ${what}` : 'Created';
    case '202':
      return what ? `Accepted: ${what}` : 'Accepted';
    case '204':
      return 'Done; no body';
    case '304':
      return 'Not modified: the copy named by If-None-Match is current; no body';
    default:
      return what ? `The ${what}` : `HTTP ${status}`;
  }
}

/**
 * Request bodies written inline by the routes become named components (`createField` →
 * `CreateFieldBody`), so generators emit a named type (CreateFieldBody) instead of an anonymous
 * one per method, and other languages can name what they build.
 */
function nameRequestBodies(document: Record<string, any>): void {
  document.components ??= {};
  document.components.schemas ??= {};
  for (const item of Object.values<Record<string, any>>(document.paths ?? {})) {
    for (const operation of Object.values<Record<string, any>>(item)) {
      const media = operation?.requestBody?.content?.['application/json'];
      if (!media?.schema || media.schema.$ref || typeof operation.operationId !== 'string') continue;
      const name = `${operation.operationId.charAt(0).toUpperCase()}${operation.operationId.slice(1)}Body`;
      if (document.components.schemas[name]) continue;
      document.components.schemas[name] = { title: name, ...media.schema };
      media.schema = { $ref: `#/components/schemas/${name}` };
    }
  }
}

/** Replaces every "Default Response" with what the response answers, and adds the recorded examples. */
export function finishDocument(document: Record<string, any>, examples: RecordedExamples = recordedExamples as RecordedExamples): Record<string, any> {
  nameRequestBodies(document);
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths ?? {})) {
    for (const [method, operation] of Object.entries<Record<string, any>>(item)) {
      const recorded = examples[`${method.toUpperCase()} ${path}`] ?? {};
      for (const [status, response] of Object.entries<Record<string, any>>(operation?.responses ?? {})) {
        if (!response.description || response.description === 'Default Response') response.description = successDescription(status, response);
        const example = recorded[status];
        const media = example && response.content?.[example.mediaType];
        // OpenAPI 3.1 §4.8.14: a Media Type Object's `example`, beside (never inside) its schema.
        if (media) response.content[example.mediaType] = { ...media, example: example.value };
      }
    }
  }
  return document;
}
