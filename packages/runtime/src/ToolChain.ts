/**
 * Tool chaining by reference, the resolving half: a call whose arguments hold sentinel refs
 * (`{ "$tool": "call_1", "$path": "result.city" }`) gets each ref replaced with the value it points at in
 * an earlier call's envelope, and the resolved arguments are then prepared against the tool's BASE
 * schema like any other call. Every way a ref can be wrong is an `invalid_args` envelope naming the ref's
 * field, so it goes through repair like any invalid call.
 *
 * `$path` is dotted and read from the envelope's root: `result.city`, `result.items.0.name`, also
 * `result.items[0].name`; without `$path` a ref means the whole `result`. No segment may be empty, a
 * bracket holds a decimal index (no leading zeros), and `__proto__`, `constructor` and `prototype` are
 * refused wherever they appear. Only own data properties are read: never a getter, never a prototype.
 * A ref may point only at a SUCCESS envelope. With `$artifact`, it reads the artifact of that name the call
 * saved (`ctx.saveArtifact`), `$path` then starting at the artifact's root.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { type JsonValue as J, RefAware, type Validator } from "@toolgate/json-schema"
import * as ArgumentValidator from "./ArgumentValidator.js"
import * as Errors from "./Errors.js"
import { clip } from "@toolgate/json-schema/Text"
import * as Path from "./internal/toolChainPath.js"
import { type Replacement, substitute } from "./internal/toolChainSubstitute.js"
import * as Telemetry from "./Telemetry.js"
import type * as Tool from "./Tool.js"
import * as ToolEnvelope from "./ToolEnvelope.js"

/** Where refs may point: this turn's earlier calls only (default), or any earlier call of this session. */
export type Scope = "turn" | "session"

/** The envelopes refs can point at, by call id (the session builds it; never shared between sessions). */
export type Results = ReadonlyMap<string, ToolEnvelope.Envelope>

/** The artifacts `$artifact` refs can point at: by call id, then by name (what executors saved with `ctx.saveArtifact`). */
export type Artifacts = ReadonlyMap<string, ReadonlyMap<string, J.JsonValue>>

/** What a path-less ref reads: the envelope's `result`. */
const resultOnly: ReadonlyArray<Path.Segment> = [{ key: "result", bracket: false }]

/** The value a ref points at in `envelope`, or why not (`$path` dotted: "result.items.0.name"; absent → `result`). */
export const valueAt = (envelope: ToolEnvelope.Envelope, path: string | undefined): Either.Either<J.JsonValue, string> => {
  if (!envelope.ok) return Either.left(`the call failed: ${failureText(envelope)}`)
  if (path === undefined) return Path.walk(envelope, resultOnly)
  const segments = Path.parse(path)
  return Either.isLeft(segments) ? Either.left(segments.left) : Path.walk(envelope, segments.right)
}

/** A failure envelope's message, clipped for a sentence about it. */
const failureText = (envelope: ToolEnvelope.Failure): string => {
  // clipped first, then trailing dots and spaces dropped by a loop (a regex could backtrack on a huge message):
  // the sentence around it ends with its own period
  const text = clip(envelope.message, 300)
  let end = text.length
  while (end > 0 && (text[end - 1] === "." || text[end - 1]!.trim() === "")) end--
  return end === 0 ? "(no message)" : text.slice(0, end)
}

/** A call id or path quoted for a message. */
const quoted = (s: string): string => `\`${clip(s, 80)}\``

/** The ref as a message names it. */
const where = (located: RefAware.Located): string =>
  located.field === "" ? "The ref that stands for the whole arguments" : `The ref at ${quoted(located.field)}`

const issue = (located: RefAware.Located, keyword: string, expected: string, message: string): Validator.Issue => ({
  path: located.path,
  field: located.field,
  keyword,
  expected,
  message
})

/** Up to ten ids of `results`, to tell the model which calls it may point at. */
const knownIds = (results: Results): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const id of results.keys()) {
    if (out.length === 10) break
    out.push(clip(id, 80))
  }
  return out
}

const unknownCall = (located: RefAware.Located, results: Results): Validator.Issue => {
  const ids = knownIds(results)
  const listed = ids.length === 0 ? "" : `: ${ids.join(", ")}${ids.length === 10 ? ", …" : ""}`
  return issue(
    located,
    "$tool",
    `the id of an earlier call${listed}`,
    `${where(located)} points at call ${quoted(located.ref.$tool)}, which has no result to read: a ref may only ` +
      `point at an earlier call${ids.length === 0 ? " (none has answered yet)" : ` (these have answered${listed})`}.`
  )
}

/** The value an `$artifact` ref stands for: the artifact its call saved, at `$path` from the artifact's root. */
const artifactAt = (located: RefAware.Located, artifacts: Artifacts): Either.Either<J.JsonValue, Validator.Issue> => {
  const { $artifact, $path, $tool } = located.ref
  const saved = artifacts.get($tool)
  const artifact = saved?.get($artifact!)
  if (artifact === undefined) {
    const names = [...(saved?.keys() ?? [])].slice(0, 10).map((n) => clip(n, 80))
    return Either.left(issue(
      located,
      "$artifact",
      names.length === 0 ? "a ref to an artifact an earlier call saved" : `one of the artifacts of ${quoted($tool)}: ${names.join(", ")}`,
      `${where(located)} names artifact ${quoted($artifact!)} of call ${quoted($tool)}, which saved ` +
        (names.length === 0 ? "no artifacts." : `only these: ${names.join(", ")}.`)
    ))
  }
  const value = $path === undefined ? Either.right(artifact) : Either.flatMap(Path.parse($path), (segments) => Path.walk(artifact, segments))
  if (Either.isRight(value)) return Either.right(value.right)
  return Either.left(issue(
    located,
    "$path",
    "a dotted path into the artifact, from its root: e.g. rows[0].name",
    `${where(located)} cannot be resolved: in artifact ${quoted($artifact!)} of ${quoted($tool)}, ${value.left}.`
  ))
}

/** The value one ref stands for, or the issue that says why it has none. */
const follow = (located: RefAware.Located, results: Results, artifacts: Artifacts): Either.Either<J.JsonValue, Validator.Issue> => {
  const { $artifact, $path, $tool } = located.ref
  const envelope = results.get($tool)
  if (envelope === undefined) return Either.left(unknownCall(located, results))
  if (!envelope.ok) {
    return Either.left(issue(
      located,
      "$tool",
      "the id of an earlier call that succeeded",
      `${where(located)} cannot be resolved: ${clip($tool, 80)} failed: ${failureText(envelope)}. A ref can only read the result of a call that succeeded.`
    ))
  }
  if ($artifact !== undefined) return artifactAt(located, artifacts)
  const value = valueAt(envelope, $path)
  if (Either.isLeft(value)) {
    return Either.left(issue(
      located,
      "$path",
      "a dotted path into the call's envelope, from its root: e.g. result.city or result.items[0].name",
      `${where(located)} cannot be resolved: in the envelope of ${quoted($tool)}, ${value.left}.`
    ))
  }
  if (RefAware.refs(value.right).length > 0) {
    return Either.left(issue(
      located,
      "$path",
      "a path to a value that is not a ref and holds none",
      `${where(located)} cannot be resolved: the value at ${quoted($path ?? "result")} of ${quoted($tool)} is ` +
        "a ref or holds one; refs are resolved once, never through another ref."
    ))
  }
  return Either.right(value.right)
}

/** What `resolve` may be given besides the results. */
export interface ResolveOptions {
  /** The call's arguments went to the model as a strict (OpenAI-style) schema. */
  readonly fromStrictProvider?: boolean
  /** What `$artifact` refs may point at (default: none). */
  readonly artifacts?: Artifacts
}

const noArtifacts: Artifacts = new Map()

const invalid = (tool: string, callId: string, issues: ReadonlyArray<Validator.Issue>) =>
  new Errors.InvalidToolArguments({ tool, callId, issues, envelope: ToolEnvelope.fromIssues(issues, tool) })

/** A ref still in the arguments after resolving: only a call whose `refs` missed one gets here. */
const leftOver = (located: RefAware.Located): Validator.Issue =>
  issue(
    located,
    "$tool",
    "a value that is not a ref",
    `${where(located)} is still a ref after resolving; refs are resolved once, never through another ref.`
  )

/**
 * Replaces every ref of a `Referencing` call with the value it points at, then prepares the resolved
 * arguments against the tool's BASE schema through `validator.prepare`. Any failure (unknown call id, a
 * failure envelope, a missing path, a path through `__proto__`/`constructor`/`prototype`, a `$artifact`
 * ref (not supported: say so), a resolved value that is itself a ref, a value the base schema rejects) is an
 * `InvalidToolArguments` whose envelope is `invalid_args` with `field` = the ref's field in the arguments.
 * Every ref is checked, so one answer lists all broken refs. The `Prepared` keeps the model's `raw`
 * arguments (refs and all); `value`/`args` are the resolved ones; `coercions` are both passes' repairs.
 */
export const resolve = <A>(
  validator: ArgumentValidator.Service,
  tool: Tool.Tool<A, any>,
  call: ArgumentValidator.Referencing,
  results: Results,
  options?: ResolveOptions
): Effect.Effect<Tool.Prepared<A>, Errors.InvalidToolArguments | Errors.InvalidToolSchema> =>
  Effect.gen(function*() {
    const name = tool.name
    const replacements: Array<Replacement> = []
    const issues: Array<Validator.Issue> = []
    for (const located of call.refs) {
      const followed = follow(located, results, options?.artifacts ?? noArtifacts)
      if (Either.isLeft(followed)) issues.push(followed.left)
      else replacements.push({ path: located.path, value: followed.right })
    }
    if (issues.length > 0) return yield* invalid(name, call.callId, issues)
    const resolved = substitute(call.value, replacements)
    const fromStrictProvider = options?.fromStrictProvider === true
    const prepared = yield* validator.prepare(tool, resolved, { callId: call.callId, fromStrictProvider })
    if (prepared._tag === "Referencing") return yield* invalid(name, call.callId, prepared.refs.map(leftOver))
    return { ...prepared, raw: call.raw, coercions: [...call.coercions, ...prepared.coercions] } satisfies Tool.Prepared<A>
  }).pipe(
    Telemetry.span("ToolChain.resolve", { "gen_ai.tool.name": tool.name, "gen_ai.tool.call.id": call.callId, "toolgate.tool_chain.refs": call.refs.length })
  )
