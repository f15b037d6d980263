// The state diagram in docs/contacts.md is the state table (src/modules/contacts/states.ts).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { stateDiagram } from '../../src/modules/contacts/states.js';
import { projectRoot } from '../../src/platform/paths.js';

describe('docs/contacts.md', () => {
  it('shows the subscription states exactly as the state table has them', () => {
    const doc = readFileSync(join(projectRoot, 'docs', 'contacts.md'), 'utf8');
    assert.ok(doc.includes(`\`\`\`mermaid\n${stateDiagram()}\n\`\`\``), 'regenerate the diagram from stateDiagram()');
  });
});
