/**
 * The property test's toolkit: three JSON Schema tools (required properties, a bounded integer, an enum,
 * a closed nested object) and one Effect Schema tool whose filter JSON Schema cannot express (so only its
 * decoder rejects an odd number). The executors record every call they receive and check the arguments
 * themselves (a validator instance of their own, or `Schema.is`), so a session that lets invalid arguments
 * through is caught where it matters: inside the executor.
 */
import { Effect, Either, Schema } from "effect"
import { type JsonValue as J, Validator } from "@toolgate/json-schema"
import { Tool, Toolkit } from "@toolgate/runtime"

/** The names of the test's tools. */
export const toolNames = ["set_volume", "sort_list", "lookup", "pick_even"] as const
/** One of the test's tools. */
export type ToolName = (typeof toolNames)[number]

/** `pick_even`'s parameters: an integer the JSON Schema accepts whatever its parity; the filter only decodes even ones. */
export const EvenArgs = Schema.Struct({ n: Schema.Int.pipe(Schema.filter((n) => n % 2 === 0 || "an even number")) })

/** The JSON Schema tools' parameter schemas (draft 2020-12). */
export const schemas: Readonly<Record<Exclude<ToolName, "pick_even">, J.JsonObject>> = {
  set_volume: {
    type: "object",
    properties: { level: { type: "integer", minimum: 0, maximum: 10 } },
    required: ["level"],
    additionalProperties: false
  },
  sort_list: {
    type: "object",
    properties: {
      items: { type: "array", items: { type: "string" }, maxItems: 4 },
      order: { type: "string", enum: ["asc", "desc"] }
    },
    required: ["items", "order"],
    additionalProperties: false
  },
  lookup: {
    type: "object",
    properties: {
      city: { type: "string", minLength: 1 },
      options: {
        type: "object",
        properties: { units: { type: "string", enum: ["c", "f"] } },
        required: ["units"],
        additionalProperties: false
      }
    },
    required: ["city"],
    additionalProperties: false
  }
}

/** The city `lookup` fails for (a `not_found` failure envelope, so refs can point at a failed call). */
export const missingCity = "Atlantis"

const asRecord = (u: J.JsonValue): Readonly<Record<string, J.JsonValue>> =>
  typeof u === "object" && u !== null && !Array.isArray(u) ? u as Readonly<Record<string, J.JsonValue>> : {}

/**
 * What a tool answers for valid arguments: the test's model computes it too, so refs into results are
 * predicted exactly. `undefined` = the executor fails with `not_found`.
 */
export const resultOf = (tool: ToolName, args: J.JsonValue): J.JsonValue | undefined => {
  const a = asRecord(args)
  switch (tool) {
    case "set_volume":
      return { level: a.level ?? null }
    case "sort_list": {
      const items = Array.isArray(a.items) ? a.items.filter((x): x is string => typeof x === "string") : []
      const sorted = [...items].sort()
      return { sorted: a.order === "desc" ? sorted.reverse() : sorted, count: items.length }
    }
    case "lookup": {
      const city = typeof a.city === "string" ? a.city : ""
      return city === missingCity ? undefined : { city, temp: city.length % 11 }
    }
    case "pick_even":
      return { n: a.n ?? null }
  }
}

/** One executor invocation, as the executor saw it. */
export interface Received {
  readonly tool: ToolName
  readonly callId: string
  readonly args: unknown
  /** What the executor's own validator said about `args` (empty: accepted). */
  readonly problems: ReadonlyArray<string>
}

/** A fresh toolkit and the log of what its executors and undos received. */
export interface Recorded {
  readonly toolkit: Toolkit.Toolkit<never>
  readonly received: Array<Received>
  readonly undone: Array<string>
  /** The effects in the world, by idempotency key: +1 per successful execution, -1 per undo (zeros removed). */
  readonly ledger: Map<string, number>
}

const book = (ledger: Map<string, number>, key: string, delta: number): void => {
  const n = (ledger.get(key) ?? 0) + delta
  if (n === 0) ledger.delete(key)
  else ledger.set(key, n)
}

const own = Validator.make()

/** The problems an independent validator finds in `args` for `tool` (never the session's validator). */
export const problemsOf = (tool: ToolName, args: unknown): ReadonlyArray<string> => {
  if (tool === "pick_even") return Schema.is(EvenArgs)(args) ? [] : ["not an even integer n"]
  if (Either.isLeft(own)) return [`validator: ${own.left.message}`]
  const compiled = own.right.compile(schemas[tool])
  if (Either.isLeft(compiled)) return [`schema: ${compiled.left.message}`]
  return compiled.right.validate(args).map((i) => `${i.path}: ${i.message}`)
}

const execute = (name: ToolName, received: Array<Received>, ledger: Map<string, number>) => (args: unknown, ctx: Tool.CallContext) =>
  Effect.suspend(() => {
    received.push({ tool: name, callId: ctx.callId, args, problems: problemsOf(name, args) })
    const result = resultOf(name, args as J.JsonValue)
    if (result === undefined) return Tool.fail("not_found", `No city called ${missingCity}.`)
    book(ledger, ctx.idempotencyKey, 1)
    return Effect.succeed(result)
  })

/** The volume whose undo fails the first time it is asked for a key (then works): a fault the undo paths must survive. */
export const stubbornLevel = 7

const makeTool = (name: ToolName, received: Array<Received>, undone: Array<string>, ledger: Map<string, number>) => {
  const description = `The property test's ${name}.`
  const refused = new Set<string>()
  const undo = (args: unknown, ctx: Tool.CallContext) =>
    Effect.suspend(() => {
      if (name === "set_volume" && (args as { level?: unknown }).level === stubbornLevel && !refused.has(ctx.idempotencyKey)) {
        refused.add(ctx.idempotencyKey)
        return Tool.fail("unavailable", "the mixer is busy")
      }
      undone.push(ctx.callId)
      book(ledger, ctx.idempotencyKey, -1)
      return Effect.void
    })
  return name === "pick_even" ?
    Tool.make(name, { description, parameters: EvenArgs, execute: execute(name, received, ledger), undo }) :
    Tool.make(name, { description, parameters: schemas[name], execute: execute(name, received, ledger), undo })
}

/** The toolkit's local schemas by name, as a relay exporting them unchanged would send them. */
export const exported = (): Readonly<Record<string, unknown>> =>
  Object.fromEntries(Array.from(recorded().toolkit.tools, ([name, tool]) => [name, tool.jsonSchema]))

/** A fresh toolkit for one session: its executors record into the returned arrays. */
export const recorded = (): Recorded => {
  const received: Array<Received> = []
  const undone: Array<string> = []
  const ledger = new Map<string, number>()
  const made = Toolkit.make(...toolNames.map((name) => makeTool(name, received, undone, ledger)))
  if (Either.isLeft(made)) throw new Error(made.left.message)
  return { toolkit: made.right, received, undone, ledger }
}
