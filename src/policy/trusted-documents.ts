/**
 * Trusted documents (persisted operations, a safelist): the GraphQL documents a team shipped in its
 * clients, read from manifests at start and on SIGHUP (docs/trusted-documents.md).
 *
 * - `TRUSTED_DOCUMENTS=allow`: every request runs; a listed document (named by its hash, or sent in
 *   full) skips parsing, validation and the cost check: it was parsed and validated once, when the
 *   list was read, and Apollo's document store hands that copy back (its key is the sha256 of the
 *   query text, which is exactly a manifest's id).
 * - `TRUSTED_DOCUMENTS=enforce`: a document that is not listed is refused before it is parsed, with
 *   403 PERSISTED_QUERY_NOT_IN_LIST and no data, unless the caller's key has the `admin` scope (the
 *   explorer sends full documents). Apollo's automatic persisted queries (APQ) are off in this mode:
 *   an APQ cache is not a safelist (anyone may register a hash), so the list replaces it, as Apollo
 *   Router refuses to run safelisting with APQ on.
 *
 * Wire formats: Apollo's `extensions.persistedQuery.sha256Hash` (POST and GET) and the
 * GraphQL-over-HTTP proposal's `documentId` (`sha256:<hex>` or the bare hex). The manifest formats:
 * Apollo's persisted query manifest and GraphQL Code Generator's `persisted-documents.json`.
 *
 * Hand-written: the libraries that do this (GraphQL Yoga's and Hive's persisted-operations plugins)
 * are built for Yoga's or Envelop's pipeline, not Apollo Server's; here the pieces are Apollo's own
 * hooks (its document store and request plugins), a Fastify preHandler and graphql-ws's onSubscribe.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { ApolloServerPlugin, DocumentStore } from '@apollo/server';
import type { FastifyRequest } from 'fastify';
import { parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema } from 'graphql';
import { apolloError } from '../common/graphql/apollo-error';
import type { DocumentCache } from '../common/graphql/document-store';
import { readGetParameters } from '../common/graphql/get-parameters';
import type { TrustedDocumentsMode } from '../config';
import { AppError, BadRequestError, ErrorCode, PersistedQueryNotInListError } from '../errors/app-error';
import type { Caller } from '../modules/auth/api-key.service';
import type { GraphQLContext } from '../modules/context';

/** One listed document. `document` is null when it does not validate against the schema (see `read`). */
export interface TrustedDocument {
  hash: string;
  body: string;
  name: string | null;
  document: DocumentNode | null;
}

/** A manifest that cannot be used: the message names the file and what is wrong, on one line. */
export class TrustedDocumentsError extends Error {
  override name = 'TrustedDocumentsError';
}

/** Why a document was refused, and where: the labels of the refusal counter (bounded). */
export type RefusalReason = 'full_document' | 'unknown_hash';
export type RefusalTransport = 'http' | 'websocket';

/** Tallies read by the metrics at each scrape (telemetry/metrics.ts). */
export interface TrustedDocumentsCounts {
  listed: number;
  refused: Record<`${RefusalReason}:${RefusalTransport}`, number>;
  reloads: { ok: number; failed: number };
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

export const sha256Hex = (text: string): string => crypto.hash('sha256', text, 'hex');

/**
 * The hash a `documentId` names: `sha256:<64 hex>` (the GraphQL-over-HTTP proposal's prefixed form)
 * or the 64 hex digits alone (what GraphQL Code Generator's manifest keys are), any case. Null for
 * anything else (another algorithm, a malformed id).
 */
export function parseDocumentId(id: string): string | null {
  const hex = (id.startsWith('sha256:') ? id.slice('sha256:'.length) : id).toLowerCase();
  return SHA256_HEX.test(hex) ? hex : null;
}

const describe = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : typeof value;

/**
 * The (hash, body, name) entries of one manifest file: Apollo's persisted query manifest
 * (`{"format":"apollo-persisted-query-manifest","version":1,"operations":[{id,body,name,type}]}`) or
 * GraphQL Code Generator's `{"<hash>": "<document>"}`. Every hash must be the sha256 of its body (the
 * hash clients send is the only name a document has, so a wrong one would serve the wrong document
 * or none): a mismatch rejects the whole file.
 */
export function readManifest(file: string): { hash: string; body: string; name: string | null }[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new TrustedDocumentsError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? error})`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new TrustedDocumentsError(`${file}: not JSON (${(error as Error).message})`);
  }
  const fail = (what: string) => new TrustedDocumentsError(`${file}: ${what}`);
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    throw fail(
      `expected a JSON object (an Apollo persisted query manifest or a {"<hash>": "<document>"} map), got ${describe(json)}`,
    );
  }
  const record = json as Record<string, unknown>;
  const entries: { hash: string; body: string; name: string | null; where: string }[] = [];
  if ('format' in record || 'operations' in record) {
    if (record.format !== 'apollo-persisted-query-manifest') {
      throw fail(`"format" must be "apollo-persisted-query-manifest", got ${JSON.stringify(record.format)}`);
    }
    if (record.version !== 1) throw fail(`"version" must be 1, got ${JSON.stringify(record.version)}`);
    if (!Array.isArray(record.operations))
      throw fail(`"operations" must be an array, got ${describe(record.operations)}`);
    record.operations.forEach((op: unknown, i) => {
      const o = (op ?? {}) as Record<string, unknown>;
      if (typeof o.id !== 'string' || typeof o.body !== 'string') {
        throw fail(`operations[${i}] must have a string "id" and a string "body"`);
      }
      const name = typeof o.name === 'string' ? o.name : null;
      entries.push({ hash: o.id, body: o.body, name, where: `operations[${i}]${name ? ` (${name})` : ''}` });
    });
  } else {
    for (const [hash, body] of Object.entries(record)) {
      if (typeof body !== 'string')
        throw fail(`the value of "${hash}" must be a GraphQL document (a string), got ${describe(body)}`);
      entries.push({ hash, body, name: null, where: `"${hash}"` });
    }
  }
  return entries.map(({ hash: id, body, name, where }) => {
    // GraphQL Code Generator's client preset writes `sha256:<hex>` keys, Apollo's manifest bare hex.
    const hash = parseDocumentId(id);
    if (!hash) {
      throw fail(`${where}: the id must be a sha256 hash (64 hex digits, or sha256:<64 hex digits>), got "${id}"`);
    }
    const actual = sha256Hex(body);
    if (actual !== hash) {
      throw fail(`${where}: the id ${hash} is not the sha256 of its body (${actual}); regenerate the manifest`);
    }
    return { hash, body, name };
  });
}

/** Parses and validates listed documents: one parse per document per (re)load, never per request. */
function prepare(
  schema: GraphQLSchema,
  entries: { file: string; hash: string; body: string; name: string | null }[],
): {
  byHash: Map<string, TrustedDocument>;
  invalid: { file: string; hash: string; name: string | null; error: string }[];
} {
  const byHash = new Map<string, TrustedDocument>();
  const invalid: { file: string; hash: string; name: string | null; error: string }[] = [];
  for (const { file, hash, body, name } of entries) {
    if (byHash.has(hash)) continue; // the same hash is the same body
    let document: DocumentNode;
    try {
      document = parse(body);
    } catch (error) {
      throw new TrustedDocumentsError(
        `${file}: document ${hash}${name ? ` (${name})` : ''} is not GraphQL: ${(error as Error).message}`,
      );
    }
    // The schema's own rules only: the operator trusts these documents, so the depth, alias and cost
    // limits (which protect from unknown callers) do not apply to them.
    const errors = validate(schema, document, specifiedRules);
    if (errors.length > 0) invalid.push({ file, hash, name, error: errors[0]!.message });
    byHash.set(hash, { hash, body, name, document: errors.length > 0 ? null : document });
  }
  return { byHash, invalid };
}

/** What a request (or subscribe message) asks for, before anything is parsed. */
type Reference =
  | { kind: 'full'; query: string; persistedHash: string | null }
  | { kind: 'hash'; hash: string; via: 'documentId' | 'persistedQuery' }
  | { kind: 'none' };

/** An operation as it arrives: a POST body (or one element of a batch), GET's query string, a subscribe payload. */
interface WireOperation {
  query?: unknown;
  documentId?: unknown;
  extensions?: unknown;
}

function persistedHashOf(extensions: unknown): string | null {
  const pq = (extensions as { persistedQuery?: { sha256Hash?: unknown } } | null | undefined)?.persistedQuery;
  return typeof pq?.sha256Hash === 'string' ? pq.sha256Hash.toLowerCase() : null;
}

/** Reads the reference of one operation; throws BAD_REQUEST for a malformed one. */
function referenceOf(op: WireOperation): Reference {
  const query = typeof op.query === 'string' && op.query !== '' ? op.query : null;
  if (op.documentId !== undefined && op.documentId !== null) {
    if (query) throw new BadRequestError('Send either "query" or "documentId", not both');
    if (typeof op.documentId !== 'string') throw new BadRequestError('"documentId" must be a string');
    const hash = parseDocumentId(op.documentId);
    if (!hash) {
      throw new BadRequestError(
        '"documentId" must be "sha256:<64 hex digits>" or the 64 hex digits of the sha256 hash',
      );
    }
    return { kind: 'hash', hash, via: 'documentId' };
  }
  const persistedHash = persistedHashOf(op.extensions);
  if (query) return { kind: 'full', query, persistedHash };
  if (persistedHash) return { kind: 'hash', hash: persistedHash, via: 'persistedQuery' };
  return { kind: 'none' };
}

/**
 * GET's query string as an operation, read as Apollo reads it (get-parameters.ts: read otherwise,
 * `?query=<unlisted>#&query=x` was two `query` values here, no document named, and one to Apollo,
 * which ran it). What Apollo refuses is refused; `extensions` arrives as JSON text (unreadable JSON:
 * Apollo answers it).
 */
function getOperation(url: string): WireOperation {
  const read = readGetParameters(url);
  if (!read.ok) throw new BadRequestError(read.problem);
  const { query, documentId, extensions: text } = read.values;
  let extensions: unknown;
  if (text !== undefined) {
    try {
      extensions = JSON.parse(text);
    } catch {
      extensions = undefined;
    }
  }
  return { query, documentId, extensions };
}

const isAdmin = (caller: Caller | null): boolean => caller?.scopes.includes('admin') ?? false;

class PersistedQueryNotFoundError extends AppError {
  constructor(hash: string) {
    super(ErrorCode.PERSISTED_QUERY_NOT_FOUND, 404, `No trusted document has the hash ${hash}`);
  }
}

export interface TrustedDocumentsOptions {
  mode: Exclude<TrustedDocumentsMode, 'off'>;
  files: string[];
  schema: GraphQLSchema;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/**
 * The trusted list of this process and every hook that applies it. Built at start (throws
 * TrustedDocumentsError, so a bad file stops the start) and re-read by `reload()` (SIGHUP). A reload
 * swaps one map: a request already past the check keeps the document it resolved.
 */
export class TrustedDocuments {
  readonly mode: TrustedDocumentsOptions['mode'];
  #byHash: Map<string, TrustedDocument>;
  /** Documents parsed and validated from the list: the cost check skips exactly these. */
  #trusted = new WeakSet<DocumentNode>();
  readonly #counts: TrustedDocumentsCounts = {
    listed: 0,
    refused: {
      'full_document:http': 0,
      'unknown_hash:http': 0,
      'full_document:websocket': 0,
      'unknown_hash:websocket': 0,
    },
    reloads: { ok: 0, failed: 0 },
  };

  /** Called after each successful reload (subscriptions.ts re-checks the open subscriptions). */
  readonly #reloaded: (() => void)[] = [];

  constructor(private readonly options: TrustedDocumentsOptions) {
    this.mode = options.mode;
    this.#byHash = this.read();
  }

  /** Reads and checks every file; throws TrustedDocumentsError. */
  private read(): Map<string, TrustedDocument> {
    const entries = this.options.files.flatMap((file) => readManifest(file).map((e) => ({ ...e, file })));
    const { byHash, invalid } = prepare(this.options.schema, entries);
    for (const { file, hash, name, error } of invalid) {
      // Listed, but the schema changed under it: it runs through the usual pipeline and gets the
      // validation error any client would (better than refusing to start over one stale operation).
      this.options.log.warn({ file, hash, name, error }, 'trusted document does not validate against the schema');
    }
    for (const doc of byHash.values()) if (doc.document) this.#trusted.add(doc.document);
    this.#counts.listed = byHash.size;
    return byHash;
  }

  /** Re-reads the files; on any error the current list stays and the error is thrown. */
  reload(): number {
    try {
      this.#byHash = this.read();
    } catch (error) {
      this.#counts.reloads.failed++;
      throw error;
    }
    this.#counts.reloads.ok++;
    for (const listener of this.#reloaded) listener();
    return this.#byHash.size;
  }

  /** `listener` runs after every successful reload, once the new list is in use. */
  onReload(listener: () => void): void {
    this.#reloaded.push(listener);
  }

  get size(): number {
    return this.#byHash.size;
  }

  get counts(): TrustedDocumentsCounts {
    return this.#counts;
  }

  get(hash: string): TrustedDocument | undefined {
    return this.#byHash.get(hash);
  }

  /** Whether `document` is a listed one, parsed and validated at load (limits.ts skips its cost check). */
  isTrusted(document: DocumentNode): boolean {
    return this.#trusted.has(document);
  }

  /**
   * The listed document one operation of a request names (by `documentId`, by a persisted-query hash,
   * or by sending a listed text in full), as parsed and validated at load; null when it names none.
   * Apollo runs exactly this document (its document store hands it back), so the cost budget charges
   * a batch by it (cost-budget.ts): a batch of hashes has no text of its own to cost.
   */
  listedDocument(op: unknown): DocumentNode | null {
    if (!op || typeof op !== 'object') return null;
    let ref: Reference;
    try {
      ref = referenceOf(op as WireOperation);
    } catch {
      return null; // the guard refused it already
    }
    if (ref.kind === 'none') return null;
    return this.#byHash.get(ref.kind === 'full' ? sha256Hex(ref.query) : ref.hash)?.document ?? null;
  }

  /**
   * The refusal of one operation, or null (listed, or the caller may send anything). A refusal is
   * counted under `transport`; null: a re-check of what was admitted before (stillAdmits), not counted.
   */
  private check(ref: Reference, caller: Caller | null, transport: RefusalTransport | null): AppError | null {
    if (ref.kind === 'none') return null;
    const hash = ref.kind === 'full' ? sha256Hex(ref.query) : ref.hash;
    const listed = this.#byHash.has(hash);
    if (!listed && this.mode === 'enforce' && !isAdmin(caller)) {
      const reason: RefusalReason = ref.kind === 'full' ? 'full_document' : 'unknown_hash';
      if (transport) this.#counts.refused[`${reason}:${transport}`]++;
      return new PersistedQueryNotInListError(
        ref.kind === 'full'
          ? 'This server runs only its trusted documents (TRUSTED_DOCUMENTS=enforce), and this document is not one of them'
          : `This server runs only its trusted documents (TRUSTED_DOCUMENTS=enforce), and none has the hash ${hash}`,
      );
    }
    // A text sent with a hash that is not its own, answered as Apollo's APQ answers it in allow mode:
    // in enforce APQ is off (Apollo would say PERSISTED_QUERY_NOT_SUPPORTED), and graphql-ws reads no
    // extensions at all.
    if (ref.kind === 'full' && ref.persistedHash && ref.persistedHash !== hash) {
      return new AppError(ErrorCode.PERSISTED_QUERY_HASH_MISMATCH, 400, 'provided sha does not match query');
    }
    if (listed) return null;
    // Allowed to run something unlisted: a documentId still has to name a listed document (it has no
    // other source), while an unknown persistedQuery hash is Apollo's APQ to answer (allow mode).
    if (ref.kind === 'hash' && ref.via === 'documentId') return new PersistedQueryNotFoundError(hash);
    return null;
  }

  /**
   * Route preHandler of /graphql (POST and GET): every operation of the request, each of a batch,
   * is checked before Apollo sees any, so a batch with one unlisted operation runs none of them.
   */
  readonly guard = async (request: FastifyRequest): Promise<void> => {
    const operations: WireOperation[] =
      request.method === 'GET'
        ? [getOperation(request.url)]
        : Array.isArray(request.body)
          ? (request.body as WireOperation[])
          : request.body && typeof request.body === 'object'
            ? [request.body as WireOperation]
            : [];
    for (const op of operations) {
      if (!op || typeof op !== 'object') continue; // Apollo answers a malformed batch element
      const refused = this.check(referenceOf(op), request.caller, 'http');
      if (refused) throw refused;
    }
  };

  /**
   * Apollo plugin, first of all: puts the listed body in place of a hash, so Apollo finds its
   * parsed and validated copy in the document store (no parse, no validation); drops the
   * `persistedQuery` extension of a listed document (it needs no APQ registration, and APQ is off
   * in enforce mode).
   */
  apolloPlugin(): ApolloServerPlugin<GraphQLContext> {
    return {
      requestDidStart: async (rc) => {
        const http = rc.request.http;
        const op: WireOperation =
          http?.method === 'GET'
            ? { ...rc.request, documentId: new URLSearchParams(http.search).get('documentId') ?? undefined }
            : { ...rc.request, documentId: (http?.body as WireOperation | undefined)?.documentId };
        const ref = referenceOf(op);
        let listed: TrustedDocument | undefined;
        if (ref.kind === 'hash') {
          listed = this.#byHash.get(ref.hash);
          // Checked by the guard; only a reload in between can land here.
          if (!listed && ref.via === 'documentId') throw apolloError(new PersistedQueryNotFoundError(ref.hash));
          if (listed) rc.request.query = listed.body;
        } else if (ref.kind === 'full' && ref.persistedHash) {
          // Only when the hash is the text's (the guard answered a mismatch before Apollo saw it).
          const named = this.#byHash.get(ref.persistedHash);
          if (named?.body === ref.query) listed = named;
        }
        if (listed && rc.request.extensions?.persistedQuery) {
          const { persistedQuery: _dropped, ...rest } = rc.request.extensions;
          rc.request.extensions = rest;
        }
        // Cache headers and ETags: every read's (src/graphql/response-cache.ts), by hash or not.
      },
    };
  }

  /**
   * Apollo's document store, with the listed documents answered from the list: Apollo looks up
   * `<schema hash>:<sha256 of the query text>`, and a manifest id is that sha256. Others are cached in
   * `others` (the gateway's document store, src/common/graphql/document-store.ts).
   */
  documentStore(others: DocumentCache): DocumentStore {
    return {
      get: async (key) => {
        const listed = this.#byHash.get(key.slice(key.lastIndexOf(':') + 1))?.document;
        return listed ?? others.get(key);
      },
      set: async (key, value) => void others.set(key, value),
      delete: async (key) => others.delete(key),
    };
  }

  /**
   * Whether a subscription admitted earlier (its `subscribe` payload) would be admitted by the list
   * in use now: after a reload, an open subscription whose document left the list is ended as a
   * new one would be refused (subscriptions.ts), the way a revoked key's are.
   */
  stillAdmits(payload: WireOperation, caller: Caller | null): boolean {
    try {
      return this.check(referenceOf(payload), caller, null) === null;
    } catch {
      return true; // malformed: it was refused when it came, so it never ran
    }
  }

  /**
   * graphql-ws `subscribe` (src/subscriptions/subscriptions.ts), the same rules as HTTP: a hash
   * (`extensions.persistedQuery.sha256Hash` or `documentId`, with `query: ""` since graphql-ws wants a
   * string) names a listed document; in enforce mode an unlisted one is refused before parsing.
   * Returns the refusal, or the listed document (`document` null: it needs the usual checks), or
   * null for an unlisted document the caller may send.
   */
  forSubscription(payload: WireOperation, caller: Caller | null): AppError | TrustedDocument | null {
    let ref: Reference;
    try {
      ref = referenceOf(payload);
    } catch (error) {
      return error as AppError;
    }
    const refused = this.check(ref, caller, 'websocket');
    if (refused) return refused;
    if (ref.kind === 'none') return null;
    return this.#byHash.get(ref.kind === 'full' ? sha256Hex(ref.query) : ref.hash) ?? null;
  }
}
