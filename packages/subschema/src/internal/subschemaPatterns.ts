/**
 * A string that matches a simple regular expression, for witnesses only (it is always re-tested with the
 * real regex, and a witness is verified by the real validators; nothing here ever proves inclusion).
 * Handles literals, escapes (`\d`, `\w`, `\s`, escaped punctuation), classes, groups with alternation
 * (the first alternative is taken), and the quantifiers `? * + {n} {n,} {n,m}` (the fewest repetitions,
 * stretched to reach a minimum length). Anything else gives up.
 *
 * @internal
 */
import { regex } from "./subschemaModel.js"

type Part = { readonly text: string; readonly min: number; readonly max: number }

const classSample = (body: string): string | undefined => {
  if (body.startsWith("^")) {
    for (const c of ["x", "a", "0", "_", "Z", "-", " "]) if (regex(`[${body}]`)?.test(c) === true) return c
    return undefined
  }
  const first = body.startsWith("\\") ? escapeSample(body[1] ?? "") : body[0]
  return first
}

const escapeSample = (c: string): string | undefined => {
  if (c === "d") return "0"
  if (c === "w") return "a"
  if (c === "s") return " "
  if (/[DWS]/.test(c)) return "-"
  if (/[bBAzZ]/.test(c) || /[1-9]/.test(c) || c === "k" || c === "p" || c === "P" || c === "u" || c === "x") return undefined
  if (c === "n") return "\n"
  if (c === "t") return "\t"
  return c
}

/** Parses a sequence up to `)` or `|`; returns the parts and where it stopped. */
const sequence = (p: string, start: number): { parts: Array<Part>; end: number } | undefined => {
  const parts: Array<Part> = []
  let i = start
  while (i < p.length && p[i] !== ")" && p[i] !== "|") {
    let text: string | undefined
    const c = p[i]!
    if (c === "^" || c === "$") {
      i++
      continue
    }
    if (c === "\\") {
      text = escapeSample(p[i + 1] ?? "")
      i += 2
    } else if (c === "[") {
      const close = p.indexOf("]", i + 2)
      if (close < 0) return undefined
      text = classSample(p.slice(i + 1, close))
      i = close + 1
    } else if (c === "(") {
      let j = i + 1
      if (p.startsWith("?:", j)) j += 2
      else if (p[j] === "?") return undefined
      const inner = sequence(p, j)
      if (inner === undefined) return undefined
      let end = inner.end
      while (p[end] === "|") {
        const alt = sequence(p, end + 1)
        if (alt === undefined) return undefined
        end = alt.end
      }
      if (p[end] !== ")") return undefined
      text = inner.parts.map((x) => x.text.repeat(x.min)).join("")
      i = end + 1
    } else if (c === ".") {
      text = "x"
      i++
    } else if ("*+?{".includes(c)) {
      return undefined
    } else {
      text = c
      i++
    }
    if (text === undefined) return undefined
    const q = quantifier(p, i)
    if (q === undefined) return undefined
    parts.push({ text, min: q.min, max: q.max })
    i = q.end
  }
  return { parts, end: i }
}

const quantifier = (p: string, i: number): { min: number; max: number; end: number } | undefined => {
  const lazy = (end: number) => (p[end] === "?" ? end + 1 : end)
  const c = p[i]
  if (c === "?") return { min: 0, max: 1, end: lazy(i + 1) }
  if (c === "*") return { min: 0, max: Infinity, end: lazy(i + 1) }
  if (c === "+") return { min: 1, max: Infinity, end: lazy(i + 1) }
  if (c === "{") {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(p.slice(i))
    if (m === null) return undefined
    const min = Number(m[1])
    const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3])
    return min > 1_000 ? undefined : { min, max, end: lazy(i + m[0].length) }
  }
  return { min: 1, max: 1, end: i }
}

/** A string matching `pattern` with at least `minLength` code points when it can, else undefined. */
export const matching = (pattern: string, minLength = 0): string | undefined => {
  const r = regex(pattern)
  if (r === undefined || pattern.length > 500) return undefined
  const top = sequence(pattern, 0)
  // a top-level alternation: the first alternative alone (the real regex decides below)
  if (top === undefined || (top.end !== pattern.length && pattern[top.end] !== "|")) return undefined
  const counts = top.parts.map((x) => x.min)
  let out = top.parts.map((x, k) => x.text.repeat(counts[k]!)).join("")
  for (let k = 0; k < top.parts.length && [...out].length < minLength; k++) {
    const x = top.parts[k]!
    while (counts[k]! < x.max && [...out].length < minLength && x.text.length > 0) {
      counts[k]!++
      out = top.parts.map((y, m) => y.text.repeat(counts[m]!)).join("")
    }
  }
  return r.test(out) ? out : undefined
}
