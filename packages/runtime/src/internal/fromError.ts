/**
 * Mapping failed values and validation issues to failure envelopes.
 *
 * @internal
 */
import * as Errors from "../Errors.js"
import { failure, type Failure, isKind, type Kind } from "./kinds.js"
import { describe, isPlainObject, safeGet } from "./json.js"
import type * as schemas from "./schemas.js"
import { truncateForModel } from "./truncate.js"

/** Messages taken from errors are capped here: a model needs the gist, not a 10 MB dump. */
export const maxMessageChars = 10_000

/** How many issues a combined `invalid_args` message lists. */
export const maxListedIssues = 20

/** A string that is present and not blank, else `undefined`. */
const text = (u: unknown): string | undefined => typeof u === "string" && u.trim() !== "" ? u : undefined

/** Issues of one call as one `invalid_args` failure. */
export const fromIssues = (issues: ReadonlyArray<typeof schemas.Issue.Type>, tool?: string): Failure => {
  const list = Array.isArray(issues) ? issues : []
  const first = list[0]
  const messages = list.slice(0, maxListedIssues).map((i) => text(safeGet(i, "message")) ?? "Invalid argument.")
  const message = list.length === 0
    ? "The arguments are invalid."
    : list.length === 1
    ? messages[0]!
    : `${list.length} arguments are invalid:\n${messages.map((m) => `- ${m}`).join("\n")}` +
      (list.length > maxListedIssues ? `\n- … and ${list.length - maxListedIssues} more` : "")
  return failure("invalid_args", truncateForModel(message, maxMessageChars), {
    field: text(safeGet(first, "field")),
    expected: text(safeGet(first, "expected")),
    tool
  })
}

/** An error `byTag` maps: every typed error but an executor's `ToolFailure`, which names its own kind. */
type Mapped = Exclude<Errors.ToolgateError, Errors.ToolFailure>

/** The kind (and a `retryable` that differs from the kind's default) for each runtime error. */
const byTag: { readonly [Tag in Mapped["_tag"]]: readonly [Kind, boolean?] } = {
  SchemaDriftError: ["rejected"],
  UnsupportedCloudToolSchema: ["rejected"],
  RelayProfileContractError: ["unavailable", false],
  RelayProfileUnreachable: ["unavailable"],
  ToolArgumentRepairExhausted: ["invalid_args", false],
  ProviderEventContractViolation: ["execution_error"],
  RoundTripLimitExceeded: ["rejected"],
  TurnDeadlineExceeded: ["timeout"],
  ToolChoiceUnsupported: ["unavailable", false],
  StructuredOutputUnsupported: ["unavailable", false],
  StructuredOutputInvalid: ["execution_error"],
  ProviderError: ["unavailable"],
  InvalidOptions: ["execution_error", false],
  VisionUnsupported: ["unavailable", false],
  ModelSelectionUnsupported: ["unavailable", false],
  InvalidRunLimits: ["execution_error", false],
  InvalidToolArguments: ["invalid_args"],
  InvalidToolSchema: ["unavailable", false],
  DuplicateToolName: ["execution_error", false],
  NotATool: ["execution_error", false],
  ToolsRejected: ["rejected", false],
  UndoIncomplete: ["execution_error"],
  UndoSuperseded: ["rejected"],
  SessionStoreError: ["unavailable"],
  SessionBusy: ["unavailable"]
}

/** One of the runtime's own errors, as a failure. */
const fromRuntimeError = (e: Mapped, tool: string | undefined): Failure => {
  const [kind, retryable] = byTag[e._tag]
  const own = "tool" in e ? e.tool : undefined
  // a repair exhaustion points the model at the first issue of the round that exhausted it
  const first = e._tag === "ToolArgumentRepairExhausted" ? e.lastIssues[0] : undefined
  return failure(kind, cap(e.message), {
    field: text(first?.field),
    expected: text(first?.expected),
    tool: tool ?? own,
    retryable: e._tag === "ProviderError" ? e.retryable : retryable
  })
}

/** A value shaped like a tool failure: a known `kind` and a message. */
const fromToolFailure = (e: object, kind: Kind, tool: string | undefined): Failure => {
  const ownTool = safeGet(e, "tool")
  return failure(kind, cap(text(safeGet(e, "message")) ?? `The tool failed (${kind}).`), {
    field: text(safeGet(e, "field")),
    expected: text(safeGet(e, "expected")),
    tool: tool ?? (typeof ownTool === "string" ? ownTool : undefined),
    retryable: typeof safeGet(e, "retryable") === "boolean" ? safeGet(e, "retryable") as boolean : undefined
  })
}

/** A message for an `Error`: "TypeError: x" for named subclasses, the bare message otherwise. */
const errorMessage = (e: object): string => {
  const message = text(safeGet(e, "message"))
  const name = text(safeGet(e, "name"))
  if (message === undefined) return name === undefined ? "The tool failed." : `The tool failed with ${name}.`
  return name === undefined || name === "Error" ? message : `${name}: ${message}`
}

const cap = (s: string): string => truncateForModel(s, maxMessageChars)

/** Whether `u` is one of the errors `byTag` maps; a throwing proxy is a no. */
const isRuntimeError = (u: unknown): u is Mapped => {
  try {
    return Errors.isToolgateError(u) && Object.hasOwn(byTag, u._tag)
  } catch {
    return false
  }
}

/** Whether `u` is an `Error`, by brand or by prototype chain; never throws. */
const isError = (u: object): boolean => {
  try {
    return u instanceof Error || Object.prototype.toString.call(u) === "[object Error]"
  } catch {
    return false
  }
}

/** Node's error codes, and `@effect/platform`'s `SystemError` reasons, that say what a file system call met. */
const systemKinds: ReadonlyMap<unknown, Kind> = new Map<unknown, Kind>([
  ["ENOENT", "not_found"],
  ["ENOTDIR", "not_found"],
  ["NotFound", "not_found"],
  ["EACCES", "rejected"],
  ["EPERM", "rejected"],
  ["PermissionDenied", "rejected"]
])

/** `not_found` for a missing file or directory, `rejected` for a refused permission, else nothing. */
const systemKind = (error: object): Kind | undefined =>
  systemKinds.get(safeGet(error, "code")) ?? (safeGet(error, "_tag") === "SystemError" ? systemKinds.get(safeGet(error, "reason")) : undefined)

/** Maps a thrown or failed value to a failure envelope. */
export const fromError = (error: unknown, tool?: string): Failure => {
  const t = typeof tool === "string" ? tool : undefined
  try {
    if (isRuntimeError(error)) return fromRuntimeError(error, t)
    if (typeof error === "string") return failure("execution_error", cap(text(error) ?? "The tool failed."), { tool: t })
    if ((typeof error !== "object" && typeof error !== "function") || error === null) {
      return failure("execution_error", `The tool failed with ${describe(error)}.`, { tool: t })
    }
    if (safeGet(error, "ok") === false && isPlainObject(error)) {
      const kind = safeGet(error, "kind")
      return fromToolFailure(error, isKind(kind) ? kind : "execution_error", t)
    }
    const kind = safeGet(error, "kind")
    if (isKind(kind)) return fromToolFailure(error, kind, t)
    if (safeGet(error, "_tag") === "TimeoutException") {
      return failure("timeout", cap(text(safeGet(error, "message")) ?? "The tool timed out."), { tool: t })
    }
    const system = systemKind(error)
    if (system !== undefined) return failure(system, cap(isError(error) ? errorMessage(error) : text(safeGet(error, "message")) ?? `The tool failed (${system}).`), { tool: t })
    if (isError(error)) return failure("execution_error", cap(errorMessage(error)), { tool: t })
    const message = text(safeGet(error, "message"))
    return failure("execution_error", cap(message ?? `The tool failed with ${describe(error)}.`), { tool: t })
  } catch {
    return failure("execution_error", "The tool failed with an unreadable error.", { tool: t })
  }
}
