import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * STRATUS_PRODUCT_WORD: clients built for another product word than `compute` use theirs, at the
 * HTTP edge only (README.md, Configuration). Requests under `/v4` (and `/v4beta`) are translated to
 * `compute` before routing and validation; their JSON answers, scope headers and the OpenAPI
 * document are translated back. No service sees the word, `compute` keeps working, and nothing
 * here is installed when the setting is off.
 *
 * What is translated is the API's own vocabulary only:
 * - path: the segment after `/v4` (`/v4/W/instances`), `images/W/<name>`, `managed/W-settings`;
 * - request bodies and query strings: a property whose name is not in the route's schema but
 *   whose translation is (`W_id` → `compute_id`, `add_Ws` → `add_computes`); a property where
 *   the schema does not describe the object (a free-form map) is never renamed;
 * - values of vocabulary fields (`type`, `action`, `service_type`, `billing_source`, `entity.type`:
 *   `W`, `W_create`; `scopes`: `W:read_write`; `url`: `/v4/W/...`; an error's `field`; public
 *   image ids `W/debian12` in `image`, `images`, `id`);
 * - X-Filter keys, `+order_by` and the values of the vocabulary fields above;
 * - answers: property names, the same vocabulary values, X-OAuth-Scopes and
 *   X-Accepted-OAuth-Scopes; `/v4/openapi.json` as a whole (it is the server's own text);
 * - the catalogue's own wording, by operation (CATALOGUE_TEXT): the `label` of instance types
 *   (`Compute 2GB` is `W 2GB`), kernels (`6.2.9-x86_64-compute160`), regions and the price
 *   catalogues, in answers, and X-Filter values on those fields, so a filter matches what the
 *   answer shows.
 * Every other label (the user's: instances, volumes, tags, private images...), tags,
 * descriptions, scripts, object keys and bytes are never touched.
 */

const CANON = 'compute';
/** Fields whose values are enum-like words of the API (entity types, event actions, ...). */
const VOCAB_VALUES = new Set([
  'type',
  'action',
  'service_type',
  'billing_source',
  'entity.type',
  'created_by',
  'interface_generation',
  'entity_type',
]);
/** Fields whose values are words of the API joined by `_`, the word among them anywhere. */
const TOKEN_VALUES = new Set(['interfaces_for_new_computes']);
/** Lists of capability names: `Computes`, `GPU Computes` are the word capitalized. */
const CAPABILITIES = new Set(['capabilities', 'available', 'unavailable']);
/** Fields holding maintenance policy slugs: the real ones are `compute/<name>`. */
const POLICY_IDS = new Set(['maintenance_policy', 'maintenance_policy_set', 'slug']);
/** Fields holding image ids: public images are `compute/<name>`. */
const IMAGE_IDS = new Set(['image', 'images', 'id', 'base_image', 'kernel']);
/**
 * Operations answering only records of the shipped catalogue, and their fields of catalogue-owned
 * text: the real service's wording has the word there (`W 2GB`, kernels `…-x86_64-W160`);
 * Stratus ships `compute`. The price catalogues and regions hold no `compute` today; they are
 * listed so that a label that gets one is answered and filtered alike. Images are not here: a listing mixes the user's
 * private images with the public ones (whose label, vendor and description hold no `compute`, as
 * a test checks), and a filter cannot tell them apart by field. Labels only at the top of a record.
 */
const CATALOGUE_TEXT: ReadonlyMap<string, readonly string[]> = new Map(
  [
    'getComputeTypes',
    'getComputeType',
    'getKernels',
    'getKernel',
    'getRegions',
    'getRegion',
    'getVolumeTypes',
    'getNodeBalancerTypes',
    'getObjectStorageTypes',
    'getNetworkTransferPrices',
    'getReservedIpTypes',
  ].map((op) => [op, ['label']]),
);

/** The catalogue-owned text fields of an operation's records, if it answers the catalogue. */
export function catalogueText(operationId: string | undefined): readonly string[] | undefined {
  return operationId === undefined ? undefined : CATALOGUE_TEXT.get(operationId);
}
/** X-Filter operators whose operand is compared to the field's text as is. */
const TEXT_MATCH = new Set(['+contains']);

type Json = unknown;
export interface Schemaish {
  [k: string]: unknown;
  properties?: Record<string, Schemaish>;
  items?: Schemaish | Schemaish[];
  anyOf?: Schemaish[];
  oneOf?: Schemaish[];
  allOf?: Schemaish[];
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The schemas a value may match: a union's branches are all candidates. */
function branches(s: Schemaish | undefined, out: Schemaish[] = []): Schemaish[] {
  if (s === undefined || s === null || typeof s !== 'object') return out;
  out.push(s);
  for (const b of [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])]) branches(b, out);
  return out;
}

function propertyOf(all: Schemaish[], key: string): Schemaish[] | undefined {
  let found: Schemaish[] | undefined;
  for (const s of all) {
    const p = s.properties?.[key];
    if (p === undefined) continue;
    found ??= [];
    found.push(...branches(p));
  }
  return found;
}

function itemsOf(all: Schemaish[]): Schemaish[] {
  const out: Schemaish[] = [];
  for (const s of all) {
    if (Array.isArray(s.items)) for (const i of s.items) branches(i, out);
    else if (s.items) branches(s.items, out);
  }
  return out;
}

export class ProductWord {
  readonly word: string;
  private readonly keyIn: RegExp;
  private readonly keyOut = /(^|[_.])compute(s?)(?=[_.]|$)/g;
  private readonly valueIn: RegExp;
  private readonly valueOut = /^compute(?=$|_)/;
  private readonly tokenIn: RegExp;
  private readonly tokenOut = /(^|_)compute(?=_|$)/g;
  private readonly capitalIn: RegExp;
  private readonly capitalOut = /(?<![A-Za-z])Compute(?=s?(?![A-Za-z]))/g;
  private readonly capital: string;
  private readonly scopeIn: RegExp;
  private readonly imageIn: RegExp;
  private readonly imageOut = /^compute\//;
  private readonly idWordIn: RegExp;
  /** A path segment that starts a public id: `W` (a raw slash follows) or `W%2F…`. */
  private readonly idSegIn: RegExp;
  private readonly idWordOut = /(?<![A-Za-z])compute(?![A-Za-z])/g;
  private readonly scopeOut = /(^|[\s,])compute(s?)(?=:)/g;
  /** Scope headers already translated (`outScopes`). */
  private readonly scopesOut = new Map<string, string>();
  private readonly urlOut = /^\/v4(beta)?\/compute(?=\/|$|\?)/;
  private readonly docOut = /(?<![A-Za-z])compute(?=s?(?![A-Za-z]))/g;
  /** The word in catalogue text: standalone (digits may touch it), in any of its three cases. */
  private readonly textOut = /(?<![A-Za-z])(compute|Compute|COMPUTE)(?=[sS]?(?![A-Za-z]))/g;
  private readonly textIn: RegExp;
  private readonly toWord: Record<string, string>;
  private readonly toCanon: Record<string, string>;

  constructor(word: string) {
    this.word = word;
    const w = escapeRe(word);
    this.keyIn = new RegExp(`(^|[_.])${w}(s?)(?=[_.]|$)`, 'g');
    this.valueIn = new RegExp(`^${w}(?=$|_)`);
    this.tokenIn = new RegExp(`(^|_)${w}(?=_|$)`, 'g');
    this.capital = word.charAt(0).toUpperCase() + word.slice(1);
    this.capitalIn = new RegExp(`(?<![A-Za-z])${escapeRe(this.capital)}(?=s?(?![A-Za-z]))`, 'g');
    this.imageIn = new RegExp(`^${w}/`);
    this.idWordIn = new RegExp(`(?<![A-Za-z])${w}(?![A-Za-z])`, 'g');
    this.idSegIn = new RegExp(`^${w}(?:$|%2[fF])`);
    this.scopeIn = new RegExp(`(^|[\\s,])${w}(s?)(?=:)`, 'g');
    const upper = word.toUpperCase();
    this.textIn = new RegExp(
      `(?<![A-Za-z])(${[...new Set([w, escapeRe(this.capital), escapeRe(upper)])].join('|')})(?=[sS]?(?![A-Za-z]))`,
      'g',
    );
    this.toWord = { compute: word, Compute: this.capital, COMPUTE: upper };
    // A word without letters has one form for all three: the catalogue's `Compute`.
    this.toCanon = { [upper]: 'COMPUTE', [word]: CANON, [this.capital]: 'Compute' };
  }

  /** Catalogue text in the word: `Compute 2GB` → `W 2GB`, `x86_64-compute160` → `x86_64-W160`. */
  textToWord(text: string): string {
    return text.replace(this.textOut, (m) => this.toWord[m] ?? m);
  }

  /** Catalogue text as Stratus ships it: the word (any of its three cases) is `compute`. */
  textToCanon(text: string): string {
    return text.replace(this.textIn, (m) => this.toCanon[m] ?? m);
  }

  // ---- requests -------------------------------------------------------------------------

  /** Before routing: `/v4/W/...` and `/v4/managed/W-settings...` name `compute`. */
  inUrl(url: string): string {
    if (!url.startsWith('/v4')) return url;
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const segs = path.split('/');
    // ['', 'v4', seg2, seg3, ...]
    if (segs[1] !== 'v4' && segs[1] !== 'v4beta') return url;
    let changed = false;
    if (segs[2] === this.word) {
      segs[2] = CANON;
      changed = true;
      // A public kernel's id, `W/…-x86_64-W160`, its slash raw or encoded.
      if (segs[3] === 'kernels' && segs[4] !== undefined && this.idSegIn.test(segs[4]))
        for (let i = 4; i < segs.length; i++)
          segs[i] = (segs[i] as string).replace(this.idWordIn, CANON);
    } else if (segs[2] === 'images' && segs[3] !== undefined && this.idSegIn.test(segs[3])) {
      segs[3] = `${CANON}${segs[3].slice(this.word.length)}`;
      changed = true;
    } else if (segs[2] === 'managed' && segs[3]?.startsWith(`${this.word}-settings`)) {
      segs[3] = `${CANON}${segs[3].slice(this.word.length)}`;
      changed = true;
    }
    return changed ? segs.join('/') + (q < 0 ? '' : url.slice(q)) : url;
  }

  private keyToCanon(key: string): string {
    return key.replace(this.keyIn, `$1${CANON}$2`);
  }

  private valueToCanon(key: string, value: string): string {
    if (VOCAB_VALUES.has(key)) return value.replace(this.valueIn, CANON);
    if (TOKEN_VALUES.has(key)) return value.replace(this.tokenIn, `$1${CANON}`);
    if (CAPABILITIES.has(key)) return value.replace(this.capitalIn, 'Compute');
    if (POLICY_IDS.has(key)) return value.replace(this.imageIn, `${CANON}/`);
    if (IMAGE_IDS.has(key) && this.imageIn.test(value)) return value.replace(this.idWordIn, CANON);
    if (key === 'scopes') return value.replace(this.scopeIn, `$1${CANON}$2`);
    return value;
  }

  /**
   * A request's body or query, guided by the route's schema: a name the schema does not know is
   * renamed only when its translation is one it knows.
   */
  inTree(value: Json, schema: Schemaish | undefined): Json {
    return this.inNode(value, branches(schema));
  }

  private inNode(value: Json, all: Schemaish[]): Json {
    if (Array.isArray(value)) {
      const items = itemsOf(all);
      if (items.length === 0) return value;
      for (let i = 0; i < value.length; i++) value[i] = this.inNode(value[i], items);
      return value;
    }
    if (value === null || typeof value !== 'object') return value;
    if (!all.some((s) => s.properties !== undefined)) return value;
    const obj = value as Record<string, Json>;
    for (const key of Object.keys(obj)) {
      let name = key;
      let prop = propertyOf(all, key);
      if (prop === undefined) {
        const canon = this.keyToCanon(key);
        const canonProp = canon === key ? undefined : propertyOf(all, canon);
        if (canonProp !== undefined && !(canon in obj)) {
          obj[canon] = obj[key];
          delete obj[key];
          name = canon;
          prop = canonProp;
        }
      }
      const v = obj[name];
      if (typeof v === 'string') obj[name] = this.valueToCanon(name, v);
      else if (Array.isArray(v) && (name === 'scopes' || name === 'images'))
        obj[name] = v.map((x) => (typeof x === 'string' ? this.valueToCanon(name, x) : x));
      else if (prop !== undefined) obj[name] = this.inNode(v, prop);
    }
    return obj;
  }

  /**
   * X-Filter: keys, `+order_by` and vocabulary values; with `text` (the operation's catalogue
   * text fields, `catalogueText`), the values of those fields too.
   */
  inFilter(header: string, text?: readonly string[]): string {
    let parsed: Json;
    try {
      parsed = JSON.parse(header);
    } catch {
      return header; // the route's own check answers the malformed filter
    }
    return JSON.stringify(this.inFilterNode(parsed, undefined, text));
  }

  private inFilterNode(value: Json, key: string | undefined, text?: readonly string[]): Json {
    if (Array.isArray(value)) return value.map((v) => this.inFilterNode(v, key, text));
    if (typeof value === 'string') {
      if (key === '+order_by') return this.keyToCanon(value);
      return key === undefined ? value : this.valueToCanon(key, value);
    }
    if (value === null || typeof value !== 'object') return value;
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value as Record<string, Json>)) {
      // Operators (`+or`, `+contains`, ...) keep the field they apply to.
      const canon = k.startsWith('+') ? k : this.keyToCanon(k);
      if (text?.includes(canon) && key === undefined) out[canon] = this.textFilter(v);
      else
        out[canon] = this.inFilterNode(
          v,
          k.startsWith('+') && k !== '+order_by' ? key : canon,
          text,
        );
    }
    return out;
  }

  /**
   * The condition on a catalogue text field, for the text as Stratus ships it. The answer shows
   * the shipped text with `compute` in the word, so a value the client sends matches a record if
   * the record's text holds it as sent (the word's own letters in the catalogue stay as they are)
   * or with the word as `compute`: equality and `+contains` become an `+or` of both, `+neq` an
   * `+and` of both. A value without the word, and anything that is not a text operand, is left as
   * sent (the filter's own checks answer it).
   */
  private textFilter(value: Json): Json {
    if (typeof value === 'string') {
      const canon = this.textToCanon(value);
      return canon === value ? value : { '+or': [value, canon] };
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const parts: Json[] = [];
    let changed = false;
    for (const [op, operand] of Object.entries(value as Record<string, Json>)) {
      if ((op === '+or' || op === '+and') && Array.isArray(operand)) {
        const inner = operand.map((x) => this.textFilter(x));
        changed ||= inner.some((x, i) => x !== operand[i]);
        parts.push({ [op]: inner });
        continue;
      }
      const canon = typeof operand === 'string' ? this.textToCanon(operand) : operand;
      if (canon === operand) {
        parts.push({ [op]: operand });
        continue;
      }
      changed = true;
      if (TEXT_MATCH.has(op)) parts.push({ '+or': [{ [op]: operand }, { [op]: canon }] });
      else if (op === '+neq') parts.push({ '+and': [{ [op]: operand }, { [op]: canon }] });
      // Comparisons (`+gt`...) order by the shipped text.
      else parts.push({ [op]: canon });
    }
    if (!changed) return value;
    return parts.length === 1 ? parts[0] : { '+and': parts };
  }

  // ---- answers --------------------------------------------------------------------------

  private keyToWord(key: string): string {
    return key.indexOf(CANON) < 0 ? key : key.replace(this.keyOut, `$1${this.word}$2`);
  }

  private valueToWord(key: string, value: string): string {
    if (CAPABILITIES.has(key)) return value.replace(this.capitalOut, this.capital);
    // An error's words, as the live service's name the product: `Compute not found`, `compute_id
    // is required`, `a compute instance` (never inside another word: `computed`).
    if (key === 'reason')
      return value.replace(this.capitalOut, this.capital).replace(this.docOut, this.word);
    if (value.indexOf(CANON) < 0) return value;
    if (VOCAB_VALUES.has(key)) return value.replace(this.valueOut, this.word);
    if (TOKEN_VALUES.has(key)) return value.replace(this.tokenOut, `$1${this.word}`);
    if (POLICY_IDS.has(key)) return value.replace(this.imageOut, `${this.word}/`);
    // Public image and kernel ids: `compute/debian12`, `compute/6.2.9-x86_64-compute160`.
    if (IMAGE_IDS.has(key) && this.imageOut.test(value))
      return value.replace(this.idWordOut, this.word);
    if (key === 'scopes') return value.replace(this.scopeOut, `$1${this.word}$2`);
    if (key === 'url') return value.replace(this.urlOut, `/v4$1/${this.word}`);
    if (key === 'field') return this.keyToWord(value);
    return value;
  }

  /**
   * An answer of an operation of the catalogue (`catalogueText`): its records' text fields in
   * the word, in place. A page's records are its `data`; a single record is the answer itself.
   */
  outCatalogue(value: Json, fields: readonly string[]): Json {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const data = (value as { data?: unknown }).data;
    const records = Array.isArray(data) ? data : [value];
    for (const r of records) {
      if (r === null || typeof r !== 'object') continue;
      const rec = r as Record<string, Json>;
      for (const f of fields) {
        const v = rec[f];
        if (typeof v === 'string') rec[f] = this.textToWord(v);
      }
    }
    return value;
  }

  /** A JSON answer of the API, translated in place. */
  outTree(value: Json, key = ''): Json {
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.outTree(value[i], key);
      return value;
    }
    if (typeof value === 'string') return this.valueToWord(key, value);
    if (value === null || typeof value !== 'object') return value;
    const obj = value as Record<string, Json>;
    let renamed = false;
    for (const k of Object.keys(obj)) {
      obj[k] = this.outTree(obj[k], k);
      if (k.indexOf(CANON) >= 0) renamed = true;
    }
    if (!renamed) return obj;
    // Rebuild to keep the order of the properties.
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(obj)) out[this.keyToWord(k)] = v;
    return out;
  }

  /**
   * A JSON answer's text, translated as `outTree` translates the parsed answer, without parsing
   * it: only the strings that hold `compute` or `Compute` are found (a search of the text), each
   * with its context read around it (a name, or the value of which name: for a string in an
   * array, the array's), decoded, translated and written again. Everything else is copied as it
   * was, so an answer costs a search rather than a parse and a serialization. The text must be
   * JSON (an answer's serializer made it); where it is not, this throws.
   */
  outText(text: string): string {
    let out = '';
    let copied = 0;
    let at = text.indexOf('ompute');
    while (at >= 0) {
      // Inside a string (JSON has no other letters but true, false and null): its quotes.
      const open = quoteBefore(text, at - 1);
      const close = quoteAfter(text, at);
      if (open < 0 || close < 0) throw new Error('not JSON');
      const str = decodeString(text, open, close);
      const word =
        text.charCodeAt(skipSpace(text, close + 1, 1)) === COLON
          ? this.keyToWord(str)
          : this.valueToWord(nameOf(text, open), str);
      if (word !== str) {
        out += text.slice(copied, open) + JSON.stringify(word);
        copied = close + 1;
      }
      at = text.indexOf('ompute', close + 1);
    }
    return copied === 0 ? text : out + text.slice(copied);
  }

  outScopes(header: string): string {
    // A server sends a few distinct scope strings (a route's accepted scopes, a token's scopes):
    // each is translated once.
    let out = this.scopesOut.get(header);
    if (out === undefined) {
      out = header.replace(this.scopeOut, `$1${this.word}$2`);
      if (this.scopesOut.size >= 1024) this.scopesOut.clear();
      this.scopesOut.set(header, out);
    }
    return out;
  }

  /** The OpenAPI document is the server's own text: every standalone `compute` is the word. */
  outDocument(text: string): string {
    return text.replace(this.docOut, this.word);
  }
}

const QUOTE = 34;
const COLON = 58;
const BACKSLASH = 92;

/** The JSON string from the quote at `open` to the one at `close`, decoded. */
function decodeString(text: string, open: number, close: number): string {
  const inner = text.slice(open + 1, close);
  return inner.indexOf('\\') < 0 ? inner : (JSON.parse(text.slice(open, close + 1)) as string);
}

/** Whether the quote at `q` is escaped (an odd number of backslashes before it). */
function escapedAt(text: string, q: number): boolean {
  let n = 0;
  for (let i = q - 1; i >= 0 && text.charCodeAt(i) === BACKSLASH; i--) n++;
  return n % 2 === 1;
}

/** The last unescaped quote at or before `i` (-1: none). */
function quoteBefore(text: string, i: number): number {
  for (let q = text.lastIndexOf('"', i); q >= 0; q = text.lastIndexOf('"', q - 1))
    if (!escapedAt(text, q)) return q;
  return -1;
}

/** The first unescaped quote at or after `i` (-1: none). */
function quoteAfter(text: string, i: number): number {
  for (let q = text.indexOf('"', i); q >= 0; q = text.indexOf('"', q + 1))
    if (!escapedAt(text, q)) return q;
  return -1;
}

/** From `i`, the first index (stepping by `step`: 1 or -1) that is not JSON whitespace. */
function skipSpace(text: string, i: number, step: 1 | -1): number {
  let j = i;
  while (j >= 0 && j < text.length) {
    const c = text.charCodeAt(j);
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break;
    j += step;
  }
  return j;
}

/**
 * The name whose value starts at `start` (a string, `[` or `{`), as `outTree` passes it: the
 * member's name in an object, the enclosing array's own name in an array, '' at the top.
 */
function nameOf(text: string, start: number): string {
  const p = skipSpace(text, start - 1, -1);
  if (p < 0) return '';
  const c = text.charCodeAt(p);
  if (c === COLON) {
    const close = skipSpace(text, p - 1, -1);
    return decodeString(text, quoteBefore(text, close - 1), close);
  }
  // `[` or `,`: an element of an array (after a `,` in an object comes a name, never a value).
  return nameOf(text, arrayOpening(text, p));
}

/** The `[` of the array whose element follows `p` (that `[` itself, or a `,` between elements). */
function arrayOpening(text: string, p: number): number {
  if (text.charCodeAt(p) === 91) return p;
  let depth = 0;
  for (let i = p - 1; i >= 0; i--) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = quoteBefore(text, i - 1); // a whole string, read backwards: its opening quote
    } else if (c === 93 || c === 125) depth++;
    else if (c === 91 || c === 123) {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

function underV4(url: string): boolean {
  return url.startsWith('/v4/') || url === '/v4' || url.startsWith('/v4?');
}

/** In the app's onRequest hook: X-Filter in the canonical word. */
export function wordFilter(pw: ProductWord, req: FastifyRequest): void {
  const f = req.headers['x-filter'];
  if (typeof f === 'string' && underV4(req.url))
    req.headers['x-filter'] = pw.inFilter(f, catalogueText(req.routeOptions.config.operationId));
}

/** preValidation of a /v4 route, first: body and query in the canonical word. */
export function wordInHook(pw: ProductWord, schema: { body?: unknown; querystring?: unknown }) {
  return (req: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
    if (req.body !== undefined && schema.body)
      req.body = pw.inTree(req.body, schema.body as Schemaish);
    if (req.query && typeof req.query === 'object' && schema.querystring)
      req.query = pw.inTree(req.query, schema.querystring as Schemaish);
    done();
  };
}

const SCOPE_HEADERS = ['x-oauth-scopes', 'x-accepted-oauth-scopes'] as const;

/**
 * In the app's onSend hook: answers of /v4 in the word (JSON bodies, scope headers, the OpenAPI
 * document). Returns the payload to send.
 */
export function wordOut(
  pw: ProductWord,
  req: FastifyRequest,
  reply: FastifyReply,
  payload: unknown,
): unknown {
  if (!underV4(req.url)) return payload;
  for (const h of SCOPE_HEADERS) {
    const v = reply.getHeader(h);
    if (typeof v === 'string') reply.header(h, pw.outScopes(v));
  }
  const type = reply.getHeader('content-type');
  if (typeof type !== 'string' || !type.includes('json')) return payload;
  // Cached pages (the events feed) are sent as bytes.
  const text = Buffer.isBuffer(payload) ? payload.toString('utf8') : payload;
  if (typeof text !== 'string') return payload;
  if (req.url === '/v4/openapi.json' || req.url.startsWith('/v4/openapi.json?'))
    return pw.outDocument(text);
  // Most answers hold no form of the word: they leave as they are, without a look at the route.
  const plain = text.indexOf(CANON) < 0 && text.indexOf('Compute') < 0;
  if (plain && text.indexOf('COMPUTE') < 0) return payload;
  const catalogue =
    reply.statusCode < 300 ? catalogueText(req.routeOptions.config.operationId) : undefined;
  if (plain && catalogue === undefined) return payload;
  // Answers other than the catalogue's records are translated on their text (`outText`).
  if (catalogue === undefined) {
    try {
      return pw.outText(text);
    } catch {
      return payload; // not JSON after all (a string with a bad escape): sent as it is
    }
  }
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    return payload;
  }
  pw.outCatalogue(parsed, catalogue);
  return JSON.stringify(pw.outTree(parsed));
}
