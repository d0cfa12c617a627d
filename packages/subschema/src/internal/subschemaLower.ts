/**
 * A lower bound of a cloud schema that uses dynamic references. Ajv resolves `$dynamicRef` (and
 * `$recursiveRef`) differently from the specification, so its word that the cloud accepts a value is no
 * evidence there. Where every applicator is monotone (no `not`, `if`, `oneOf`, `maxContains` or
 * `unevaluated*` anywhere), a schema object holding a dynamic reference can be made to reject everything:
 * the result accepts only values the cloud accepts under either reading, and never evaluates a dynamic
 * reference, so a value the real validator accepts against it is accepted by the cloud.
 *
 * @internal
 */
import type { JsonSchema } from "@toolgate/json-schema/JsonSchema"
import { subschemas as children } from "@toolgate/json-schema/JsonSchema"
import type { JsonValue } from "@toolgate/json-schema/JsonValue"

/** Keywords under which a stricter subschema can make the whole schema accept more. */
const antitone: ReadonlySet<string> = new Set(["not", "if", "then", "else", "oneOf", "maxContains", "unevaluatedItems", "unevaluatedProperties"])
const dynamic: ReadonlySet<string> = new Set(["$dynamicRef", "$recursiveRef"])

type Obj = { [k: string]: JsonValue }

/** The cloud with each schema object holding a dynamic reference replaced by one that rejects every value, or undefined. */
export const withoutDynamicRefs = (cloud: JsonSchema): JsonSchema | undefined => {
  if (typeof cloud !== "object") return undefined
  const copy = structuredClone(cloud) as Obj
  const stack: Array<Obj> = [copy]
  const seen = new Set<object>()
  let replaced = false
  while (stack.length > 0) {
    const s = stack.pop()!
    if (seen.has(s)) continue
    seen.add(s)
    for (const k of Object.keys(s)) if (antitone.has(k)) return undefined
    if (Object.keys(s).some((k) => dynamic.has(k))) {
      for (const k of dynamic) delete s[k]
      // `not: true` rejects every value and keeps the object's `$defs`, `$id` and anchors in place
      s["not"] = true
      replaced = true
      continue
    }
    for (const c of children(s)) if (typeof c.schema === "object" && c.schema !== null && !Array.isArray(c.schema)) stack.push(c.schema as Obj)
  }
  return replaced ? copy : undefined
}
