/**
 * A reason for drift and its one-line explanation, apart from the prover so that code which only reports
 * drift (error messages, reports) does not load it.
 *
 * @since 0.1.0
 */
import * as JsonSchema from "@toolgate/json-schema/JsonSchema"

/** One reason for drift: JSON pointers into each schema and a sentence a person can act on. */
export interface Reason {
  readonly cloudPath: string
  readonly localPath: string
  readonly message: string
}

/**
 * A reason as one line that stands alone: its message, after the instance field its local path points
 * into (`` `days`: the local schema allows at most 7; … ``, `` `a.b[]`: … ``). The path is read through
 * `properties`, `items` and `prefixItems`, and through the applicators that apply to the same value
 * (`allOf`/`anyOf`/`oneOf` branches, `not`, `if`/`then`/`else`, `dependentSchemas`), up to its last keyword.
 */
export const explain = (reason: Reason): string => {
  const field = fieldOf(JsonSchema.Pointer.parse(reason.localPath))
  return field === undefined || field === "" ? reason.message : `\`${field}\`: ${reason.message}`
}

const sameValue: ReadonlySet<string> = new Set(["not", "if", "then", "else"])
const branchLists: ReadonlySet<string> = new Set(["allOf", "anyOf", "oneOf"])

/** The instance field a schema path points into (a name that would read as nothing is quoted); undefined when the path leaves that form. */
const fieldOf = (tokens: ReadonlyArray<string>): string | undefined => {
  let field = ""
  let i = 0
  for (; i < tokens.length; i++) {
    const t = tokens[i]!, next = tokens[i + 1]
    if (t === "properties" && next !== undefined) field += `${field === "" ? "" : "."}${/^[^.\s`[\]"]+$/.test(next) ? next : JSON.stringify(next)}`
    else if (t === "items") field += "[]"
    else if (t === "prefixItems" && next !== undefined && /^\d+$/.test(next)) field += `[${next}]`
    else if ((branchLists.has(t) && next !== undefined && /^\d+$/.test(next)) || (t === "dependentSchemas" && next !== undefined)) {
      // a branch applies to the same value
    } else if (sameValue.has(t) && i < tokens.length - 1) {
      continue
    } else break
    if (t !== "items") i++
  }
  return i >= tokens.length - 1 ? field : undefined
}

