/**
 * The pattern automata against the engine Ajv runs: on random and fixed patterns and random strings, the
 * automaton accepts exactly what `new RegExp(p, "u").test` accepts; an `Included` verdict is never
 * contradicted by a string, and every witness matches the cloud patterns and not the local one.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as path from "node:path"
import { Worker } from "node:worker_threads"
import * as Automata from "../../src/internal/patternAutomata.js"

const atom = FastCheck.constantFrom("a", "b", "0", "_", "-", "\\.", ".", "[a-c]", "[^a]", "\\d", "\\w", "\\s", "\\D", "[0-9a-f]", "\\u{1F600}", "é", "\\n")
const quantifier = FastCheck.constantFrom("", "", "", "?", "*", "+", "{2}", "{1,3}", "{0,}", "*?")

/** Small regexes, as JSON Schema patterns are: a few pieces, groups nested at most twice. */
const regexArb: FastCheck.Arbitrary<string> = FastCheck.letrec<{ re: string; piece: string; seq: string }>((tie) => ({
  piece: FastCheck.tuple(FastCheck.oneof({ maxDepth: 2, depthIdentifier: "group" }, atom, tie("re").map((r) => `(?:${r})`), tie("re").map((r) => `(${r})`)), quantifier).map(([a, q]) => a + q),
  seq: FastCheck.array(tie("piece"), { minLength: 0, maxLength: 3 }).map((ps) => ps.join("")),
  re: FastCheck.array(tie("seq"), { minLength: 1, maxLength: 2 }).map((as) => as.join("|"))
})).re

/** A top-level alternative may be anchored at either edge. */
const pattern = FastCheck.array(FastCheck.tuple(FastCheck.boolean(), regexArb, FastCheck.boolean()), { minLength: 1, maxLength: 2 })
  .map((alts) => alts.map(([s, body, e]) => `${s ? "^" : ""}${body}${e ? "$" : ""}`).join("|"))

const text = FastCheck.array(FastCheck.constantFrom("a", "b", "c", "0", "9", "_", "-", ".", " ", "\n", "é", "😀", "x", "A"), { maxLength: 8 }).map((cs) => cs.join(""))

const fixed = ["abc", "^abc$", "^[a-z]{3}$", "[a-z]+", "^$", "", "^a|b$", "^(?:ab|c)+$", "x\\d{2,}", "^\\p{L}+$", "[^\\s]", "^.{2,4}$", "😀", "^\\w+@\\w+\\.com$"]

describe("patternAutomata", () => {
  it("rejects what it cannot model exactly", () => {
    for (const p of ["a(?=b)", "(?<!a)b", "\\bword", "a\\B", "(a)\\1", "(?<n>a)\\k<n>", "a$b", "(^a)", "(?:a|^b)"]) {
      assert.strictEqual(Automata.language(p)._tag, "Unsupported", p)
    }
    assert.strictEqual(Automata.language("(")._tag, "Unsupported")
  })

  it("decides the issue's examples", () => {
    assert.deepStrictEqual(Automata.includes(["^[a-z]{3}$"], "[a-z]+"), { _tag: "Included" })
    const abc = Automata.includes(["abc"], "^abc$")
    assert.strictEqual(abc._tag, "Excluded")
    if (abc._tag === "Excluded") {
      assert.isTrue(abc.witnesses.length > 0)
      for (const w of abc.witnesses) assert.isTrue(/abc/u.test(w) && !/^abc$/u.test(w), w)
    }
    assert.deepStrictEqual(Automata.includes(["^[a-z]+$"], "^[a-z]{1,3}$", 0, 3), { _tag: "Included" })
    assert.strictEqual(Automata.includes(["^[a-z]+$"], "^[a-z]{1,3}$")._tag, "Excluded")
    assert.deepStrictEqual(Automata.includes(["^\\d{4}-\\d{2}-\\d{2}$"], "^[0-9-]+$"), { _tag: "Included" })
    assert.strictEqual(Automata.includes([], "^x")._tag, "Excluded")
    assert.strictEqual(Automata.includes(["a.{40}"], "b.{40}")._tag, "Unsupported")
  })

  it("draws names inside some patterns and outside others", () => {
    for (const k of Automata.strings(["^n_"], [])) assert.isTrue(k.startsWith("n_"), k)
    const outside = Automata.strings([], ["^n_", "^x"])
    assert.isTrue(outside.length > 0)
    for (const k of outside) assert.isTrue(!k.startsWith("n_") && !k.startsWith("x"), k)
  })

  it.prop("accepts exactly what RegExp.test accepts (fixed patterns)", [FastCheck.constantFrom(...fixed), text], ([p, s]) => {
    const l = Automata.language(p)
    if (l._tag === "Unsupported") return true
    assert.strictEqual(Automata.accepts(l, s), new RegExp(p, "u").test(s), `${p} on ${JSON.stringify(s)}`)
    return true
  }, { fastCheck: { numRuns: 600 } })

  it.prop("accepts exactly what RegExp.test accepts (random patterns)", [pattern, FastCheck.array(text, { minLength: 1, maxLength: 12 })], ([p, ss]) => {
    const l = Automata.language(p)
    if (l._tag === "Unsupported") return true
    const r = new RegExp(p, "u")
    for (const s of ss) assert.strictEqual(Automata.accepts(l, s), r.test(s), `${p} on ${JSON.stringify(s)}`)
    return true
  }, { fastCheck: { numRuns: 300 } })

  it.prop("never proves an inclusion a string contradicts; witnesses are real", [pattern, pattern, FastCheck.array(text, { maxLength: 16 })], ([c, l, ss]) => {
    const o = Automata.includes([c], l)
    const rc = new RegExp(c, "u"), rl = new RegExp(l, "u")
    if (o._tag === "Included") for (const s of ss) assert.isFalse(rc.test(s) && !rl.test(s), `${c} ⊆ ${l} but ${JSON.stringify(s)}`)
    if (o._tag === "Excluded") for (const w of o.witnesses) assert.isTrue(rc.test(w) && !rl.test(w), w)
    return true
  }, { fastCheck: { numRuns: 200 } })

  /** `n` alternatives of 200 repetitions: each one's automaton is under the node limit, together past the step budget. */
  const alternatives = (n: number) => Array.from({ length: n }, (_, i) => `${String.fromCharCode(97 + i)}{200}`).join("|")

  it("the budget is counted in steps: the same pattern is past it every time, a smaller one is not", () => {
    const past = Automata.language(alternatives(10))
    assert.deepStrictEqual(past, { _tag: "Unsupported", reason: `pattern automaton past its budget (${Automata.MAX_STEPS} steps)` })
    assert.strictEqual(Automata.language(alternatives(4))._tag, "Language")
    assert.strictEqual(Automata.includes([alternatives(12)], "^a")._tag, "Unsupported")
  })

  it("witnesses come from a search bounded by the automaton, not an enumeration exponential in the word's length", () => {
    // refa's word sets took minutes (and gigabytes) for this pair; the search takes one pass over the states
    const o = Automata.includes(["budget analysis"], "Error")
    assert.strictEqual(o._tag, "Excluded")
    if (o._tag === "Excluded") assert.include(o.witnesses, "budget analysis")
    assert.include(Automata.strings(["budget analysis"], ["Error"]), "budget analysis")
  })

  it("gives the same verdicts with the CPU busy", async () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["^[a-z]{3}$"], "[a-z]+"], [["abc"], "^abc$"], [["a.{40}"], "b.{40}"], [["a.{12}"], "b.{12}"], [[alternatives(6)], "^a"],
      [[alternatives(10)], "^a"], [["^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.)+[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$"], "^[a-z0-9.-]+$"],
      [["^\\d{4}-\\d{2}-\\d{2}$"], "^[0-9]{4}-"], [["x.{0,30}y"], "^x"]
    ]
    const verdicts = (m: typeof Automata) => JSON.stringify(cases.map(([c, l]) => [m.includes(c, l), m.strings(c, [l])]))
    const idle = verdicts(Automata)
    // the automata built afresh in a worker (its own module, no cache) while two more threads spin
    const stop = new Int32Array(new SharedArrayBuffer(4))
    const spin = "const { workerData } = require('node:worker_threads'); const s = new Int32Array(workerData); while (Atomics.load(s, 0) === 0) {}"
    const spinners = [0, 1].map(() => new Worker(spin, { eval: true, workerData: stop.buffer }))
    const file = path.resolve(import.meta.dirname, "../../src/internal/patternAutomata.ts")
    const build = `
      const { parentPort, workerData } = require("node:worker_threads")
      import("tsx/esm/api").then(async ({ tsImport }) => {
        const m = await tsImport(workerData.file, workerData.file)
        parentPort.postMessage((${verdicts.toString()})(m))
      })`
    try {
      const busy = await new Promise<string>((resolve, reject) => {
        const w = new Worker(`const cases = ${JSON.stringify(cases)};${build}`, { eval: true, workerData: { file } })
        w.once("message", (m: string) => { void w.terminate(); resolve(m) })
        w.once("error", reject)
      })
      assert.strictEqual(busy, idle)
    } finally {
      Atomics.store(stop, 0, 1)
      await Promise.all(spinners.map((w) => w.terminate()))
    }
  }, 120_000)
})
