/**
 * The typed errors about tools: a call's arguments, a tool's schema, an executor's failure, a toolkit's
 * names, a provider refusing a definition, and undoing a turn's calls. `Errors` re-exports each.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { compensation, TypeId } from "./errorBase.js"
import { UndoFailure } from "./compensationReport.js"
import { Kind } from "./kinds.js"
import { Failure, Issue } from "./schemas.js"

/** A call's arguments do not fit its tool's schema; `envelope` is the `invalid_args` failure to feed back. */
export class InvalidToolArguments extends Schema.TaggedError<InvalidToolArguments>()("InvalidToolArguments", {
  tool: Schema.String,
  callId: Schema.String,
  issues: Schema.Array(Issue),
  envelope: Failure
}) {
  readonly [TypeId]: TypeId = TypeId
  /** The tool, the call and what is wrong. */
  override get message(): string {
    return `Invalid arguments for tool \`${this.tool}\` (call ${this.callId}): ${this.envelope.message}`
  }
}

/** A tool's own schema cannot be used (it does not compile, or its Effect Schema has no JSON Schema form): not the model's fault. */
export class InvalidToolSchema extends Schema.TaggedError<InvalidToolSchema>()("InvalidToolSchema", {
  tool: Schema.String,
  path: Schema.String,
  detail: Schema.String,
  compensation
}) {
  readonly [TypeId]: TypeId = TypeId
  /** The tool and why its schema is unusable. */
  override get message(): string {
    return `The parameter schema of tool \`${this.tool}\` cannot be used${this.path === "" ? "" : ` (at ${this.path})`}: ${this.detail}`
  }
}

/** A typed failure of an executor (`Tool.fail`): becomes a failure envelope of its `kind`. */
export class ToolFailure extends Schema.TaggedError<ToolFailure>()("ToolFailure", {
  kind: Kind,
  message: Schema.String,
  field: Schema.optionalWith(Schema.String, { exact: true }),
  expected: Schema.optionalWith(Schema.String, { exact: true }),
  retryable: Schema.optionalWith(Schema.Boolean, { exact: true })
}) {
  readonly [TypeId]: TypeId = TypeId
}

/** Two tools of one toolkit share a name: the model could not say which one it calls. */
export class DuplicateToolName extends Schema.TaggedError<DuplicateToolName>()("DuplicateToolName", {
  name: Schema.String
}) {
  readonly [TypeId]: TypeId = TypeId
  /** Names the tool. */
  override get message(): string {
    return `Two tools of the toolkit are named \`${this.name}\`; tool names must be unique.`
  }
}

/** An argument of `Toolkit.make` is not a tool built by `Tool.make` (only possible past the types). */
export class NotATool extends Schema.TaggedError<NotATool>()("NotATool", {
  index: Schema.NonNegativeInt
}) {
  readonly [TypeId]: TypeId = TypeId
  /** Says which argument. */
  override get message(): string {
    return `Argument ${this.index} of Toolkit.make is not a tool built by Tool.make.`
  }
}

/** The provider cannot represent a tool definition: the send fails before the user's message is recorded. */
export class ToolsRejected extends Schema.TaggedError<ToolsRejected>()("ToolsRejected", {
  provider: Schema.String,
  tool: Schema.String,
  reason: Schema.String,
  compensation
}) {
  readonly [TypeId]: TypeId = TypeId
  /** The provider, the tool and why. */
  override get message(): string {
    return `Provider ${this.provider} cannot take tool \`${this.tool}\`: ${this.reason}`
  }
}

/**
 * `undoLastTurn` could not undo every step of the turn: the turn stays in history and in the undo log, the
 * steps that were undone are marked (a retry does not run them again), and `left` are the calls still to undo.
 */
export class UndoIncomplete extends Schema.TaggedError<UndoIncomplete>()("UndoIncomplete", {
  turn: Schema.Int,
  /** The calls this attempt undid, newest first. */
  undone: Schema.Array(Schema.String),
  failed: Schema.Array(UndoFailure),
  /** The calls whose undo is still to run (newest first): `undoLastTurn` again retries exactly these. */
  left: Schema.Array(Schema.String)
}) {
  readonly [TypeId]: TypeId = TypeId
  /** The turn, what failed and what is left. */
  override get message(): string {
    const failed = this.failed.slice(0, 5).map((f) => `${f.tool} ${f.callId}: ${f.envelope.message}`).join("; ")
    return `The undo of turn ${this.turn} is incomplete: ${this.failed.length} step(s) failed (${failed}); ` +
      `${this.left.length} left to undo, ${this.undone.length} undone. The turn stays; undo it again to retry.`
  }
}

/**
 * `undoLastTurn` was called when turn `expected` was the last committed one (or none was), but by the time
 * it could run (after the send or undo in flight) the last committed turn was another: nothing was undone,
 * since the turn the caller meant is no longer the last. Calling `undoLastTurn` again undoes the last one now.
 */
export class UndoSuperseded extends Schema.TaggedError<UndoSuperseded>()("UndoSuperseded", {
  /** The last committed turn when `undoLastTurn` was called; absent when there was none. */
  expected: Schema.optionalWith(Schema.Int, { exact: true }),
  /** The last committed turn when the undo was to run; absent when there was none. */
  last: Schema.optionalWith(Schema.Int, { exact: true })
}) {
  readonly [TypeId]: TypeId = TypeId
  /** Which turn was meant and which is last now. */
  override get message(): string {
    const turn = (n: number | undefined) => n === undefined ? "no turn" : `turn ${n}`
    return `Nothing was undone: the undo was asked for when ${turn(this.expected)} was the last committed, but ` +
      `${turn(this.last)} was when it could run (a send or another undo ran in between). Undo again to take back the last turn now.`
  }
}
