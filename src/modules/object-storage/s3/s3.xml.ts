import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { s3errors } from './s3.errors.js';

export const S3_NS = 'http://s3.amazonaws.com/doc/2006-03-01/';
export const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: false,
  processEntities: true,
});

/** Elements that are lists in the request documents S3 takes. */
const LISTS = new Set([
  'Part',
  'Object',
  'CORSRule',
  'Grant',
  'AllowedOrigin',
  'AllowedMethod',
  'AllowedHeader',
  'ExposeHeader',
  'Rule',
  'Tag',
  'RoutingRule',
  'And',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  // Kept as sent, then tidied (below): S3 keeps an object key's spaces (`' '`, `'_ '` are keys).
  trimValues: false,
  htmlEntities: true,
  isArray: (name) => LISTS.has(name),
});

/** Elements whose text is kept as sent: object keys. Every other text is trimmed. */
const VERBATIM = new Set(['Key']);

/** Drops the whitespace between elements and trims every text but VERBATIM elements'. */
function tidy(v: unknown, name: string): unknown {
  if (typeof v === 'string') return VERBATIM.has(name) ? v : v.trim();
  if (Array.isArray(v)) return v.map((x) => tidy(x, name));
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const hasChildren = Object.keys(o).some((k) => k !== '#text' && !k.startsWith('@_'));
  for (const k of Object.keys(o)) {
    if (k.startsWith('@_')) continue;
    const child = o[k];
    if (k === '#text' && hasChildren && typeof child === 'string' && child.trim() === '')
      delete o[k];
    else o[k] = tidy(child, k === '#text' ? name : k);
  }
  return o;
}

/** An S3 XML document with the root element `root` in the S3 namespace. */
export function xml(root: string, body: Record<string, unknown>, namespaced = true): string {
  const content = namespaced ? { '@_xmlns': S3_NS, ...body } : body;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${builder.build({ [root]: content })}`;
}

/**
 * Parses a request document. Anything that is not well-formed XML, a document type declaration
 * (entities are never expanded) and names that would reach an object's prototype are refused
 * as S3 refuses a bad document: 400 MalformedXML.
 */
export function parseXml(text: string): Record<string, unknown> {
  if (text.trim() === '' || /<!DOCTYPE/i.test(text)) throw s3errors.malformedXml();
  if (XMLValidator.validate(text) !== true) throw s3errors.malformedXml();
  try {
    return tidy(parser.parse(text), '') as Record<string, unknown>;
  } catch {
    throw s3errors.malformedXml();
  }
}

/** The root element of a request document, or MalformedXML when it is another. */
export function rootOf<T>(text: string, root: string): T {
  const doc = parseXml(text)[root];
  if (doc === undefined || doc === null) throw s3errors.malformedXml();
  return (typeof doc === 'string' ? {} : doc) as T;
}

/** A text child of a parsed element (elements with attributes parse as `{'#text': …}`). */
export function text(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && '#text' in v)
    return String((v as { '#text': unknown })['#text']);
  if (v && typeof v === 'object') return '';
  return undefined;
}

export function errorDocument(
  code: string,
  message: string,
  resource: string,
  requestId: string,
  extra: Record<string, string>,
): string {
  return xml(
    'Error',
    { Code: code, Message: message, ...extra, Resource: resource, RequestId: requestId },
    false,
  );
}
