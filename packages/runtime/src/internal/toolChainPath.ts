/**
 * A ref's `$path`: its syntax, and the walk that follows it through an envelope. Only own data
 * properties are read (never a getter, never a prototype), so a hostile result cannot run code or hand
 * out `Object.prototype`; the walk is a loop, so a 10,000-segment path into a 10,000-level result costs
 * no stack.
 *
 * Syntax: segments separated by `.`, read from the envelope's root (`result.city`); an array index may
 * also be written in brackets (`result.items[0].name` is `result.items.0.name`). No segment may be
 * empty (`a..b`, `.a`, `a.`, `""`), a bracket holds a decimal index without leading zeros, and
 * `__proto__`, `constructor` and `prototype` are refused wherever they appear, even as own keys. A key
 * that holds `.`, `[` or `]` cannot be named.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type { JsonValue as J } from "@toolgate/json-schema"
import { clip } from "@toolgate/json-schema/Text"
import { describe } from "./json.js"

/** One step of a path: a key, and whether it was written as `[n]`. */
export interface Segment {
  readonly key: string
  readonly bracket: boolean
}

/** Segments a path may never hold: following them reaches a prototype or a constructor in JavaScript. */
export const forbidden: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"])

/** The canonical decimal form of an array index. */
const indexPattern = /^(0|[1-9][0-9]*)$/

/** How much of a path or key a message quotes. */
const quoted = (s: string): string => `\`${clip(s, 120)}\``

/** The path's segments, or why it is not a path. */
export const parse = (path: string): Either.Either<ReadonlyArray<Segment>, string> => {
  if (path === "") return Either.left("the path is empty (leave `$path` out to mean `result`, or write e.g. `result.city`)")
  const out: Array<Segment> = []
  let i = 0
  let afterDot = false
  while (i < path.length) {
    const c = path[i]!
    if (c === "[" && !afterDot) {
      const close = path.indexOf("]", i)
      if (close < 0) return Either.left(`${quoted(path)} opens a \`[\` it never closes`)
      const digits = path.slice(i + 1, close)
      if (!indexPattern.test(digits)) {
        return Either.left(`${quoted(`[${digits}]`)} in ${quoted(path)} is not an array index (write [0], [1], …)`)
      }
      out.push({ key: digits, bracket: true })
      i = close + 1
    } else {
      let end = i
      while (end < path.length && path[end] !== "." && path[end] !== "[" && path[end] !== "]") end++
      if (end === i) return Either.left(emptyOrStray(path, i))
      out.push({ key: path.slice(i, end), bracket: false })
      i = end
    }
    afterDot = false
    if (i === path.length || path[i] === "[") continue
    if (path[i] !== ".") return Either.left(emptyOrStray(path, i))
    i++
    afterDot = true
    if (i === path.length) return Either.left(`${quoted(path)} ends with \`.\` (an empty segment)`)
  }
  const bad = out.find((s) => forbidden.has(s.key))
  if (bad !== undefined) return Either.left(`${quoted(path)} goes through \`${bad.key}\`, which a path may never name`)
  return Either.right(out)
}

/** Why the character at `i` cannot start a segment: a stray `]`, a missing `.` after `[n]`, or an empty segment. */
const emptyOrStray = (path: string, i: number): string =>
  path[i] === "]"
    ? `${quoted(path)} has a \`]\` without a \`[\``
    : i > 0 && path[i - 1] === "]"
    ? `${quoted(path)} needs a \`.\` or \`[\` after \`]\``
    : `${quoted(path)} has an empty segment${i === 0 ? " at its start" : ""} (segments are separated by single dots)`

/** The segments as the model wrote them, up to (not including) `end`. */
export const render = (segments: ReadonlyArray<Segment>, end: number): string => {
  let out = ""
  for (let i = 0; i < end; i++) {
    const s = segments[i]!
    out += s.bracket ? `[${s.key}]` : i === 0 ? s.key : `.${s.key}`
  }
  return clip(out, 120)
}

/** An own data property of an object or array, never a getter or an inherited value. */
const own = (u: object, key: string): { readonly value: unknown } | undefined => {
  const d = Object.getOwnPropertyDescriptor(u, key)
  return d !== undefined && "value" in d ? { value: d.value } : undefined
}

/** A few of an object's keys, for a message that tells the model what it could have written. */
const keysHint = (u: object): string => {
  const keys = Object.keys(u)
  if (keys.length === 0) return " (it is an empty object)"
  const listed = keys.slice(0, 10).map((k) => clip(k, 40)).join(", ")
  return ` (it has: ${listed}${keys.length > 10 ? `, … ${keys.length - 10} more` : ""})`
}

/** One step from `cur` along `segments[i]`, or why the walk stops there. */
const step = (cur: unknown, segments: ReadonlyArray<Segment>, i: number): Either.Either<unknown, string> => {
  const key = segments[i]!.key
  // built only for a message: rendering the prefix at every step would make a long path quadratic
  const here = () => i === 0 ? "the envelope" : quoted(render(segments, i))
  if (Array.isArray(cur)) {
    if (!indexPattern.test(key)) return Either.left(`${here()} is an array, and ${quoted(key)} is not an index`)
    const index = Number(key)
    if (index >= cur.length) {
      return Either.left(`index ${clip(key, 24)} is out of range: ${here()} has ${cur.length} item${cur.length === 1 ? "" : "s"}`)
    }
    const found = own(cur, key)
    return found === undefined ? Either.left(`item ${key} of ${here()} cannot be read`) : Either.right(found.value)
  }
  if (typeof cur === "object" && cur !== null) {
    const found = own(cur, key)
    return found === undefined ? Either.left(`${here()} has no ${quoted(key)}${keysHint(cur)}`) : Either.right(found.value)
  }
  return Either.left(`${here()} is ${describe(cur)}, not an object or an array, so it has no ${quoted(key)}`)
}

/** The value at `segments` from `root`, a JSON value (an envelope), or why there is none. */
export const walk = (root: J.JsonValue, segments: ReadonlyArray<Segment>): Either.Either<J.JsonValue, string> => {
  let cur: unknown = root
  for (let i = 0; i < segments.length; i++) {
    const next = step(cur, segments, i)
    if (Either.isLeft(next)) return Either.left(next.left)
    cur = next.right
  }
  return Either.right(cur as J.JsonValue)
}
