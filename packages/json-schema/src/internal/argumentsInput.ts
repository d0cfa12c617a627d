/**
 * Reading raw tool-call arguments: a JSON string as providers stream it, a parsed value, `null`,
 * `undefined` or `""`; and the issues for arguments that cannot be read at all.
 *
 * @internal
 */
import { type JsonSchema, Pointer, resolveRef } from "../JsonSchema.js"
import * as JsonValue from "../JsonValue.js"
import type { Issue } from "../Validator.js"
import * as S from "./coercionScalars.js"

const wholeIssue = (keyword: string, expected: string, message: string): Issue => ({
  path: "",
  field: "",
  keyword,
  expected,
  message
})

/** Whether no-argument calls (`null`, omitted, `""`) mean `{}`: type object, or `properties`/`required`. */
export const isObjectSchema = (schema: JsonSchema): boolean => {
  if (typeof schema !== "object") return false
  const t = S.own(schema, "type")
  if (t === "object" || (Array.isArray(t) && t.includes("object"))) return true
  if (S.own(schema, "properties") !== undefined || S.own(schema, "required") !== undefined) return true
  const ref = S.own(schema, "$ref")
  if (typeof ref !== "string") return false
  const r = resolveRef(schema, ref)
  return r._tag === "Resolved" && r.schema !== schema && isObjectSchema(r.schema)
}

/**
 * What the last `read` learnt beside the value: why the arguments cannot be read (when it returned
 * `undefined`), and whether the value may hold a blank string. Only the walk that proves a parsed value is
 * JSON can say "no" to the latter for free, so JSON text and deep values answer "maybe". `prepare` reads it
 * right after `read` (synchronously): the issue for its answer, the blank note to skip the filler pass on
 * values with nothing to drop. Plain fields, not a result object or class: this is `prepare`'s hot path.
 */
export const lastRead: { issue: Issue | undefined; mayHoldBlank: boolean } = { issue: undefined, mayHoldBlank: true }

const unreadable = (issue: Issue): undefined => {
  lastRead.issue = issue
  return undefined
}

// Whether the walk in progress notes strings that may be blank (see `read`'s `noteBlanks`).
let noting = true

/**
 * Reads raw arguments; `null`, `undefined` and a blank string are `{}` for an object schema. `undefined`
 * (never a JSON value) when they cannot be read, the reason in `lastRead.issue`. `noteBlanks: false` is for a
 * caller with no use for `lastRead.mayHoldBlank` (a schema with no filler to drop): the walk then reads no
 * string's characters, and the note stays "maybe".
 */
export const read = (schema: JsonSchema, raw: unknown, noteBlanks = true): JsonValue.JsonValue | undefined => {
  lastRead.mayHoldBlank = true
  let value: JsonValue.JsonValue
  if (raw === undefined || raw === null) value = null
  else if (typeof raw === "string") {
    if (S.isBlank(raw)) value = null
    else {
      try {
        value = JSON.parse(raw) as JsonValue.JsonValue
      } catch (e) {
        return unreadable(parseIssue(raw, e))
      }
    }
  } else {
    lastRead.mayHoldBlank = !noteBlanks
    noting = noteBlanks
    const scanned = member(raw, -1)
    if (scanned !== 1) {
      lastRead.mayHoldBlank = true
      const problem = notJson(raw)
      if (problem !== undefined) return unreadable(problem)
    }
    value = raw as JsonValue.JsonValue
  }
  return value === null && isObjectSchema(schema) ? {} : value
}

const lineAndColumn = (text: string, pos: number): string => {
  let line = 1
  let start = 0
  for (let i = text.indexOf("\n"); i !== -1 && i < pos; i = text.indexOf("\n", i + 1)) (line++, start = i + 1)
  return `line ${line}, column ${pos - start + 1}`
}

/** Says where a JSON text broke: its end (truncated), or the position, with the text around it. */
export const parseIssue = (text: string, error: unknown): Issue => {
  const reason = error instanceof Error ? error.message : String(error)
  const m = /position (\d+)/.exec(reason)
  const pos = m === null ? undefined : Number(m[1])
  const end = text.trimEnd().length
  if (/end of JSON input/.test(reason) || (pos !== undefined && pos >= end)) {
    return wholeIssue(
      "json",
      "complete JSON",
      `The arguments are not valid JSON: they stop after ${end} characters, before the JSON is complete ` +
        "(truncated output?). Send the whole JSON object."
    )
  }
  const where = pos === undefined ? "" : ` at ${lineAndColumn(text, pos)}`
  const near = pos === undefined
    ? ""
    : `, near \`${text.slice(Math.max(0, pos - 20), pos + 20).replace(/\s+/g, " ")}\``
  const what = reason.replace(/ in JSON at position \d+.*$/s, "").replace(/^Unexpected token.*$/s, "unexpected character")
  return wholeIssue("json", "valid JSON", `The arguments are not valid JSON${where}${near}: ${what}.`)
}

/** The issue when the stack runs out on deeply nested arguments. */
export const tooDeepIssue: Issue = wholeIssue(
  "depth",
  "arguments nested less deeply",
  "The arguments are nested too deeply to check. Send a flatter JSON value."
)

/** The issue when reading the arguments failed in some other way (a throwing getter, a proxy). */
export const unreadableIssue = (error: unknown): Issue =>
  wholeIssue(
    "json",
    "plain JSON",
    `The arguments could not be read as JSON: ${error instanceof Error ? error.message : String(error)}.`
  )

// The quick check gives up past this depth (cycles end up here) and hands over to the careful one.
const fastDepth = 64

/**
 * 1: JSON all the way down; 0: not JSON; 2: deeper than the quick check goes. On the way it notes in
 * `lastRead` any string that may be blank (`mayBeBlank`, when `noting`). This runs on every `prepare` of a
 * parsed value: an object's members through `Object.values` (own enumerable string keys, as `JSON.stringify`
 * reads them) once its prototype is known to be `Object.prototype` or `null`, leaves settled inline.
 * `Object.values` reads the object's own descriptors where `for…in` also fetches its key cache: on calls
 * that start cold, as an agent's do between model rounds, that is ~0.15× raw Ajv less, for a small array
 * that a warm loop pays ~15 ns for.
 */
const fast = (u: object, depth: number): 0 | 1 | 2 => {
  if (depth === fastDepth) return 2
  if (Array.isArray(u)) {
    for (let i = 0; i < u.length; i++) {
      const r = member(u[i], depth)
      if (r !== 1) return r
    }
    return 1
  }
  const proto = Object.getPrototypeOf(u)
  if (proto !== Object.prototype && proto !== null) return 0
  const values = Object.values(u)
  for (let i = 0; i < values.length; i++) {
    const r = member(values[i], depth)
    if (r !== 1) return r
  }
  return 1
}

// A string (noting one that may be blank), a finite number (NaN and ±Infinity give NaN), a boolean, or JSON below.
const member = (x: unknown, depth: number): 0 | 1 | 2 => {
  if (typeof x === "string") {
    if (noting && S.mayBeBlank(x)) lastRead.mayHoldBlank = true
    return 1
  }
  if (typeof x === "object") return x === null ? 1 : fast(x, depth + 1)
  return typeof x === "boolean" || (typeof x === "number" && x - x === 0) ? 1 : 0
}

const describe = (u: unknown): string | undefined => {
  if (u === null || typeof u === "string" || typeof u === "boolean") return undefined
  if (typeof u === "number") return Number.isFinite(u) ? undefined : `the number ${u}`
  if (u === undefined) return "undefined"
  if (typeof u !== "object") return `a ${typeof u}`
  if (Array.isArray(u)) return Object.keys(u).length === u.length ? undefined : "an array with holes"
  const proto = Object.getPrototypeOf(u)
  if (proto === Object.prototype || proto === null) return undefined
  const name = typeof proto?.constructor === "function" ? proto.constructor.name : ""
  return `an instance of ${name === "" ? "a class" : name}`
}

interface Frame {
  readonly value: unknown
  readonly key: string | number | undefined
  readonly parent: Frame | undefined
  readonly leave: boolean
}

// Paths are rebuilt from parent links only on failure: copying them per level is quadratic in depth.
const pathOf = (frame: Frame): ReadonlyArray<string | number> => {
  const out: Array<string | number> = []
  for (let f: Frame | undefined = frame; f !== undefined && f.key !== undefined; f = f.parent) out.push(f.key)
  return out.reverse()
}

/** The first place where a value is not JSON (iterative: any depth, cycles found), or undefined. */
const careful = (root: unknown): { readonly path: ReadonlyArray<string | number>; readonly what: string } | undefined => {
  const ancestors = new Set<object>()
  const stack: Array<Frame> = [{ value: root, key: undefined, parent: undefined, leave: false }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    if (frame.leave) {
      ancestors.delete(frame.value as object)
      continue
    }
    const what = describe(frame.value)
    if (what !== undefined) return { path: pathOf(frame), what }
    if (typeof frame.value !== "object" || frame.value === null) continue
    if (ancestors.has(frame.value)) return { path: pathOf(frame), what: "a cycle (a value containing itself)" }
    ancestors.add(frame.value)
    stack.push({ ...frame, leave: true })
    const o = frame.value as Record<string, unknown>
    const keys = Array.isArray(o) ? o.map((_, i) => i) : Object.keys(o)
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: o[keys[i]!], key: keys[i]!, parent: frame, leave: false })
  }
  return undefined
}

/** Undefined when `u` is JSON all the way down; otherwise the issue naming the first place it is not. */
const notJson = (u: unknown): Issue | undefined => {
  const problem = careful(u)
  if (problem === undefined) return undefined
  const at = problem.path.length === 0 ? "" : ` at \`${S.fieldOf(problem.path)}\``
  return {
    path: Pointer.format(problem.path),
    field: S.fieldOf(problem.path),
    keyword: "json",
    expected: "a JSON value",
    message: `The arguments are not JSON: found ${problem.what}${at}.`
  }
}
