/**
 * The state one coercion walk threads through: the root, the options, the coercions so far, the work
 * budget; and the small helpers every rule shares.
 *
 * @internal
 */
import * as Either from "effect/Either"
import type { Coercion, Rule } from "../Coercion.js"
import { type JsonSchema, Pointer } from "../JsonSchema.js"
import type * as JsonValue from "../JsonValue.js"
import * as Validator from "../Validator.js"
import * as S from "./coercionScalars.js"

/** A path into the arguments as the model wrote them. */
export type Path = ReadonlyArray<string | number>
/** An object member: its key now, its value, and where the model wrote it. */
export type Entry = readonly [key: string, value: JsonValue.JsonValue, written: Path]

/** One walk's state. */
export interface Context {
  readonly root: JsonSchema
  readonly strictNulls: boolean
  /** Empty optional strings are values here (`Arguments.Options.keepEmptyStrings`): none is dropped as a filler. */
  readonly keepEmpty: boolean
  readonly out: Array<Coercion>
  readonly budget: { left: number }
  /** Inside a union trial, where nested unions multiply the work: only there does the budget count. */
  readonly trial: boolean
}

/** A schema pointer with more tokens. */
export const at = (ptr: string, ...tokens: ReadonlyArray<string | number>): string => ptr + Pointer.format(tokens)

/** Records one coercion. */
export const note = (ctx: Context, path: Path, rule: Rule, from: JsonValue.JsonValue, to: JsonValue.JsonValue | undefined) => {
  ctx.out.push({ path: Pointer.format(path), field: S.fieldOf(path), rule, from, to })
}

/** Whether the subschema at `ptr` accepts `value`; undefined when it cannot be compiled. */
export const validAt = (ctx: Context, ptr: string, value: JsonValue.JsonValue): boolean | undefined => {
  const compiled = Validator.compileAt(ctx.root, ptr)
  return Either.isRight(compiled) ? compiled.right.isValid(value) : undefined
}

