/**
 * What each demo scenario claims beyond how its turn ended (the gate proved, nothing was requested, no
 * tool ran, the history was rolled back, a ref resolved to the right value), checked on what happened.
 *
 * @internal
 */
import { JsonSchema, JsonValue, Normalize, Validator } from "@toolgate/json-schema"
import type { AgentSession, Message } from "@toolgate/runtime"
import * as Demo from "@toolgate/relay/Demo"
import * as Either from "effect/Either"
import type { Step } from "./demoTrace.js"
import type { Declaration, Offered } from "./demoRequests.js"
import type { Ran } from "./demoTools.js"

/** How the send ended. */
export type Outcome =
  | { readonly _tag: "Committed"; readonly turn: AgentSession.Turn }
  | { readonly _tag: "Failed"; readonly error: string; readonly message: string; readonly fields: Readonly<Record<string, unknown>> }

/** One claim and whether it held. */
export interface Check {
  readonly claim: string
  readonly ok: boolean
}

/** What a scenario's checks read. */
export interface Observed {
  readonly outcome: Outcome
  readonly ran: ReadonlyArray<Ran>
  readonly history: ReadonlyArray<Message.Message>
  readonly requests: number
  /** What each stream request offered the model. */
  readonly offered: ReadonlyArray<Offered>
  readonly trace: ReadonlyArray<Step>
  /** The function declarations the relay's model says it received (Gemini's wire; else none). */
  readonly declared: ReadonlyArray<Declaration>
}

const check = (claim: string, ok: boolean): Check => ({ claim, ok })

const gate = (o: Observed) => o.trace.find((s) => s.step === "gate")

const onlyUser = (o: Observed): Check =>
  check("history rolled back to the user's message", o.history.length === 1 && o.history[0]?._tag === "User")

const noneRan = (o: Observed): Check => check("no tool ran", o.ran.length === 0)

const field = (o: Observed, name: string): unknown => o.outcome._tag === "Failed" ? o.outcome.fields[name] : undefined

const ranWith = (o: Observed, tool: string, key: string, value: unknown): Check =>
  check(
    `${tool} ran with ${key} = ${JSON.stringify(value)}`,
    o.ran.some((r) => r.tool === tool && typeof r.args === "object" && r.args !== null && (r.args as Record<string, unknown>)[key] === value)
  )

const byScenario: Readonly<Record<string, (o: Observed) => ReadonlyArray<Check>>> = {
  matches: (o) => [
    check("the gate proved every tool", gate(o)?.step === "gate" && gate(o)?.outcome === "proven"),
    ranWith(o, "get_weather", "city", "Paris")
  ],
  drift: (o) => [
    check("the drifted tool is get_weather", field(o, "tool") === "get_weather"),
    check("the error carries a witness", field(o, "witness") !== undefined),
    check("no stream request was made", o.requests === 0),
    noneRan(o)
  ],
  "old-relay": (o) => [
    check("the gate degraded (the relay predates the export)", gate(o)?.step === "gate" && gate(o)?.outcome === "degraded"),
    check("a warning was logged", o.trace.some((s) => s.step === "warning")),
    ranWith(o, "get_weather", "city", "Rome")
  ],
  "near-miss": (o) => [
    check("\"15\" was coerced to an integer", o.trace.some((s) => s.step === "coerced" && s.from === "15" && s.to === 15)),
    ranWith(o, "get_weather", "days", 15)
  ],
  repair: (o) => [
    check("one repair was spent", o.trace.filter((s) => s.step === "repair").length === 1),
    check("an invalid_args envelope was fed back", o.trace.some((s) => s.step === "fed_back" && !s.envelope.ok && s.envelope.kind === "invalid_args")),
    check("the tool ran once, with the repaired arguments", o.ran.length === 1 && ranWith(o, "get_weather", "units", "metric").ok)
  ],
  exhausted: (o) => [noneRan(o), onlyUser(o), check("the budget was 1 repair", field(o, "limit") === 1)],
  "provider-contract": (o) => [
    check("the rule broken is start_without_terminal (call_1)", field(o, "rule") === "start_without_terminal" && field(o, "callId") === "call_1"),
    noneRan(o),
    onlyUser(o)
  ],
  chaining: (o) => [
    check("call_2's city resolved from call_1's result", o.trace.some((s) => s.step === "resolved" && s.callId === "call_2" && s.value === "Lisbon")),
    check("locate_user ran before get_weather", o.ran.map((r) => r.tool).join(",") === "locate_user,get_weather"),
    ranWith(o, "get_weather", "city", "Lisbon")
  ],
  "text-tools": (o) => [
    check("no request carried native tools; each system prompt listed get_weather", o.offered.length > 0 && o.offered.every((r) => r.tools.length === 0 && r.promptTools.includes("get_weather"))),
    check("the calls were parsed from the reply text", callIds(o).length > 0 && callIds(o).every((id) => id.startsWith("text_call_"))),
    check("units \"kelvin\" was fed back as invalid_args and one repair spent", o.trace.filter((s) => s.step === "repair").length === 1 &&
      o.trace.some((s) => s.step === "fed_back" && !s.envelope.ok && s.envelope.kind === "invalid_args")),
    check("\"3\" was coerced to an integer", o.trace.some((s) => s.step === "coerced" && s.from === "3" && s.to === 3)),
    check("the tool ran once, with the repaired arguments", o.ran.length === 1 && ranWith(o, "get_weather", "days", 3).ok),
    check("the relay's model saw the session's sampling (temperature=0.2)", answer(o).includes("sampled with temperature=0.2"))
  ],
  discovery: (o) => [
    check("no request carried more than maxTools (4) of the 8 tools", o.offered.length > 0 && o.offered.every((r) => r.tools.length <= 4)),
    check("the first request offered only the meta-tools", sameList(o.offered[0]?.tools, ["toolgate_list_domains", "toolgate_activate_domain"])),
    check("the model listed the domains, activated weather, then called get_weather", sameList(callsOf(o), ["toolgate_list_domains", "toolgate_activate_domain", "get_weather"])),
    check("after the activation the requests offered get_weather", o.offered.length > 2 && o.offered.slice(2).every((r) => r.tools.includes("get_weather"))),
    ranWith(o, "get_weather", "city", "Paris")
  ],
  "gemini-dialect": (o) => {
    const declared = o.declared
    // the relay's echo came through JSON.parse: a schema there is JSON
    const sent = declared.length === 1 && declared[0]!.name === "get_forecast" ? declared[0]!.parametersJsonSchema : undefined
    const wire = JsonSchema.isSchema(sent) ? sent : undefined
    const original = Demo.forecastTool.parameters
    const first = o.trace.find((s) => s.step === "call")
    return [
      check("the relay received get_forecast's schema on parametersJsonSchema (no legacy parameters)", wire !== undefined && declared[0]!.parameters === undefined),
      check("it is Normalize.google of the app's schema: $ref inlined, const → enum, additionalProperties and bounds gone (bounds kept as prose)",
        wire !== undefined && JsonValue.equals(wire, Normalize.google(original).schema) && !/"(\$ref|\$defs|const|additionalProperties|minimum|maximum)":/.test(JSON.stringify(wire))),
      check("days 20 passes the schema Gemini got but not the app's (maximum 16)", first?.step === "call" && first.arguments !== undefined && wire !== undefined &&
        acceptedBy(wire, first.arguments) === true && acceptedBy(original, first.arguments) === false),
      check("it was fed back as invalid_args and one repair spent", o.trace.filter((s) => s.step === "repair").length === 1 &&
        o.trace.some((s) => s.step === "fed_back" && s.callId === "call_1" && !s.envelope.ok && s.envelope.kind === "invalid_args")),
      check("\"16\" was coerced to an integer", o.trace.some((s) => s.step === "coerced" && s.from === "16" && s.to === 16)),
      check("the tool ran once, with days = 16", o.ran.length === 1 && ranWith(o, "get_forecast", "days", 16).ok)
    ]
  }
}

/** Whether a schema accepts a value (undefined when it does not compile). */
const acceptedBy = (schema: JsonSchema.JsonSchema, value: unknown): boolean | undefined =>
  Either.match(Validator.compile(schema), { onLeft: () => undefined, onRight: (compiled) => compiled.isValid(value) })

const answer = (o: Observed): string => o.outcome._tag === "Committed" ? o.outcome.turn.text : ""

const callIds = (o: Observed): ReadonlyArray<string> => o.trace.flatMap((s) => s.step === "call" ? [s.callId] : [])

const callsOf = (o: Observed): ReadonlyArray<string> => o.trace.flatMap((s) => s.step === "call" ? [s.tool] : [])

const sameList = (a: ReadonlyArray<string> | undefined, b: ReadonlyArray<string>): boolean =>
  a !== undefined && a.length === b.length && a.every((x, i) => x === b[i])

/** The scenario's claims, checked (none for a scenario the demo does not know). */
export const checks = (scenario: Demo.Scenario, observed: Observed): ReadonlyArray<Check> =>
  Object.hasOwn(byScenario, scenario.name) ? byScenario[scenario.name]!(observed) : []
