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

const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

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

const walk = (value: unknown, maxDepth: number): Validator.Issue | undefined => {
  const stack: Array<readonly [unknown, ReadonlyArray<string>]> = [[value, []]]
  while (stack.length > 0) {
    const [v, path] = stack.pop()!
    if (typeof v === "string") {
      if (loneSurrogate.test(v)) return surrogateIssue(path)
      continue
    }
    if (typeof v !== "object" || v === null) continue
    if (path.length >= maxDepth) {
      return issue(path.slice(0, 8), "maxDepth", `values nested at most ${maxDepth} levels deep`, `The arguments nest deeper than ${maxDepth} levels.`)
    }
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], [...path, String(i)]])
      continue
    }
    for (const key of Object.keys(v)) {
      if (loneSurrogate.test(key)) return surrogateIssue([...path, key])
      stack.push([(v as Record<string, unknown>)[key], [...path, key]])
    }
  }
  return undefined
}
