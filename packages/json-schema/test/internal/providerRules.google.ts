/**
 * Google's published schema rules (contract section 2), written once for the tests, independently of the
 * implementation: no unsupported keyword left outside property names, a scalar `type` only, `nullable`
 * only as a boolean, every object with a `properties` map, and no boolean subschema.
 */

/** The keywords Google does not take (contract 2.1). */
export const googleUnsupported: ReadonlyArray<string> = [
  "$schema", "$ref", "$defs", "$dynamicRef", "$dynamicAnchor", "examples", "prefixItems",
  "unevaluatedProperties", "unevaluatedItems", "patternProperties", "additionalProperties",
  "minItems", "maxItems", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
  "exclusiveMaximum", "pattern", "format"
]

type Obj = Record<string, unknown>

const plain = (u: unknown): u is Obj => typeof u === "object" && u !== null && !Array.isArray(u)
const own = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k)

/** Keywords holding one subschema, a list of them, or a map of them (2020-12). */
const one = ["items", "not", "if", "then", "else", "contains", "propertyNames", "additionalProperties", "unevaluatedItems", "unevaluatedProperties", "contentSchema"]
const list = ["anyOf", "oneOf", "allOf", "prefixItems"]
const map = ["properties", "patternProperties", "$defs", "dependentSchemas"]

/** Every subschema of a schema with its pointer (iterative: deep schemas are fine). */
export const nodes = (schema: unknown): Array<{ readonly path: string; readonly node: unknown }> => {
  const out: Array<{ readonly path: string; readonly node: unknown }> = []
  const stack: Array<{ readonly path: string; readonly node: unknown }> = [{ path: "", node: schema }]
  while (stack.length > 0) {
    const top = stack.pop()!
    out.push(top)
    const n = top.node
    if (!plain(n)) continue
    const esc = (t: string) => t.replace(/~/g, "~0").replace(/\//g, "~1")
    for (const k of one) if (own(n, k)) stack.push({ path: `${top.path}/${k}`, node: n[k] })
    for (const k of list) {
      const v = n[k]
      if (own(n, k) && Array.isArray(v)) v.forEach((x, i) => stack.push({ path: `${top.path}/${k}/${i}`, node: x }))
    }
    for (const k of map) {
      const v = n[k]
      if (own(n, k) && plain(v)) for (const name of Object.keys(v)) stack.push({ path: `${top.path}/${k}/${esc(name)}`, node: v[name] })
    }
  }
  return out
}

/** Every way the schema breaks Google's rules, as `path: what` lines ([] when it keeps them all). */
export const googleViolations = (schema: unknown): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const { node, path } of nodes(schema)) {
    const at = path || "/"
    if (!plain(node)) {
      out.push(`${at}: not a schema object (${JSON.stringify(node)})`)
      continue
    }
    for (const k of googleUnsupported) if (own(node, k)) out.push(`${at}: unsupported \`${k}\``)
    if (own(node, "type") && typeof node["type"] !== "string") out.push(`${at}: \`type\` is not a scalar`)
    if (own(node, "nullable") && typeof node["nullable"] !== "boolean") out.push(`${at}: \`nullable\` is not a boolean`)
    if (node["type"] === "object" && !plain(node["properties"])) out.push(`${at}: object without \`properties\``)
  }
  return out
}
