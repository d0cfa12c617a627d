/**
 * The lockfile of MCP tool schemas and its gate. A lock holds, per server and auth scope, each tool's
 * description hash, `inputSchema` and `outputSchema` as the server listed them. `prove` checks a live
 * listing against it in the direction that protects the app: every argument the LOCKED input schema
 * accepts, the LIVE one must accept (`Subschema.check(locked, live)`), and every result the LIVE output
 * schema allows, the LOCKED one must allow. A widened input passes; a new required field, a narrowed
 * bound or enum, or a removed tool is drift with a witness; a changed description and a new tool are notes.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { JsonSchema, JsonValue } from "@toolgate/json-schema"
import { DriftGate, Errors } from "@toolgate/runtime"
import { Subschema } from "@toolgate/subschema"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { createHash } from "node:crypto"
import type * as McpConnection from "./McpConnection.js"
import * as Names from "./internal/names.js"
import { sortKeys } from "./internal/sortKeys.js"
import { JsonObject } from "./internal/jsonObject.js"

/** One tool as locked: the hash of its description and its schemas as the server listed them. */
export const LockedTool = Schema.Struct({
  descriptionHash: Schema.String,
  inputSchema: JsonObject,
  outputSchema: Schema.optional(JsonObject)
})

/** One tool as locked. */
export type LockedTool = typeof LockedTool.Type

/**
 * One server under one auth scope: what it said it is when locked, its tools by name, and the listing's
 * `cacheScope` (absent: `"private"`). A `"public"` entry is the same for every caller, so it serves any
 * auth scope the lock has no entry of its own for.
 */
export const LockedServer = Schema.Struct({
  serverInfo: Schema.Struct({ name: Schema.String, version: Schema.String }),
  cacheScope: Schema.optional(Schema.Literal("public", "private")),
  tools: Schema.Record({ key: Schema.String, value: LockedTool })
})

/** One server under one auth scope. */
export type LockedServer = typeof LockedServer.Type

/** The lock file: version 1, servers by key, then by auth scope. */
export const LockFile = Schema.Struct({
  version: Schema.Literal(1),
  servers: Schema.Record({ key: Schema.String, value: Schema.Record({ key: Schema.String, value: LockedServer }) })
})

/** The lock file. */
export type LockFile = typeof LockFile.Type

/** The auth scope a lock entry is under unless one is named. */
export const defaultScope = "default"

/** The largest lock file read: 64 MiB. */
export const maxBytes = 64 * 1024 * 1024

/** The lock file cannot be read or is not a lock, or has no entry for the server and scope asked for. */
export class InvalidLock extends Schema.TaggedError<InvalidLock>()("InvalidLock", {
  path: Schema.String,
  detail: Schema.String
}) {
  /** Where and what. */
  override get message(): string {
    return `The lock ${this.path} cannot be used: ${this.detail}`
  }
}

/** The hash a lock keeps of a description: `sha256:` and its hex digest. */
export const hashDescription = (description: string | undefined): string =>
  `sha256:${createHash("sha256").update(description ?? "", "utf8").digest("hex")}`

/**
 * A server's entry from a live listing (tools whose names MCP does not allow are left out, as everywhere),
 * with the listing's `cacheScope` when given.
 */
export const fromListing = (
  serverInfo: { readonly name: string; readonly version: string },
  tools: ReadonlyArray<McpConnection.McpTool>,
  cacheScope?: McpConnection.CacheScope
): LockedServer => ({
  serverInfo: { name: serverInfo.name, version: serverInfo.version },
  ...(cacheScope === undefined ? {} : { cacheScope }),
  tools: Object.fromEntries(
    tools.filter((t) => Names.isValid(t.name)).map((t) => [t.name, {
      descriptionHash: hashDescription(t.description),
      inputSchema: t.inputSchema,
      ...(t.outputSchema === undefined ? {} : { outputSchema: t.outputSchema })
    }])
  )
})

/** `lock` (or a new lock) with `entry` put under `server` and `scope`, other entries kept. */
export const put = (lock: LockFile | undefined, server: string, scope: string, entry: LockedServer): LockFile => ({
  version: 1,
  servers: { ...lock?.servers, [server]: { ...lock?.servers[server], [scope]: entry } }
})

/**
 * The entry for `server` under `scope`; without one, the server's `"public"` entry under another scope (the
 * default scope first, then by name): a public listing is the same for every caller. A private entry (or one
 * that does not say) is never used for another scope.
 */
export const get = (lock: LockFile, server: string, scope: string): Option.Option<LockedServer> => {
  if (!Object.hasOwn(lock.servers, server)) return Option.none()
  const scopes = lock.servers[server]!
  if (Object.hasOwn(scopes, scope)) return Option.some(scopes[scope]!)
  const others = Object.keys(scopes).sort((a, b) => a === defaultScope ? -1 : b === defaultScope ? 1 : a < b ? -1 : a > b ? 1 : 0)
  return Option.fromNullable(others.map((other) => scopes[other]!).find((entry) => entry.cacheScope === "public"))
}

const decodeLock = Schema.decodeUnknownEither(LockFile, { errors: "all" })

/** Parses a lock file's text (`path` names it in errors). */
export const parse = (text: string, path: string): Either.Either<LockFile, InvalidLock> => {
  if (text.length > maxBytes) return Either.left(new InvalidLock({ path, detail: `it is larger than ${maxBytes} bytes` }))
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (e) {
    return Either.left(new InvalidLock({ path, detail: `it is not JSON (${e instanceof Error ? e.message : String(e)})` }))
  }
  return Either.mapLeft(decodeLock(json), (e) => new InvalidLock({ path, detail: ParseResult.TreeFormatter.formatErrorSync(e) }))
}

/** The lock as text: keys sorted at every level, two-space indented, so a diff shows only what changed. */
export const stringify = (lock: LockFile): string => `${JSON.stringify(sortKeys(lock), null, 2)}\n`

/** Reads and parses the lock at `path` (at most `maxBytes`). */
export const read = Effect.fn("McpLock.read")(function*(path: string) {
  const fs = yield* FileSystem.FileSystem
  const fail = (detail: string) => new InvalidLock({ path, detail })
  const info = yield* fs.stat(path).pipe(Effect.mapError((e) => fail(e.message)))
  if (Number(info.size) > maxBytes) return yield* fail(`it is larger than ${maxBytes} bytes`)
  const text = yield* fs.readFileString(path).pipe(Effect.mapError((e) => fail(e.message)))
  return yield* parse(text, path)
})

/** Writes `lock` to `path`. */
export const write = Effect.fn("McpLock.write")(function*(path: string, lock: LockFile) {
  const fs = yield* FileSystem.FileSystem
  const text = yield* Effect.try({ try: () => stringify(lock), catch: () => new InvalidLock({ path, detail: "a schema is nested too deeply to write" }) })
  yield* fs.writeFileString(path, text).pipe(Effect.mapError((e) => new InvalidLock({ path, detail: e.message })))
})

/** What proving a live listing against a locked entry found. */
export interface Proof {
  /** One verdict per locked tool: proven, drift (a removed tool included) with a witness, or unsupported. */
  readonly rows: ReadonlyArray<DriftGate.ToolVerdict>
  /** Live tools the lock does not have (a note: they are not gated). */
  readonly added: ReadonlyArray<string>
  /** Locked tools whose description changed (a note: reported, not drift). */
  readonly described: ReadonlyArray<string>
  /** Live tools whose names MCP does not allow (left out). */
  readonly badNames: ReadonlyArray<string>
}

/**
 * A schema upgraded for one side of a proof: the side whose values arrive (`cloud`) in its broadest reading
 * (keywords beside a draft-07 `$ref` ignored, as draft-07 says), the side that must accept them (`local`) in its
 * narrowest (applied, as Ajv does), so that a proof holds whichever way the server reads them.
 */
const upgraded = (schema: unknown, side: "cloud" | "local"): JsonSchema.JsonSchema =>
  JsonSchema.upgrade(schema as JsonSchema.JsonSchema, { refSiblings: side === "cloud" ? "ignore" : "apply" }).schema

/** The prover's reasons in the lock's words: its "cloud" and "local" sides named for what they are here. */
const reworded = (reasons: ReadonlyArray<Subschema.Reason>, cloud: string, local: string): ReadonlyArray<Subschema.Reason> =>
  reasons.map((r) => ({ ...r, message: r.message.replace(/\b(the|The) (cloud|local)\b/g, (_, the: string, side: string) => `${the} ${side === "cloud" ? cloud : local}`) }))

/**
 * Whether a live schema is the same JSON as the locked one (object keys in any order). The same schema accepts
 * exactly what it accepts, so containment holds without the prover (which would only reach that answer after
 * upgrading both and writing their canonical text). Both were read from JSON text, so both are JSON.
 */
const same = (locked: unknown, live: unknown): boolean =>
  locked !== undefined && live !== undefined && JsonValue.equals(locked as JsonValue.JsonValue, live as JsonValue.JsonValue)

/** The verdict for one locked tool against its live listing. */
const verdict = (name: string, locked: LockedTool, live: McpConnection.McpTool | undefined): DriftGate.ToolVerdict => {
  if (live === undefined) {
    return { _tag: "Drift", tool: name, witness: {}, reasons: [{ cloudPath: "", localPath: "", message: `removed: the lock has \`${name}\`, the server no longer lists it` }] }
  }
  const input = same(locked.inputSchema, live.inputSchema)
    ? { _tag: "Subtype" as const }
    : Subschema.check(upgraded(locked.inputSchema, "cloud"), upgraded(live.inputSchema, "local"))
  if (input._tag === "Drift") return { ...input, tool: name, reasons: reworded(input.reasons, "locked", "live") }
  if (input._tag === "Unsupported") return { ...input, tool: name }
  if (locked.outputSchema === undefined) return { _tag: "Subtype", tool: name }
  // results flow the other way: what the live server may return, the locked output schema must allow
  if (same(locked.outputSchema, live.outputSchema)) return { _tag: "Subtype", tool: name }
  const output = Subschema.check(live.outputSchema === undefined ? true : upgraded(live.outputSchema, "cloud"), upgraded(locked.outputSchema, "local"))
  if (output._tag === "Drift") {
    const reasons = reworded(output.reasons, "live", "locked").map((r) => ({ ...r, message: `output: ${r.message}` }))
    return { _tag: "Drift", tool: name, witness: output.witness, reasons }
  }
  return output._tag === "Unsupported" ? { ...output, tool: name, path: `output ${output.path}` } : { _tag: "Subtype", tool: name }
}

/** Proves `live` against the locked entry: every locked tool gets a verdict; new tools and descriptions are notes. */
export const prove = (locked: LockedServer, live: ReadonlyArray<McpConnection.McpTool>): Proof => {
  const byName = new Map(live.filter((t) => Names.isValid(t.name)).map((t) => [t.name, t] as const))
  const lockedNames = Object.keys(locked.tools)
  return {
    rows: lockedNames.map((name) => verdict(name, locked.tools[name]!, byName.get(name))),
    added: [...byName.keys()].filter((name) => !Object.hasOwn(locked.tools, name)),
    described: lockedNames.filter((name) => {
      const tool = byName.get(name)
      return tool !== undefined && hashDescription(tool.description) !== locked.tools[name]!.descriptionHash
    }),
    badNames: live.filter((t) => !Names.isValid(t.name)).map((t) => t.name)
  }
}

/** The gate over a proof: `SchemaDriftError` listing every drifted tool, `UnsupportedCloudToolSchema`, or proven. */
export const gate = (proof: Proof): Either.Either<DriftGate.Verdict, Errors.SchemaDriftError | Errors.UnsupportedCloudToolSchema> =>
  DriftGate.fold(proof.rows)
