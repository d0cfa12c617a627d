/**
 * Argument helpers for tool bodies: read one argument from a JSON object and get either its value or
 * the standard `invalid_args` failure envelope, with `field` and `expected` filled in, ready to hand back
 * to the model.
 *
 * Scalars are as lenient as the preflight: an integer, number or boolean may arrive string-encoded
 * (`"15"`, `"3.14"`, `"yes"`), and a string array as a JSON-encoded string. Strings stay strict (42 is
 * not a string), a bare string is never wrapped into an array, and a required string must not be empty.
 * Optional helpers treat an absent key, `null` and a blank string (a model's empty filler) as absent.
 * Only own properties are read, so a `__proto__` key is just a key. `requirePath` also checks a path
 * against allowed roots on the filesystem, so it is an Effect.
 *
 * @since 0.1.0
 */
import type * as FileSystem from "@effect/platform/FileSystem"
import type * as Path from "@effect/platform/Path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { Coercion, type JsonValue as J } from "@toolgate/json-schema"
import { clip } from "@toolgate/json-schema/Text"
import { describe, hasOwnValue, isPlainObject, ownValue, parseJson, safeGet, safeString } from "./internal/json.js"
import { failure } from "./internal/kinds.js"
import * as PathGuard from "./internal/pathGuard.js"
import type { Failure } from "./ToolEnvelope.js"

/** The value, or the `invalid_args` failure envelope to return to the model. */
export type Result<A> = Either.Either<A, Failure>

/** What a helper may be told: the tool's name and the caller's own words for what is expected. */
export interface Options {
  readonly tool?: string | undefined
  readonly expected?: string | undefined
}

/** Options of `requireString`. */
export interface StringOptions extends Options {
  /** Accept `""` (say, the content of an empty file). Default false. */
  readonly allowEmpty?: boolean | undefined
}

/** How a value is read: its type label for messages, an article for "must be …", and the conversion. */
interface Reader<A> {
  readonly label: string
  readonly article: string
  readonly read: (u: J.JsonValue | undefined) => { readonly value: A } | { readonly item: number } | undefined
}

/** The options as plain values, read without invoking a hostile getter or trap; wrong types count as absent. */
const optionsOf = (options: unknown): { readonly tool: string | undefined; readonly expected: string | undefined; readonly allowEmpty: boolean } => {
  const tool = safeGet(options, "tool")
  const expected = safeGet(options, "expected")
  return {
    tool: typeof tool === "string" ? tool : undefined,
    expected: typeof expected === "string" ? expected : undefined,
    allowEmpty: safeGet(options, "allowEmpty") === true
  }
}

/** A key of the wrong type (a symbol, a number) as the string a message can name. */
const keyOf = (key: unknown): string => (typeof key === "string" ? key : safeString(key))

const invalid = (key: string, message: string, expected: string, options: Options | undefined, field = key) => {
  const o = optionsOf(options)
  return Either.left(failure("invalid_args", message, { field, expected: o.expected ?? expected, tool: o.tool }))
}

/** Runs a reader over a present value, producing the standard messages. */
const run = <A>(reader: Reader<A>, args: unknown, rawKey: string, options: Options | undefined): Result<A> => {
  const key = keyOf(rawKey)
  const value = ownValue(args, key) as J.JsonValue | undefined
  if (value === undefined || value === null) {
    return invalid(key, `Missing required argument \`${key}\` (${reader.label}).`, reader.label, options)
  }
  const got = reader.read(value)
  if (got === undefined) {
    return invalid(key, `Argument \`${key}\` must be ${reader.article}, got ${describe(value)}.`, reader.label, options)
  }
  if ("item" in got) {
    const item = Array.isArray(value) ? value[got.item] : undefined
    return invalid(
      key,
      `Argument \`${key}\` must be ${reader.article}; item ${got.item} is ${describe(item)}.`,
      reader.label,
      options,
      `${key}.${got.item}`
    )
  }
  return Either.right(got.value)
}

/** Whether an optional argument counts as absent: missing, `null`, or a blank string. */
const absent = (args: unknown, key: string): boolean => {
  const value = ownValue(args, keyOf(key))
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "")
}

const optional = <A>(reader: Reader<A>, args: unknown, key: string, options: Options | undefined) =>
  absent(args, key) ? Either.right(Option.none<A>()) : Either.map(run(reader, args, key, options), Option.some)

const integerText = /^[+-]?\d+(?:\.0+)?$/
const numberText = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

/** A finite number from a number or from a numeric string that matches `pattern`. */
const numeric = (u: J.JsonValue | undefined, pattern: RegExp): number | undefined => {
  if (typeof u === "number") return Number.isFinite(u) ? u : undefined
  if (typeof u !== "string" || u.length > 400) return undefined
  const t = u.trim()
  if (!pattern.test(t)) return undefined
  const n = Number(t)
  return Number.isFinite(n) ? n : undefined
}

const stringReader: Reader<string> = {
  label: "string",
  article: "a string",
  read: (u) => typeof u === "string" ? { value: u } : undefined
}

const intReader: Reader<number> = {
  label: "integer",
  article: "an integer",
  read: (u) => {
    const n = numeric(u, integerText)
    return n !== undefined && Number.isInteger(n) ? { value: n } : undefined
  }
}

const numberReader: Reader<number> = {
  label: "number",
  article: "a number",
  read: (u) => {
    const n = numeric(u, numberText)
    return n === undefined ? undefined : { value: n }
  }
}

const booleanReader: Reader<boolean> = {
  label: "boolean",
  article: "a boolean",
  read: (u) => {
    if (typeof u === "boolean") return { value: u }
    if (typeof u !== "string" || u.length > 20) return undefined
    const b = Coercion.parseBoolean(u)
    return b === undefined ? undefined : { value: b }
  }
}

const stringArrayReader: Reader<ReadonlyArray<string>> = {
  label: "array of strings",
  article: "an array of strings",
  read: (u) => {
    const decoded = typeof u === "string" && u.trimStart().startsWith("[") ? parseJson(u)?.value : u
    if (!Array.isArray(decoded)) return undefined
    const bad = decoded.findIndex((x) => typeof x !== "string")
    return bad === -1 ? { value: decoded as ReadonlyArray<string> } : { item: bad }
  }
}

/**
 * The arguments of a call as a JSON object. Accepts a JSON string (as providers stream it) or a parsed
 * value; `null`, `undefined` and `""` are `{}`. Anything else is an `invalid_args` failure.
 */
export const requireArgumentsObject = (raw: unknown, options?: Options): Result<J.JsonObject> => {
  const o = optionsOf(options)
  const expected = o.expected ?? "a JSON object of arguments"
  const fail = (message: string) => Either.left(failure("invalid_args", message, { expected, tool: o.tool }))
  if (raw === undefined || raw === null) return Either.right({})
  let value: unknown = raw
  if (typeof raw === "string") {
    if (raw.trim() === "") return Either.right({})
    const parsed = parseJson(raw)
    if (parsed === undefined) return fail(`The arguments are not valid JSON: ${JSON.stringify(clip(raw, 80))}.`)
    value = parsed.value
    if (value === null) return Either.right({})
  }
  return isPlainObject(value)
    ? Either.right(value)
    : fail(`The arguments must be a JSON object, got ${describe(value)}.`)
}

/** A required, non-empty string argument. */
export const requireString = (args: J.JsonObject, key: string, options?: StringOptions): Result<string> =>
  Either.flatMap(
    run(stringReader, args, key, options),
    (s) =>
      s === "" && !optionsOf(options).allowEmpty
        ? invalid(keyOf(key), `Argument \`${keyOf(key)}\` must not be empty.`, "non-empty string", options)
        : Either.right(s)
  )

/** A required integer argument (`15` or `"15"`; `"30.0"` is 30; `1.5` and `true` are not integers). */
export const requireInt = (args: J.JsonObject, key: string, options?: Options): Result<number> =>
  run(intReader, args, key, options)

/** A required finite number argument (`3.14` or `"3.14"`). */
export const requireNumber = (args: J.JsonObject, key: string, options?: Options): Result<number> =>
  run(numberReader, args, key, options)

/** A required boolean argument (`true`, or `"true"`/`"yes"`/`"1"` and their negatives, any case). */
export const requireBoolean = (args: J.JsonObject, key: string, options?: Options): Result<boolean> =>
  run(booleanReader, args, key, options)

/** A required array of strings (or a string that JSON-decodes to one); an empty array is allowed. */
export const requireStringArray = (
  args: J.JsonObject,
  key: string,
  options?: Options
): Result<ReadonlyArray<string>> => run(stringArrayReader, args, key, options)

/** An optional string: `None` when absent, `null` or blank. */
export const optionalString = (args: J.JsonObject, key: string, options?: Options): Result<Option.Option<string>> =>
  optional(stringReader, args, key, options)

/** An optional integer: `None` when absent, `null` or blank. */
export const optionalInt = (args: J.JsonObject, key: string, options?: Options): Result<Option.Option<number>> =>
  optional(intReader, args, key, options)

/** An optional number: `None` when absent, `null` or blank. */
export const optionalNumber = (args: J.JsonObject, key: string, options?: Options): Result<Option.Option<number>> =>
  optional(numberReader, args, key, options)

/** An optional boolean: `None` when absent, `null` or blank. */
export const optionalBoolean = (args: J.JsonObject, key: string, options?: Options): Result<Option.Option<boolean>> =>
  optional(booleanReader, args, key, options)

/** An optional array of strings: `None` when absent, `null` or blank. */
export const optionalStringArray = (
  args: J.JsonObject,
  key: string,
  options?: Options
): Result<Option.Option<ReadonlyArray<string>>> => optional(stringArrayReader, args, key, options)

/** Whether `args` has the key as an own property (present, even if `null`). */
export const has = (args: J.JsonObject, key: string): boolean => hasOwnValue(args, keyOf(key))

/** Options of `requirePath`: the directories the path must land in. */
export interface PathOptions extends Options {
  /** The allowed roots (absolute, or relative to the working directory); the path must land in one of them. */
  readonly roots: ReadonlyArray<string>
  /** What a relative path is relative to (default: the first root). */
  readonly base?: string | undefined
}

const pathReasons = {
  Dangerous: "it holds a dangerous character",
  Traversal: "path traversal (`..`) is not allowed",
  TooLong: `it is longer than ${PathGuard.maxLength} characters`,
  Outside: "it resolves outside the allowed roots",
  Loop: "it passes through too many symbolic links"
} as const

/** The roots and base of `PathOptions`, read without invoking a hostile getter; `undefined` when unusable. */
const pathOptionsOf = (options: unknown): { readonly roots: ReadonlyArray<string>; readonly base: string } | undefined => {
  try {
    return readPathOptions(options)
  } catch {
    return undefined
  }
}

const readPathOptions = (options: unknown): { readonly roots: ReadonlyArray<string>; readonly base: string } | undefined => {
  const roots = safeGet(options, "roots")
  const base = safeGet(options, "base")
  if (!Array.isArray(roots) || roots.length === 0 || roots.length > 64) return undefined
  const list = Array.from(roots as ReadonlyArray<unknown>)
  const usable = (r: unknown): r is string => {
    if (typeof r !== "string" || r === "") return false
    const refusal = PathGuard.lexical(r)
    return refusal === undefined || refusal._tag === "Traversal"
  }
  if (!list.every(usable)) return undefined
  if (base !== undefined && (typeof base !== "string" || base === "" || PathGuard.lexical(base) !== undefined)) return undefined
  return { roots: list, base: base ?? list[0]! }
}

/**
 * A required path argument that must stay inside `options.roots`: the real path it lands on, to use in
 * its place. Refused with an `invalid_args` envelope naming the reason: a dangerous character (NUL and
 * other controls, bidirectional overrides, a lone surrogate), a `..` segment (path traversal), more than
 * 4096 characters, or landing outside every root once symbolic links are followed (the real path of its
 * longest existing prefix; a dangling link is followed to its target, a link loop is refused). Roots are
 * compared by their real paths too. Options without a usable root are the app's mistake: an
 * `execution_error` that is not retryable.
 */
export const requirePath = (
  args: J.JsonObject,
  key: string,
  options: PathOptions
): Effect.Effect<string, Failure, FileSystem.FileSystem | Path.Path> =>
  Effect.suspend(() => {
    const text = requireString(args, key, options)
    if (Either.isLeft(text)) return Effect.fail(text.left)
    const o = optionsOf(options)
    const where = pathOptionsOf(options)
    if (where === undefined) {
      return Effect.fail(failure("execution_error", "The tool's allowed roots are not usable paths.", { tool: o.tool, retryable: false }))
    }
    const field = keyOf(key)
    const expected = o.expected ?? `a path inside ${where.roots.map((r) => JSON.stringify(clip(r, 200))).join(" or ")}`
    return Effect.flatMap(PathGuard.check(text.right, where.roots, where.base), (verdict) => {
      if (verdict._tag === "Accepted") return Effect.succeed(verdict.path)
      const r = verdict.refusal
      const why = r._tag === "Dangerous" ? `${pathReasons.Dangerous} (${r.character} at index ${r.index})` : pathReasons[r._tag]
      return Effect.fail(failure("invalid_args", `Argument \`${field}\` is rejected: ${why}.`, { field, expected, tool: o.tool }))
    })
  })
