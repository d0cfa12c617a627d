/**
 * JSON Schema `pattern`s as finite automata (refa): a pattern is an unanchored search, so its language is
 * `Σ* body Σ*` per top-level alternative, with `^`/`$` at an alternative's edges dropping the `Σ*` on their
 * side (Ajv compiles with the `u` flag only: no `m`, so `^`/`$` are the input's edges). Anything the
 * automaton cannot model exactly (lookaround, backreferences, `\b`/`\B`, `^`/`$` anywhere else) or that
 * grows past the node limits or the step budget (a count, never a clock) is `Unsupported`. Words are code
 * points, as the `u`-flag regex sees them;
 * every string handed out is re-tested with the real `RegExp` before it leaves.
 *
 * @internal
 */
import type { NodeFactory } from "refa"
import { CharSet, DFA, isDisjointWith, JS, MaxCharacterError, NFA, TooManyNodesError, Words } from "refa"
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
/**
 * The nodes one construction may create across all its automata: a count, so a verdict never depends on
 * how busy the machine is. refa's work is bounded by the nodes it creates (the other operations take
 * their own node bounds), so this bounds the work of each construction.
 */
export const MAX_STEPS = 6_000

const unsupported = (reason: string): Unsupported => ({ _tag: "Unsupported", reason })

class OutOfSteps extends Error {}

/** The nodes created so far by one construction (each cached construction counts its own, from zero). */
interface Steps {
  n: number
}

/** Node factories that count into the construction's steps and stop it past `MAX_STEPS`. */
const counted = <S>(steps: Steps, inner: NodeFactory<S>): NodeFactory<S> => ({
  createNode: () => {
    if (++steps.n > MAX_STEPS) throw new OutOfSteps()
    return inner.createNode()
  }
})
const factory = (steps: Steps) => counted(steps, new NFA.LimitedNodeFactory(LIMIT))

const languages = new Map<string, Language>()

/** The language of a JSON Schema `pattern` (cached by source; the NFA returned is never mutated). */
export const language = (pattern: string): Language => {
  const known = languages.get(pattern)
  if (known !== undefined) return known
  const built = guarded((steps) => build(pattern, steps))
  if (languages.size > 2_000) languages.clear()
  languages.set(pattern, built)
  return built
}

/**
 * Runs a construction on steps of its own (so what it returns, cached by its inputs, is the same whatever
 * ran before it), mapping refa's limits (and any parser refusal) to `Unsupported`.
 */
const guarded = <A>(f: (steps: Steps) => A | Unsupported): A | Unsupported => {
  try {
    return f({ n: 0 })
  } catch (e) {
    if (e instanceof OutOfSteps) return unsupported(`pattern automaton past its budget (${MAX_STEPS} steps)`)
    if (e instanceof TooManyNodesError || e instanceof MaxCharacterError || e instanceof RangeError) return unsupported("pattern automaton too large")
    return unsupported(`pattern not modelled (${e instanceof Error ? e.message.slice(0, 80) : "unknown"})`)
  }
}

type RegexpNode = { readonly type: string; readonly kind?: string; readonly [k: string]: unknown }

const build = (pattern: string, steps: Steps): Language => {
  if (regex(pattern) === undefined) return unsupported("pattern (not a valid regular expression)")
  if (pattern.length > MAX_SOURCE) return unsupported("pattern too long to model")
  const parser = JS.Parser.fromLiteral({ source: pattern, flags: "u" })
  const out = NFA.empty({ maxCharacter }, factory(steps))
  for (const alt of parser.ast.pattern.alternatives) {
    const elements = alt.elements as unknown as ReadonlyArray<RegexpNode>
    let from = 0, to = elements.length
    while (from < to && isEdge(elements[from]!, "start")) from++
    while (to > from && isEdge(elements[to - 1]!, "end")) to--
    const bad = elements.slice(from, to).map(irregular).find((r) => r !== undefined)
    if (bad !== undefined) return unsupported(bad)
    const parsed = parser.parseElement(alt, { assertions: "ignore", backreferences: "throw", maxNodes: LIMIT })
    const body = NFA.fromRegex(parsed.expression, { maxCharacter }, { assertions: "throw", unknowns: "throw" }, factory(steps))
    if (from === 0) body.prepend(NFA.all({ maxCharacter }), factory(steps))
    if (to === elements.length) body.append(NFA.all({ maxCharacter }), factory(steps))
    out.union(body, factory(steps))
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
const lengths = (min: number, max: number, steps: Steps): NFA | undefined => {
  if (min <= 0 && max === Infinity) return undefined
  const hi = max === Infinity ? min : max
  if (hi > MAX_LENGTH_STATES) return undefined
  const n = NFA.fromCharSet(CharSet.all(maxCharacter), factory(steps))
  n.quantify(Math.max(0, min), max, factory(steps))
  return n
}

/** The strings every cloud pattern matches, with a length in the window (the window only when it is cheap). */
const cloudLanguage = (cloud: ReadonlyArray<string>, min: number, max: number, steps: Steps): NFA | Unsupported => {
  let acc: NFA | undefined = lengths(min, max, steps)
  for (const p of cloud) {
    const l = language(p)
    if (l._tag === "Unsupported") return l
    acc = acc === undefined ? l.nfa : NFA.fromIntersection(acc, l.nfa, factory(steps))
  }
  return acc ?? NFA.all({ maxCharacter })
}

const complements = new Map<string, DFA | Unsupported>()

/** The strings the local pattern does not match, as a minimal DFA (cached by source). */
const complement = (pattern: string): DFA | Unsupported => {
  const known = complements.get(pattern)
  if (known !== undefined) return known
  const built = guarded((steps) => {
    const l = language(pattern)
    if (l._tag === "Unsupported") return l
    const d = DFA.fromFA(l.nfa, counted(steps, new DFA.LimitedNodeFactory(DFA_LIMIT)))
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
  const result = guarded((steps): Inclusion => {
    const c = cloudLanguage(cloud, min, max, steps)
    if ("_tag" in c) return c
    const d = complement(local)
    if ("_tag" in d) return d
    if (isDisjointWith(c, d, LIMIT * 2)) return { _tag: "Included" }
    const r = regex(local)
    const ok = (s: string) => r !== undefined && !r.test(s) && fits(s, cloud, min, max)
    return { _tag: "Excluded", witnesses: words(c, [d], ok, count) }
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
  const found = guarded((steps) => {
    const l = cloudLanguage(patterns, min, max, steps)
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
  const found = guarded((steps): ReadonlyArray<string> => {
    const acc = cloudLanguage(include, min, max, steps)
    if ("_tag" in acc) return []
    const outside: Array<DFA> = []
    for (const p of exclude) {
      const d = complement(p)
      if ("_tag" in d) return []
      outside.push(d)
    }
    const rs = exclude.map(regex)
    const ok = (s: string) => fits(s, include, min, max) && rs.every((r) => r !== undefined && !r.test(s))
    return words(acc, outside, ok, count)
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

const MAX_WORDS = 64
const readable: ReadonlyArray<number> = [..."aA0x_- "].map((c) => c.codePointAt(0)!)

/** A state of the product of an NFA with DFAs: the word read so far is in the NFA's and each DFA's language at it. */
interface State {
  readonly n: NFA.ReadonlyNode
  readonly ds: ReadonlyArray<DFA.ReadonlyNode>
  readonly from: State | undefined
  readonly via: CharSet | undefined
}

/**
 * Readable words in the NFA's language and every DFA's, shortest first, that pass `ok`: a breadth-first
 * search over the product's states, built as it goes and stopped past `MAX_STEPS` states (refa's
 * word-set enumeration can take time exponential in the length of the shortest word, which no node count
 * bounds); one word per way into each accepting state.
 */
const words = (nfa: NFA, dfas: ReadonlyArray<DFA>, ok: (s: string) => boolean, count: number): ReadonlyArray<string> => {
  const ids = new Map<object, number>()
  const id = (o: object): number => {
    let k = ids.get(o)
    if (k === undefined) ids.set(o, k = ids.size)
    return k
  }
  const key = (n: NFA.ReadonlyNode, ds: ReadonlyArray<DFA.ReadonlyNode>) => [n, ...ds].map(id).join(",")
  const nfaFinals: ReadonlySet<NFA.ReadonlyNode> = nfa.finals
  const accepting = (st: { readonly n: NFA.ReadonlyNode; readonly ds: ReadonlyArray<DFA.ReadonlyNode> }) =>
    nfaFinals.has(st.n) && st.ds.every((d, i) => (dfas[i]!.finals as ReadonlySet<DFA.ReadonlyNode>).has(d))
  const out: Array<string> = []
  let tried = 0
  const attempt = (word: ReadonlyArray<number>) => {
    const s = Words.fromUnicodeToString(word)
    tried++
    if (out.length < count && ok(s) && !out.includes(s)) out.push(s)
  }
  const start: State = { n: nfa.initial, ds: dfas.map((d) => d.initial), from: undefined, via: undefined }
  if (accepting(start)) attempt([])
  const seen = new Set([key(start.n, start.ds)])
  const queue: Array<State> = [start]
  for (let i = 0; i < queue.length && out.length < count && tried < MAX_WORDS; i++) {
    const at = queue[i]!
    for (const [to, via] of at.n.out) {
      for (const next of moves(at.ds, via)) {
        const st: State = { n: to, ds: next.ds, from: at, via: next.via }
        const k = key(to, next.ds)
        if (!seen.has(k)) {
          if (seen.size >= MAX_STEPS) return out
          seen.add(k)
          queue.push(st)
        }
        if (!accepting(st) || out.length >= count || tried >= MAX_WORDS) continue
        // the most readable character into the accepting state, then a few other plain ones of its set
        const head = path(at)
        const plain = [Words.pickMostReadableCharacter(next.via), ...readable.filter((c) => next.via.has(c)), ...first(next.via, 3)]
        for (const c of new Set(plain)) if (c !== undefined) attempt([...head, c])
      }
    }
  }
  return out
}

/** The first `n` characters of a set, in order. */
const first = (set: CharSet, n: number): Array<number> => {
  const out: Array<number> = []
  for (const r of set.ranges) for (let c = r.min; c <= r.max && out.length < n; c++) out.push(c)
  return out
}

/** The DFAs' moves on the characters of `via`: each split of `via` by where every DFA goes. */
const moves = (ds: ReadonlyArray<DFA.ReadonlyNode>, via: CharSet): ReadonlyArray<{ readonly ds: ReadonlyArray<DFA.ReadonlyNode>; readonly via: CharSet }> => {
  let acc: Array<{ readonly ds: ReadonlyArray<DFA.ReadonlyNode>; readonly via: CharSet }> = [{ ds: [], via }]
  for (const d of ds) {
    const next: typeof acc = []
    for (const a of acc) {
      for (const [range, to] of d.out) {
        const x = a.via.intersect(range)
        if (!x.isEmpty) next.push({ ds: [...a.ds, to], via: x })
      }
    }
    acc = next
  }
  return acc
}

/** The most readable word along the search's way to a state. */
const path = (to: State): Array<number> => {
  const word: Array<number> = []
  for (let at: State | undefined = to; at?.via !== undefined; at = at.from) word.push(Words.pickMostReadableCharacter(at.via) ?? at.via.ranges[0]!.min)
  return word.reverse()
}
