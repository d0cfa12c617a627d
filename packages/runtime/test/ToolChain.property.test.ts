import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc } from "effect"
import { JsonSchema, JsonValue, RefAware } from "@toolgate/json-schema"
import { ArgumentValidator, Tool, ToolEnvelope } from "@toolgate/runtime"
import * as ToolChain from "../src/ToolChain.js"

type J = JsonValue.JsonValue

const loose = Tool.make("loose", { description: "any object", parameters: { type: "object" }, execute: () => Effect.void })
const validator = ArgumentValidator.make({ toolChaining: true })
const ok = (result: J) => ToolEnvelope.success(result)

// keys a dotted path can and cannot name, the dangerous ones included (built as own properties)
const key = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.constantFrom("a", "b", "0", "01", "__proto__", "constructor", "prototype", "x.y", "[0]", "", "toString")
)
const leaf: fc.Arbitrary<J> = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string({ maxLength: 8 }), fc.boolean(), fc.constant(null))
const { value: json } = fc.letrec<{ value: J }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", maxDepth: 5 },
    leaf,
    fc.array(tie("value"), { maxLength: 5 }),
    fc.array(fc.tuple(key, tie("value")), { maxLength: 5 }).map((entries) => JsonValue.fromEntries(entries))
  )
}))

/** Whether a dotted path can name `k`. */
const nameable = (k: string): boolean => k !== "" && !/[.[\]]/.test(k) && !["__proto__", "constructor", "prototype"].includes(k)

/** Every position of `root` (token lists, the root first), up to `limit`. */
const positions = (root: J, limit = 500, keep: (k: string) => boolean = () => true): Array<ReadonlyArray<string>> => {
  const out: Array<ReadonlyArray<string>> = []
  const stack: Array<readonly [J, ReadonlyArray<string>]> = [[root, []]]
  while (stack.length > 0 && out.length < limit) {
    const [v, tokens] = stack.pop()!
    out.push(tokens)
    if (typeof v !== "object" || v === null) continue
    const keys = Array.isArray(v) ? v.map((_, i) => String(i)) : Object.keys(v)
    for (const k of keys) {
      if (keep(k)) stack.push([Object.getOwnPropertyDescriptor(v, k)!.value as J, [...tokens, k]])
    }
  }
  return out
}

/** `tokens` as a `$path` under `result`, array indices bracketed or dotted as `bits` say. */
const render = (root: J, tokens: ReadonlyArray<string>, bits: number): string => {
  let out = "result"
  let cur: J = root
  tokens.forEach((t, i) => {
    out += Array.isArray(cur) && (bits >> (i % 30)) & 1 ? `[${t}]` : `.${t}`
    cur = Object.getOwnPropertyDescriptor(cur, t)!.value as J
  })
  return out
}

/** `root` with `value` at `tokens`, copied (own keys kept, `__proto__` included), never mutated. */
const setAt = (root: J, tokens: ReadonlyArray<string>, value: J): J => {
  if (tokens.length === 0) return value
  const [head, ...rest] = tokens as [string, ...Array<string>]
  const child = Object.getOwnPropertyDescriptor(root, head)!.value as J
  if (Array.isArray(root)) return root.map((v, i) => String(i) === head ? setAt(child, rest, value) : v)
  return JsonValue.fromEntries(Object.keys(root as object).map((k) => [k, k === head ? setAt(child, rest, value) : (root as JsonValue.JsonObject)[k]!]))
}

const resolveWith = (raw: J, results: ToolChain.Results) =>
  Effect.gen(function*() {
    const v = yield* validator
    const outcome = yield* v.prepare(loose, raw, { callId: "call_next" })
    if (outcome._tag !== "Referencing") return yield* Effect.die(`expected Referencing, got ${outcome._tag}`)
    return yield* Effect.either(ToolChain.resolve(v, loose, outcome, results))
  })

describe("ToolChain properties", () => {
  it.effect.prop(
    "a ref built from a path of a random result resolves to exactly the value at that path",
    [json, fc.nat(), fc.nat()],
    ([result, pick, bits]) =>
      Effect.gen(function*() {
        const paths = positions(result, 500, nameable)
        const tokens = paths[pick % paths.length]!
        const expected = JsonSchema.Pointer.get(result, JsonSchema.Pointer.format(tokens))!
        const path = render(result, tokens, bits)
        const results = new Map([["call_1", ok(result)]])
        const at = ToolChain.valueAt(results.get("call_1")!, path)
        assert.isTrue(Either.isRight(at) && JsonValue.equals(at.right, expected), path)
        const outcome = yield* resolveWith({ pick: { $tool: "call_1", $path: path }, keep: 1 }, results)
        const value = Either.getOrThrow(outcome).value as JsonValue.JsonObject
        assert.isTrue(JsonValue.equals(value, { pick: expected, keep: 1 }), path)
        if (tokens.length === 0) assert.isTrue(JsonValue.equals(value["pick"]!, Either.getOrThrow(ToolChain.valueAt(ok(result), undefined))))
      }),
    { timeout: 60_000 }
  )

  it.effect.prop(
    "a path with a forbidden segment anywhere is always invalid, even where the result has that own key",
    [
      fc.array(
        fc.oneof(
          fc.stringMatching(/^[a-z_$][a-z0-9_$]{0,5}$/).map((name) => ({ name, bracket: false })),
          fc.tuple(fc.nat(20), fc.boolean()).map(([n, bracket]) => ({ name: String(n), bracket }))
        ),
        { maxLength: 6 }
      ),
      fc.constantFrom("__proto__", "constructor", "prototype"),
      fc.nat(),
      fc.boolean()
    ],
    ([segments, bad, at, underResult]) =>
      Effect.gen(function*() {
        const i = at % (segments.length + 1)
        const all = [...segments.slice(0, i), { name: bad, bracket: false }, ...segments.slice(i)]
        // the result holds exactly this chain of own keys, so only the rule can refuse the path
        let result: J = "found"
        for (let k = all.length - 1; k >= 0; k--) result = JsonValue.fromEntries([[all[k]!.name, result]])
        const written = all.map((s) => s.bracket ? `[${s.name}]` : `.${s.name}`).join("")
        const path = underResult ? `result${written}` : written.replace(/^\./, "")
        const results = new Map([["call_1", ok(result)]])
        const at1 = ToolChain.valueAt(results.get("call_1")!, path)
        assert.isTrue(Either.isLeft(at1) && at1.left.includes(`\`${bad}\``), `${path}: ${JSON.stringify(at1)}`)
        const outcome = yield* resolveWith({ x: { $tool: "call_1", $path: path } }, results)
        const e = Either.isLeft(outcome) ? outcome.left : undefined
        if (e?._tag !== "InvalidToolArguments") return assert.fail(`expected InvalidToolArguments for ${path}`)
        assert.deepStrictEqual([e.envelope.field, e.issues[0]!.keyword], ["x", "$path"])
        assert.isUndefined((Object.prototype as Record<string, unknown>)[all[0]!.name === bad ? "found" : all[0]!.name])
      }),
    { timeout: 60_000 }
  )

  it.effect.prop(
    "substitution leaves every non-ref part of the arguments unchanged and never mutates them",
    [json, fc.array(fc.nat(), { minLength: 1, maxLength: 6 }), fc.array(json, { minLength: 6, maxLength: 6 })],
    ([tree, picks, values]) =>
      Effect.gen(function*() {
        const args: J = { root: tree, other: [1, "two", { three: null }] }
        const all = positions(args).filter((t) => t.length > 0)
        const chosen = [...new Set(picks.map((p) => p % all.length))].map((n) => all[n]!)
          .filter((t, _, list) => !list.some((o) => o !== t && o.length < t.length && o.every((x, k) => x === t[k])))
        let withRefs: J = args
        let expected: J = args
        const results = new Map<string, ToolEnvelope.Envelope>()
        chosen.forEach((tokens, n) => {
          const value = values[n % values.length]!
          results.set(`call_${n}`, ok(JsonValue.fromEntries([["v", value]])))
          withRefs = setAt(withRefs, tokens, n % 2 === 0 ? { $tool: `call_${n}`, $path: "result.v" } : { $tool: `call_${n}`, $path: "result[v]" })
          expected = setAt(expected, tokens, value)
        })
        // odd refs use a malformed bracket (`[v]`): they make the call invalid; even ones resolve
        const snapshot = JsonValue.stringify(withRefs)
        const outcome = yield* resolveWith(withRefs, results)
        assert.strictEqual(JsonValue.stringify(withRefs), snapshot, "the arguments are not mutated")
        const broken = chosen.filter((_, n) => n % 2 === 1)
        if (broken.length > 0) {
          const e = Either.isLeft(outcome) ? outcome.left : undefined
          assert.strictEqual(e?._tag, "InvalidToolArguments")
          if (e?._tag === "InvalidToolArguments") {
            assert.sameMembers(e.issues.map((i) => i.path), broken.map((t) => JsonSchema.Pointer.format(t)))
          }
          return
        }
        assert.isTrue(JsonValue.equals(Either.getOrThrow(outcome).value, expected))
      }),
    { timeout: 60_000 }
  )

  it.effect.prop(
    "resolution never consults an id absent from the results map, and such a ref is always invalid",
    [fc.uniqueArray(fc.string({ maxLength: 6 }), { maxLength: 8 }), fc.string({ minLength: 1, maxLength: 6 })],
    ([ids, wanted]) =>
      Effect.gen(function*() {
        const asked: Array<string> = []
        class Recording extends Map<string, ToolEnvelope.Envelope> {
          override get(id: string) {
            asked.push(id)
            return super.get(id)
          }
        }
        const present = ids.filter((id) => id !== wanted)
        const results = new Recording(present.map((id) => [id, ok({ id })]))
        const elsewhere = new Map([[wanted, ok({ id: wanted })]])
        const outcome = yield* resolveWith({ x: { $tool: wanted } }, results)
        assert.deepStrictEqual(asked, [wanted])
        assert.isTrue(Either.isLeft(outcome))
        if (Either.isLeft(outcome) && outcome.left._tag === "InvalidToolArguments") {
          assert.deepStrictEqual([outcome.left.envelope.field, outcome.left.issues[0]!.keyword], ["x", "$tool"])
        }
        assert.strictEqual(elsewhere.size, 1)
      }),
    { timeout: 60_000 }
  )

  it.prop("valueAt is total over any path string and any result", [json, fc.string({ maxLength: 40 })], ([result, path]) => {
    const at = ToolChain.valueAt(ok(result), path)
    assert.isTrue(Either.isLeft(at) || JsonValue.isJsonValue(at.right))
    if (Either.isRight(at)) assert.isTrue(RefAware.isRef(at.right) || JsonValue.equals(at.right, JsonSchema.Pointer.get(ok(result), JsonSchema.Pointer.format(path.replace(/\[(\d+)\]/g, ".$1").split(".")))!), path)
  })
})
