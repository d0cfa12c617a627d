/**
 * JSON Schema `pattern`s as finite automata (refa): a pattern is an unanchored search, so its language is
 * `Σ* body Σ*` per top-level alternative, with `^`/`$` at an alternative's edges dropping the `Σ*` on their
 * side (Ajv compiles with the `u` flag only: no `m`, so `^`/`$` are the input's edges). Anything the
 * automaton cannot model exactly (lookaround, backreferences, `\b`/`\B`, `^`/`$` anywhere else) or that
 * grows past the node limits is `Unsupported`. Words are code points, as the `u`-flag regex sees them;
 * every string handed out is re-tested with the real `RegExp` before it leaves.
 *
 * @internal
 */
import type { NodeFactory } from "refa"
import { CharSet, DFA, getIntersectionWordSets, isDisjointWith, JS, MaxCharacterError, NFA, TooManyNodesError, Words } from "refa"
import { regex } from "./subschemaModel.js"

/** A language, or why it cannot be built. */
export type Language = { readonly _tag: "Language"; readonly nfa: NFA } | Unsupported

/** What the automata cannot decide, and why. */
export interface Unsupported {
  readonly _tag: "Unsupported"
  readonly reason: string
}

/** Inclusion: proven, or strings inside the cloud patterns and outside the local one (possibly none found). */
export type Inclusion = { readonly _tag: "Included" } | { readonly _tag: "Excluded"; readonly witnesses: ReadonlyArray<string> } | Unsupported

/** Code points: the alphabet of every automaton here. */
const maxCharacter = 0x10ffff as CharSet["maximum"]
/** Node limits: an NFA grows with the pattern, a DFA can grow exponentially (`a.{30}` unanchored). */
const LIMIT = 1_500
const DFA_LIMIT = 800
const MAX_SOURCE = 300
const MAX_LENGTH_STATES = 256
/** A wall-clock bound per top-level operation, a safety net behind the node limits (which decide in practice). */
const MAX_MS = 50

const unsupported = (reason: string): Unsupported => ({ _tag: "Unsupported", reason })

class OutOfTime extends Error {}
let deadline = Infinity

/** Node factories that also stop the operation past the deadline (refa's work is bounded by the nodes it creates). */
const timed = <S>(inner: NodeFactory<S>): NodeFactory<S> => {
  let n = 0
  return {
    createNode: () => {
      if ((++n & 31) === 0 && performance.now() > deadline) throw new OutOfTime()
      return inner.createNode()
    }
  }
}
const factory = () => timed(new NFA.LimitedNodeFactory(LIMIT))

const languages = new Map<string, Language>()

/** The language of a JSON Schema `pattern` (cached by source; the NFA returned is never mutated). */
export const language = (pattern: string): Language => {
  const known = languages.get(pattern)
  if (known !== undefined) return known
  const built = guarded(() => build(pattern))
  if (languages.size > 2_000) languages.clear()
  languages.set(pattern, built)
  return built
}

/** Runs a construction, mapping refa's limits (and any parser refusal) to `Unsupported`. */
const guarded = <A>(f: () => A | Unsupported): A | Unsupported => {
  const outer = deadline === Infinity
  if (outer) deadline = performance.now() + MAX_MS
  try {
    return f()
  } catch (e) {
    if (e instanceof OutOfTime) return unsupported("pattern automaton out of time")
    if (e instanceof TooManyNodesError || e instanceof MaxCharacterError || e instanceof RangeError) return unsupported("pattern automaton too large")
    return unsupported(`pattern not modelled (${e instanceof Error ? e.message.slice(0, 80) : "unknown"})`)
  } finally {
    if (outer) deadline = Infinity
  }
}

type RegexpNode = { readonly type: string; readonly kind?: string; readonly [k: string]: unknown }

const build = (pattern: string): Language => {
  if (regex(pattern) === undefined) return unsupported("pattern (not a valid regular expression)")
  if (pattern.length > MAX_SOURCE) return unsupported("pattern too long to model")
  const parser = JS.Parser.fromLiteral({ source: pattern, flags: "u" })
  const out = NFA.empty({ maxCharacter }, factory())
  for (const alt of parser.ast.pattern.alternatives) {
    const elements = alt.elements as unknown as ReadonlyArray<RegexpNode>
    let from = 0, to = elements.length
    while (from < to && isEdge(elements[from]!, "start")) from++
    while (to > from && isEdge(elements[to - 1]!, "end")) to--
    const bad = elements.slice(from, to).map(irregular).find((r) => r !== undefined)
    if (bad !== undefined) return unsupported(bad)
    const parsed = parser.parseElement(alt, { assertions: "ignore", backreferences: "throw", maxNodes: LIMIT })
    const body = NFA.fromRegex(parsed.expression, { maxCharacter }, { assertions: "throw", unknowns: "throw" }, factory())
    if (from === 0) body.prepend(NFA.all({ maxCharacter }), factory())
    if (to === elements.length) body.append(NFA.all({ maxCharacter }), factory())
    out.union(body, factory())
  }
  return { _tag: "Language", nfa: out }
}

const isEdge = (n: RegexpNode, kind: "start" | "end"): boolean => n.type === "Assertion" && n.kind === kind

/** The first construct under `n` the automaton does not model, or undefined. */
const irregular = (n: RegexpNode): string | undefined => {
  const stack: Array<RegexpNode> = [n]
  while (stack.length > 0) {
    const x = stack.pop()!
    if (x.type === "Backreference") return "pattern with a backreference"
    if (x.type === "Assertion") {
      if (x.kind === "lookahead" || x.kind === "lookbehind") return "pattern with lookaround"
      if (x.kind === "word") return "pattern with a word boundary (\\b, \\B)"
      return "pattern with ^ or $ inside (not at an edge)"
    }
    for (const k of ["alternatives", "elements"] as const) {
      const v = x[k]
      if (Array.isArray(v)) for (const c of v) stack.push(c as RegexpNode)
    }
    const e = x["element"]
    if (typeof e === "object" && e !== null) stack.push(e as RegexpNode)
  }
  return undefined
}

/** Whether the automaton accepts `s` (the differential self-test compares this with `RegExp.test`). */
export const accepts = (l: Extract<Language, { _tag: "Language" }>, s: string): boolean => l.nfa.test(Words.fromStringToUnicode(s))

/** Code points of length within [min, max] (undefined when that needs too many states, or means nothing). */
const lengths = (min: number, max: number): NFA | undefined => {
  if (min <= 0 && max === Infinity) return undefined
  const hi = max === Infinity ? min : max
  if (hi > MAX_LENGTH_STATES) return undefined
  const n = NFA.fromCharSet(CharSet.all(maxCharacter), factory())
  n.quantify(Math.max(0, min), max, factory())
  return n
}

/** The strings every cloud pattern matches, with a length in the window (the window only when it is cheap). */
const cloudLanguage = (cloud: ReadonlyArray<string>, min: number, max: number): NFA | Unsupported => {
  let acc: NFA | undefined = lengths(min, max)
  for (const p of cloud) {
    const l = language(p)
    if (l._tag === "Unsupported") return l
    acc = acc === undefined ? l.nfa : NFA.fromIntersection(acc, l.nfa, factory())
  }
  return acc ?? NFA.all({ maxCharacter })
}

const complements = new Map<string, DFA | Unsupported>()

/** The strings the local pattern does not match, as a minimal DFA (cached by source). */
const complement = (pattern: string): DFA | Unsupported => {
  const known = complements.get(pattern)
  if (known !== undefined) return known
  const built = guarded(() => {
    const l = language(pattern)
    if (l._tag === "Unsupported") return l
    const d = DFA.fromFA(l.nfa, timed(new DFA.LimitedNodeFactory(DFA_LIMIT)))
    d.minimize()
    d.complement()
    return d
  })
  if (complements.size > 2_000) complements.clear()
  complements.set(pattern, built)
  return built
}

const inclusions = new Map<string, Inclusion>()

/**
 * Whether every string that matches all `cloud` patterns (with `min`..`max` code points) matches `local`;
 * when not, up to `count` such strings the local pattern rejects, each re-tested with the real regexes.
 */
export const includes = (cloud: ReadonlyArray<string>, local: string, min = 0, max = Infinity, count = 4): Inclusion => {
  const key = JSON.stringify([cloud, local, min, max === Infinity ? -1 : max, count])
  const known = inclusions.get(key)
  if (known !== undefined) return known
  const result = guarded((): Inclusion => {
    const c = cloudLanguage(cloud, min, max)
    if ("_tag" in c) return c
    const d = complement(local)
    if ("_tag" in d) return d
    if (isDisjointWith(c, d, LIMIT * 2)) return { _tag: "Included" }
    const r = regex(local)
    const ok = (s: string) => r !== undefined && !r.test(s) && fits(s, cloud, min, max)
    return { _tag: "Excluded", witnesses: words(getIntersectionWordSets(c, d, LIMIT * 2), ok, count) }
  })
  if (inclusions.size > 5_000) inclusions.clear()
  inclusions.set(key, result)
  return result
}

const samples = new Map<string, ReadonlyArray<string>>()

const empties = new Map<string, boolean>()

/** Whether no string matches every pattern with `min`..`max` code points (false whenever it cannot tell). */
export const isEmpty = (patterns: ReadonlyArray<string>, min = 0, max = Infinity): boolean => {
  const key = JSON.stringify([patterns, min, max === Infinity ? -1 : max])
  const known = empties.get(key)
  if (known !== undefined) return known
  const found = guarded(() => {
    const l = cloudLanguage(patterns, min, max)
    return "_tag" in l ? l : { empty: l.isEmpty }
  })
  const empty = "empty" in found && found.empty
  if (empties.size > 5_000) empties.clear()
  empties.set(key, empty)
  return empty
}

/**
 * Up to `count` strings that match every `include` pattern and no `exclude` pattern, with `min`..`max`
 * code points (witness candidates: property names and string values), re-tested with the real regexes.
 */
export const strings = (include: ReadonlyArray<string>, exclude: ReadonlyArray<string>, min = 0, max = Infinity, count = 4): ReadonlyArray<string> => {
  const key = JSON.stringify([include, exclude, min, max === Infinity ? -1 : max, count])
  const known = samples.get(key)
  if (known !== undefined) return known
  const found = guarded((): ReadonlyArray<string> => {
    let acc = cloudLanguage(include, min, max)
    if ("_tag" in acc) return []
    for (const p of exclude) {
      const d = complement(p)
      if ("_tag" in d) return []
      acc = NFA.fromIntersection(acc, d, factory())
    }
    const rs = exclude.map(regex)
    const ok = (s: string) => fits(s, include, min, max) && rs.every((r) => r !== undefined && !r.test(s))
    return words(acc.wordSets(), ok, count)
  })
  const out = "_tag" in found ? [] : found
  if (samples.size > 5_000) samples.clear()
  samples.set(key, out)
  return out
}

const fits = (s: string, cloud: ReadonlyArray<string>, min: number, max: number): boolean => {
  const n = [...s].length
  return n >= min && n <= max && cloud.every((p) => regex(p)?.test(s) === true)
}

/** Readable words from word sets, shortest first, that pass `ok`; bounded in how many sets it looks at. */
const words = (sets: Iterable<ReadonlyArray<CharSet>>, ok: (s: string) => boolean, count: number): ReadonlyArray<string> => {
  const out: Array<string> = []
  let seen = 0
  for (const set of sets) {
    if (++seen > 64 || out.length >= count) break
    // the most readable word of the set, then a few others of it (`^[ab]` has the one set {a, b})
    const picks = [Words.pickMostReadableWord(set)]
    for (const w of Words.wordSetToWords(set)) if (picks.push(w) > 3) break
    for (const w of picks) {
      const s = Words.fromUnicodeToString(w)
      if (out.length < count && ok(s) && !out.includes(s)) out.push(s)
    }
  }
  return out
}
