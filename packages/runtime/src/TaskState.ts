/**
 * Where a tool result leaves the agent's task, read from the envelope's discriminators so the harness, not
 * the model, decides the next move: a directory listing is empty, partial (`truncated`: more entries than
 * shown) or populated; a `file` result is file content; a `not_found` failure is a missing path (pick a
 * path from the last listing, or list the parent); any other failure keeps its kind and `retryable`.
 *
 * `classify` takes a tool result as a JSON string or a parsed value (legacy failure forms included, as
 * `ToolEnvelope.classify` reads them), reads only own data properties and never throws.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import { isPlainObject, ownValue } from "./internal/json.js"
import * as ToolEnvelope from "./ToolEnvelope.js"

/** The state a tool result leaves the task in. */
export type TaskState = Data.TaggedEnum<{
  /** A listing of a directory that holds nothing. */
  EmptyListing: { readonly path: string }
  /** A listing that shows `shown` of the directory's `entryCount` entries (`truncated`). */
  PartialListing: { readonly path: string; readonly shown: number; readonly entryCount: number }
  /** A listing that shows every entry of the directory. */
  PopulatedListing: { readonly path: string; readonly entryCount: number }
  /** The content of a file (`truncated`: only part of it). */
  FileContent: { readonly path: string; readonly truncated: boolean }
  /** A referenced path does not exist (a `not_found` failure). */
  NotFound: { readonly message: string }
  /** Any other failure, with its kind and whether trying again may help. */
  Failed: { readonly kind: ToolEnvelope.Kind; readonly message: string; readonly retryable: boolean }
  /** A success that is neither a listing nor file content. */
  Succeeded: {}
  /** Not an envelope (nor a legacy failure form). */
  Unrecognized: {}
}>

/** Constructors and matchers of `TaskState`. */
export const TaskState = Data.taggedEnum<TaskState>()

/** `$is(tag)` (a type guard per state) and `$match` (exhaustive matching), as `Data.taggedEnum` gives them. */
export const { $is, $match } = TaskState

const count = (u: unknown): number | undefined =>
  typeof u === "number" && Number.isSafeInteger(u) && u >= 0 ? u : undefined

/** A listing payload's state, or `undefined` when the payload is not a well-formed listing. */
const listingState = (result: unknown): TaskState | undefined => {
  const path = ownValue(result, "path")
  const entries = ownValue(result, "entries")
  const truncated = ownValue(result, "truncated")
  if (typeof path !== "string" || !Array.isArray(entries) || typeof truncated !== "boolean") return undefined
  const entryCount = count(ownValue(result, "entry_count")) ?? entries.length
  const shown = entries.length
  if (entryCount === 0 && shown === 0) return TaskState.EmptyListing({ path })
  return truncated || shown < entryCount
    ? TaskState.PartialListing({ path, shown, entryCount: Math.max(entryCount, shown) })
    : TaskState.PopulatedListing({ path, entryCount: Math.max(entryCount, shown) })
}

/** A file payload's state, or `undefined` when the payload is not well-formed file content. */
const fileState = (result: unknown): TaskState | undefined => {
  const path = ownValue(result, "path")
  const text = ownValue(result, "text")
  if (typeof path !== "string" || typeof text !== "string") return undefined
  return TaskState.FileContent({ path, truncated: ownValue(result, "truncated") === true })
}

/** The state a success's payload leaves the task in. */
const successState = (result: unknown): TaskState => {
  if (!isPlainObject(result)) return TaskState.Succeeded()
  const kind = ownValue(result, "kind")
  const state = kind === "listing" ? listingState(result) : kind === "file" ? fileState(result) : undefined
  return state ?? TaskState.Succeeded()
}

/** `successState`, where a payload whose arrays or traps throw (a hostile Proxy) is a plain success. */
const guarded = (result: unknown): TaskState => {
  try {
    return successState(result)
  } catch {
    return TaskState.Succeeded()
  }
}

/** The state a tool result (an envelope as JSON text or a value) leaves the task in. */
export const classify = (input: unknown): TaskState => {
  const detected = ToolEnvelope.classify(input)
  switch (detected._tag) {
    case "Success":
      return detected.result._tag === "Some" ? guarded(detected.result.value) : TaskState.Succeeded()
    case "Failure":
      return detected.kind === "not_found"
        ? TaskState.NotFound({ message: detected.message })
        : TaskState.Failed({ kind: detected.kind, message: detected.message, retryable: detected.retryable })
    default:
      return TaskState.Unrecognized()
  }
}

/** Whether a state is one of the three listing states. */
export const isListing = (state: TaskState): state is Extract<TaskState, { readonly _tag: `${string}Listing` }> =>
  state._tag === "EmptyListing" || state._tag === "PartialListing" || state._tag === "PopulatedListing"
