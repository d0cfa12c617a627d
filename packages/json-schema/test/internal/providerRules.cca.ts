/**
 * Claude-via-CCA's rules (contract 3.5 and 3.6), written once for the tests: the residual gate holds
 * (no `type` list, no `type: "null"`, no `nullable`, no `anyOf`/`oneOf`/`allOf`) and the schema is valid
 * against Ajv's JSON Schema 2020-12 meta-schema.
 */
import { Ajv2020 } from "ajv/dist/2020.js"
import { nodes } from "./providerRules.google.js"

const ajv = new Ajv2020({ strict: false })

type Obj = Record<string, unknown>

const plain = (u: unknown): u is Obj => typeof u === "object" && u !== null && !Array.isArray(u)

/** The `dependencies` (draft-07) values are subschemas too: the gate looks inside them. */
const withDependencies = (schema: unknown): Array<{ readonly path: string; readonly node: unknown }> =>
  nodes(schema).flatMap((n) => {
    const deps = plain(n.node) ? n.node["dependencies"] : undefined
    return plain(deps) ? [n, ...Object.keys(deps).flatMap((k) => withDependencies(deps[k]).map((d) => ({ path: `${n.path}/dependencies/${k}${d.path}`, node: d.node })))] : [n]
  })

/** Every way the schema breaks CCA's rules ([] when it keeps them all). */
export const ccaViolations = (schema: unknown): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const { node, path } of withDependencies(schema)) {
    if (!plain(node)) continue
    const at = path || "/"
    if (Array.isArray(node["type"])) out.push(`${at}: \`type\` list`)
    if (node["type"] === "null") out.push(`${at}: \`type: "null"\``)
    for (const k of ["nullable", "anyOf", "oneOf", "allOf"]) if (Object.prototype.hasOwnProperty.call(node, k)) out.push(`${at}: \`${k}\``)
  }
  if (ajv.validateSchema(schema as object) !== true) out.push(`not valid 2020-12: ${ajv.errorsText(ajv.errors)}`)
  return out
}
