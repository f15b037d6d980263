// Reads an XML property list (Apple's plist DTD) into plain values with @xmldom/xmldom, for the
// tests of the configuration profile the web app writes (web/src/ui/mobileconfig.ts). Reads only
// what a profile holds: dict, array, string, integer, true and false; anything else throws.
import { DOMParser } from '@xmldom/xmldom';
import type { Element } from '@xmldom/xmldom';

export type Plist = string | number | boolean | Plist[] | { [key: string]: Plist };

const children = (node: Element): Element[] => Array.from(node.childNodes as unknown as ArrayLike<Element>).filter((n) => n.nodeType === 1);

function read(node: Element): Plist {
  switch (node.tagName) {
    case 'string':
      return node.textContent ?? '';
    case 'integer':
      return Number.parseInt(node.textContent ?? '', 10);
    case 'true':
      return true;
    case 'false':
      return false;
    case 'array':
      return children(node).map(read);
    case 'dict': {
      const items = children(node);
      const out: Record<string, Plist> = {};
      for (let i = 0; i < items.length; i += 2) {
        if (items[i]!.tagName !== 'key' || !items[i + 1]) throw new Error(`a dict entry without its key or value at ${i}`);
        out[items[i]!.textContent ?? ''] = read(items[i + 1]!);
      }
      return out;
    }
    default:
      throw new Error(`not in a configuration profile: <${node.tagName}>`);
  }
}

/** The top value of a plist document; throws on XML that does not parse. */
export function parsePlist(xml: string): Plist {
  const document = new DOMParser({ onError: (level, message) => { if (level !== 'warning') throw new Error(message); } }).parseFromString(xml, 'text/xml');
  const root = document.documentElement;
  if (!root || root.tagName !== 'plist') throw new Error('not a plist');
  const [top] = children(root);
  if (!top) throw new Error('an empty plist');
  return read(top);
}
