/**
 * Random sessions as plans: per turn, rounds of model output mixing valid calls, near-miss calls the
 * lenient preflight repairs, invalid calls, unknown tool names, refs to earlier calls (valid and broken),
 * event-contract violations and provider failures; random limits and session options. A plan is abstract:
 * `sessionModel.ts` turns it into a `Script` and, alongside, predicts what the session must do.
 */
import { FastCheck as fc } from "effect"
import type { JsonValue as J } from "@toolgate/json-schema"
import type { ToolName } from "./sessionTools.js"

/** Arguments as the model sends them (`undefined`: no `arguments` key) and, when valid, the value validation yields. */
export interface Args {
  readonly raw: J.JsonValue | undefined
  readonly canonical?: J.JsonValue
}

/** A call of a known tool whose arguments are valid as sent (`nearMiss`: only after the lenient preflight). */
export interface ValidCall { readonly _tag: "Valid"; readonly tool: ToolName; readonly args: Args; readonly nearMiss: boolean }
/** A call of a known tool whose arguments no rule repairs. */
export interface InvalidCall { readonly _tag: "Invalid"; readonly tool: ToolName; readonly args: Args }
/** A call of a tool the toolkit does not have. */
export interface UnknownCall { readonly _tag: "Unknown"; readonly name: string; readonly args: Args }

/** How a ref call is built: `valid` points at a successful earlier call of this turn; the others are broken on purpose. */
export type RefMode =
  | "valid" | "unknownId" | "missingPath" | "protoPath" | "typeMismatch" | "failedTarget" | "otherTurn" | "sameRound" | "artifact"
/** A call whose arguments hold a sentinel ref; the target is chosen when the script is rendered (`pick` among candidates). */
export interface RefCall { readonly _tag: "Ref"; readonly mode: RefMode; readonly pick: number; readonly asText: boolean }

/** `lookup` with `options: null`: what a strict-mode model sends for an optional property; valid only when the tool went out `strict`. */
export interface StrictNullCall { readonly _tag: "StrictNull"; readonly args: Args }

/** One call of a round. */
export type CallPlan = ValidCall | InvalidCall | UnknownCall | RefCall | StrictNullCall

/** A way a round breaks the event contract. */
export type Violation = "missingDone" | "duplicateCallId" | "eventAfterDone" | "wrongModel"

/** Token usage of a round, if it reports any. */
export type Usage = readonly [input: number, output: number] | undefined

/** A round of model output. */
export type RoundPlan =
  | { readonly _tag: "Calls"; readonly text: string; readonly calls: ReadonlyArray<CallPlan>; readonly partials: boolean; readonly usage: Usage; readonly violation: Violation | undefined }
  | { readonly _tag: "Answer"; readonly chunks: ReadonlyArray<string>; readonly usage: Usage; readonly violation: Violation | undefined }
  | { readonly _tag: "Fail"; readonly reason: string; readonly retryable: boolean }

/** A whole session: limits, options and the rounds of each send. */
export interface SessionPlan {
  readonly repairs: number
  readonly roundTrips: number
  readonly chaining: boolean
  readonly scope: "turn" | "session"
  readonly parallel: boolean
  /**
   * The provider `requiresNetworking`: a pre-transmit filter rewrites every request (user text upper-cased),
   * fails the `failAt`-th (0-based, over the session) and interrupts the send at the `interruptAt`-th: faults
   * between rounds, after earlier rounds' tools ran.
   */
  readonly network: { readonly failAt: number | undefined; readonly interruptAt: number | undefined } | undefined
  /** Whether the provider honours `toolChoice`; each send's choice is `choices[i]` (`auto` when absent). */
  readonly supportsToolChoice: boolean
  readonly choices: ReadonlyArray<"auto" | "required" | "none">
  /** After send `i`, `undoLastTurn` runs when `undoAfter[i]` (absent: no). */
  readonly undoAfter: ReadonlyArray<boolean>
  /** The provider's schema dialect: `openai-strict` sends the tools `strict`, so a null optional is dropped. */
  readonly dialect: "none" | "openai-strict"
  /** `unique` call ids, or ids every round reuses (`__proto__`, `call_1`, `constructor`, as some models do; refs then point nowhere). */
  readonly ids: "unique" | "perRound"
  readonly turns: ReadonlyArray<ReadonlyArray<RoundPlan>>
}

const level = fc.integer({ min: 0, max: 10 })
const cities = ["Oslo", "Lima", "Quito", "Reykjavik", "Atlantis"] as const
const fruit = fc.subarray(["pear", "fig", "apple", "kiwi"], { maxLength: 4 })
const order = fc.constantFrom("asc", "desc")

const exact = (value: J.JsonValue): Args => ({ raw: value, canonical: value })

/** Arguments each tool accepts exactly as sent. */
export const validArgs: Readonly<Record<ToolName, fc.Arbitrary<Args>>> = {
  set_volume: level.map((n) => exact({ level: n })),
  sort_list: fc.tuple(fruit, order).map(([items, o]) => exact({ items, order: o })),
  lookup: fc.tuple(fc.constantFrom(...cities), fc.option(fc.constantFrom("c", "f"), { nil: undefined })).map(([city, units]) =>
    exact(units === undefined ? { city } : { city, options: { units } })),
  pick_even: fc.integer({ min: 0, max: 5 }).map((k) => exact({ n: 2 * k }))
}

/** Arguments the lenient preflight repairs (a numeric string, a key's spelling, JSON text, a wrapper, an enum's case). */
export const nearMissArgs: Readonly<Record<ToolName, fc.Arbitrary<Args>>> = {
  set_volume: fc.tuple(level, fc.constantFrom("string", "Key", "text", "wrapped")).map(([n, how]): Args => {
    const canonical = { level: n }
    switch (how) {
      case "string": return { raw: { level: String(n) }, canonical }
      case "Key": return { raw: { Level: n }, canonical }
      case "text": return { raw: JSON.stringify(canonical), canonical }
      default: return { raw: { properties: canonical }, canonical }
    }
  }),
  sort_list: fc.tuple(fruit, fc.constantFrom("ASC", "Desc")).map(([items, o]) => ({
    raw: { items, order: o },
    canonical: { items, order: o.toLowerCase() }
  })),
  lookup: fc.tuple(fc.constantFrom(...cities), fc.constantFrom("C", "F")).map(([city, units]) => ({
    raw: { city, options: { units } },
    canonical: { city, options: { units: units.toLowerCase() } }
  })),
  pick_even: fc.integer({ min: 0, max: 5 }).map((k) => ({ raw: { n: String(2 * k) }, canonical: { n: 2 * k } }))
}

/** Arguments no rule repairs: out of range, fractional, missing, extra keys, wrong types, unparseable text, bad enum, hostile shapes. */
export const invalidArgs: Readonly<Record<ToolName, ReadonlyArray<J.JsonValue | undefined>>> = {
  set_volume: [
    { level: 11 }, { level: -1 }, { level: 2.5 }, {}, undefined, null, { level: 3, zzz: 1 }, "{\"level\":", { level: "loud" }, [],
    // hostile: 10,000 levels of nesting (as JSON text), an own `__proto__` key (as text and as a parsed value)
    `{"level":${"[".repeat(10_000)}1${"]".repeat(10_000)}}`, "{\"__proto__\":{\"level\":3}}", JSON.parse("{\"__proto__\":{\"level\":3}}")
  ],
  sort_list: [{ items: ["fig"], order: "up" }, { items: ["a", "b", "c", "d", "e"], order: "asc" }, { items: [true], order: "asc" }, { order: "asc" }],
  lookup: [{ city: "" }, { city: "Oslo", options: { units: "k" } }, { town: "Oslo" }, { city: 42 }],
  // odd numbers pass the JSON Schema; only the Effect Schema's filter rejects them
  pick_even: [{ n: 3 }, { n: 7 }, { n: "5" }, {}, { n: 2.5 }]
}

/** Names the toolkit does not have (a near spelling, prototype keys, a trailing space). */
export const unknownNames = ["launch_rockets", "Set_Volume", "set_volume ", "__proto__", "constructor", ""] as const

const toolName = fc.constantFrom<ToolName>("set_volume", "sort_list", "lookup", "pick_even")

const validCall: fc.Arbitrary<CallPlan> = toolName.chain((tool) =>
  validArgs[tool].map((args): CallPlan => ({ _tag: "Valid", tool, args, nearMiss: false })))
const nearMissCall: fc.Arbitrary<CallPlan> = toolName.chain((tool) =>
  nearMissArgs[tool].map((args): CallPlan => ({ _tag: "Valid", tool, args, nearMiss: true })))
const invalidCall: fc.Arbitrary<CallPlan> = toolName.chain((tool) =>
  fc.constantFrom(...invalidArgs[tool]).map((raw): CallPlan => ({ _tag: "Invalid", tool, args: { raw } })))
const unknownCall: fc.Arbitrary<CallPlan> = fc.tuple(fc.constantFrom(...unknownNames), validArgs.set_volume).map(
  ([name, args]): CallPlan => ({ _tag: "Unknown", name, args }))
const refCallWith = (valid: number, otherTurn: number): fc.Arbitrary<CallPlan> => fc.record({
  mode: fc.oneof(
    { weight: valid, arbitrary: fc.constant<RefMode>("valid") },
    { weight: otherTurn, arbitrary: fc.constant<RefMode>("otherTurn") },
    { weight: 5, arbitrary: fc.constantFrom<RefMode>("unknownId", "missingPath", "protoPath", "typeMismatch", "failedTarget", "sameRound", "artifact") }
  ),
  pick: fc.nat(7),
  asText: fc.boolean()
}).map((r): CallPlan => ({ _tag: "Ref", ...r }))
const refCall = refCallWith(6, 1)

/** `lookup` with a strict-mode null for its optional `options`. */
export const strictNullArgs: fc.Arbitrary<Args> = fc.constantFrom(...cities).map((city) => ({ raw: { city, options: null }, canonical: { city } }))
const strictNullCall: fc.Arbitrary<CallPlan> = strictNullArgs.map((args): CallPlan => ({ _tag: "StrictNull", args }))

/** One call: valid, near-miss, invalid, unknown, a ref, or a strict-mode null. */
export const call: fc.Arbitrary<CallPlan> = fc.oneof(
  { weight: 1, arbitrary: strictNullCall },
  { weight: 5, arbitrary: validCall },
  { weight: 2, arbitrary: nearMissCall },
  { weight: 2, arbitrary: invalidCall },
  { weight: 1, arbitrary: unknownCall },
  { weight: 3, arbitrary: refCall }
)

const usage: fc.Arbitrary<Usage> = fc.option(fc.tuple(fc.nat(40), fc.nat(40)), { nil: undefined })
const violation = (kinds: ReadonlyArray<Violation>): fc.Arbitrary<Violation | undefined> =>
  fc.oneof({ weight: 9, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...kinds) })

const callsRound: fc.Arbitrary<RoundPlan> = fc.record({
  text: fc.constantFrom("", "Let me check.", "On it. "),
  calls: fc.array(call, { minLength: 1, maxLength: 3 }),
  partials: fc.boolean(),
  usage,
  violation: violation(["missingDone", "duplicateCallId", "eventAfterDone", "wrongModel"])
}).map((r): RoundPlan => ({ _tag: "Calls", ...r }))

const answerRound: fc.Arbitrary<RoundPlan> = fc.record({
  chunks: fc.array(fc.constantFrom("Done", ".", " The volume is set", ""), { minLength: 0, maxLength: 3 }),
  usage,
  violation: violation(["missingDone", "eventAfterDone", "wrongModel"])
}).map((r): RoundPlan => ({ _tag: "Answer", ...r }))

const failRound: fc.Arbitrary<RoundPlan> = fc.record({ reason: fc.constantFrom("overloaded", "bad gateway"), retryable: fc.boolean() })
  .map((r): RoundPlan => ({ _tag: "Fail", ...r }))

/** A few rounds of calls (or a failure), then mostly an answer. */
const freeTurn: fc.Arbitrary<ReadonlyArray<RoundPlan>> = fc.tuple(
  fc.array(fc.oneof({ weight: 12, arbitrary: callsRound }, { weight: 1, arbitrary: failRound }), { maxLength: 4 }),
  fc.oneof({ weight: 8, arbitrary: answerRound }, { weight: 1, arbitrary: failRound }, { weight: 1, arbitrary: callsRound })
).map(([rounds, last]) => [...rounds, last])

const plainRound = (calls: fc.Arbitrary<ReadonlyArray<CallPlan>>): fc.Arbitrary<RoundPlan> =>
  fc.record({ calls, usage }).map(({ calls, usage }): RoundPlan => ({ _tag: "Calls", text: "", calls, partials: false, usage, violation: undefined }))

/** A turn that chains: valid calls, then a round of refs (mostly meant to resolve) and valid calls, then an answer. */
const chainTurn: fc.Arbitrary<ReadonlyArray<RoundPlan>> = fc.tuple(
  plainRound(fc.array(validCall, { minLength: 1, maxLength: 2 })),
  plainRound(fc.array(fc.oneof({ weight: 3, arbitrary: refCallWith(6, 5) }, { weight: 1, arbitrary: validCall }), { minLength: 1, maxLength: 2 })),
  fc.array(callsRound, { maxLength: 1 }),
  answerRound
).map(([first, second, more, last]) => [first, second, ...more, last])

/** The rounds of one send: a few rounds of calls, then (mostly) an answer; a quarter of the turns chain calls by ref. */
export const turn: fc.Arbitrary<ReadonlyArray<RoundPlan>> = fc.oneof({ weight: 1, arbitrary: chainTurn }, { weight: 3, arbitrary: freeTurn })

/** A session: limits (repairs 0–3, round trips 1–6), chaining (mostly on, so refs can resolve) and its scope, parallel calls, 1–4 sends. */
export const session: fc.Arbitrary<SessionPlan> = fc.record({
  repairs: fc.integer({ min: 0, max: 3 }),
  roundTrips: fc.integer({ min: 1, max: 6 }),
  chaining: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  scope: fc.constantFrom("turn", "session"),
  parallel: fc.boolean(),
  ids: fc.constantFrom("unique", "unique", "perRound"),
  dialect: fc.constantFrom("none", "openai-strict"),
  undoAfter: fc.array(fc.boolean(), { maxLength: 4 }),
  supportsToolChoice: fc.boolean(),
  choices: fc.array(fc.constantFrom("auto", "auto", "required", "none"), { maxLength: 4 }),
  network: fc.oneof(
    { weight: 2, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.record({ failAt: fc.option(fc.nat(8), { nil: undefined }), interruptAt: fc.option(fc.nat(8), { nil: undefined }) }) }
  ),
  turns: fc.array(turn, { minLength: 1, maxLength: 4 })
})
