/**
 * Limits on the shape of a model's arguments that no schema states: how deep values nest (an executor's own
 * `JSON.stringify` or recursive walk overflows long before a validator notices) and strings that are not
 * well-formed UTF-16 (a lone surrogate cannot be encoded as UTF-8, so it breaks whatever the executor writes
 * to). Checked iteratively: a hostile value costs no stack.
 *
 * @internal
 */
import type { Validator } from "@toolgate/json-schema"

/** The default depth limit: far above any real tool's arguments, far below what recursion survives. */
export const defaultMaxDepth = 64

// String.prototype.isWellFormed: ES2024, in every Node this package supports (20+); the ES2022 lib this
// build compiles against does not declare it
const wellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed()

const pointer = (path: ReadonlyArray<string>): string => path.map((p) => `/${p.replace(/~/g, "~0").replace(/\//g, "~1")}`).join("")

const issue = (path: ReadonlyArray<string>, keyword: string, expected: string, message: string): Validator.Issue => ({
  path: pointer(path),
  field: path[0] ?? "",
  keyword,
  expected,
  message
})

const surrogateIssue = (path: ReadonlyArray<string>): Validator.Issue =>
  issue(path, "wellFormed", "text without lone surrogates (well-formed UTF-16)", `The text at ${pointer(path) || "the root"} holds a lone surrogate, which is not valid Unicode text.`)

/**
 * The first shape problem of `value` (too deep, or a lone surrogate in a string or key), or `undefined`. A
 * value that cannot be walked (a throwing getter, a hostile proxy) is not judged here: the validator refuses it.
 */
export const check = (value: unknown, maxDepth: number): Validator.Issue | undefined => {
  try {
    return walk(value, maxDepth)
  } catch {
    return undefined
  }
}

/** A value met on the walk, with the key it sits under and its parent: paths are built only for an issue. */
interface Frame {
  readonly value: unknown
  readonly key: string | number | undefined
  readonly parent: Frame | undefined
  readonly depth: number
}

const pathOf = (frame: Frame): Array<string> => {
  const out: Array<string> = []
  for (let f: Frame | undefined = frame; f !== undefined && f.key !== undefined; f = f.parent) out.push(String(f.key))
  return out.reverse()
}

// Depth first, children in order, a key checked when its value is reached: the issue reported is the first in
// document order. Linear in the value's size (a path per node made a deep, wide value quadratic).
const walk = (value: unknown, maxDepth: number): Validator.Issue | undefined => {
  const stack: Array<Frame> = [{ value, key: undefined, parent: undefined, depth: 0 }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    const v = frame.value
    if (typeof frame.key === "string" && !wellFormed(frame.key)) return surrogateIssue(pathOf(frame))
    if (typeof v === "string") {
      if (!wellFormed(v)) return surrogateIssue(pathOf(frame))
      continue
    }
    if (typeof v !== "object" || v === null) continue
    if (frame.depth >= maxDepth) {
      return issue(pathOf(frame).slice(0, 8), "maxDepth", `values nested at most ${maxDepth} levels deep`, `The arguments nest deeper than ${maxDepth} levels.`)
    }
    const depth = frame.depth + 1
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: frame, depth })
      continue
    }
    const keys = Object.keys(v)
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (v as Record<string, unknown>)[keys[i]!], key: keys[i]!, parent: frame, depth })
  }
  return undefined
}
