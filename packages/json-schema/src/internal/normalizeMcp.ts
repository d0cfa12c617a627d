/**
 * `Normalize.mcp`: the light, lossless pass for schemas arriving from MCP servers. The whole
 * `JsonSchema.upgrade` runs first (draft-07 forms, OpenAPI `nullable`, published type names), then local
 * non-recursive `$ref`s are inlined (recursive, unresolvable and `$id`-carrying targets stay as refs, with
 * every `$defs` kept), `$schema` goes and `const` becomes `enum`. Type lists, validation keywords and
 * combinators are kept.
 *
 * @internal
 */
import type { Change, JsonSchema } from "../JsonSchema.js"
import { upgrade } from "../JsonSchema.js"
import { children } from "./keywords.js"
import type { Obj, Policy } from "./normalizeGoogleWalk.js"
import { constToEnum, copy, dedupe, failure, full, has, isPlain, makeWalk, set } from "./normalizeGoogleWalk.js"
import * as P from "./pointer.js"

const policy = (inline: boolean): Policy => ({
  inline,
  opaque: new Set(),
  bool: (b) => b,
  kept: (site, ref, why, _target, path, report) => {
    report(P.append(path, "$ref"), `\`$ref\` ${ref} kept (${why})`)
    const out: Obj = { $ref: ref }
    for (const k of Object.keys(site)) set(out, k, site[k])
    return out
  },
  rule: (node, path, report) => {
    if (has(node, "$schema")) {
      delete node["$schema"]
      report(P.append(path, "$schema"), "`$schema` removed (MCP schemas are read as 2020-12)")
    }
    constToEnum(node, path, report)
    return node
  }
})

/** Whether a schema uses dynamic references, which inlining could change the meaning of. */
const dynamic = (schema: JsonSchema): boolean => {
  const stack: Array<unknown> = [schema]
  while (stack.length > 0) {
    const s = stack.pop()
    if (!isPlain(s)) continue
    if (has(s, "$dynamicRef") || has(s, "$recursiveRef")) return true
    for (const c of children(s as never)) stack.push(c.schema)
  }
  return false
}

/** Removes every `$defs`/`definitions` from the walk's own output (no `$ref` is left to need them). */
const dropDefs = (schema: unknown, report: (path: string, change: string) => void): void => {
  const stack: Array<{ readonly s: unknown; readonly path: string }> = [{ s: schema, path: "" }]
  while (stack.length > 0) {
    const { path, s } = stack.pop()!
    if (!isPlain(s)) continue
    for (const k of ["$defs", "definitions"]) {
      if (!has(s, k)) continue
      delete s[k]
      report(P.append(path, k), `\`${k}\` removed: every \`$ref\` into it was inlined`)
    }
    for (const c of children(s as never)) stack.push({ s: c.schema, path: P.format([...P.parse(path), ...c.tokens]) })
  }
}

/** The MCP pass; see the module comment. */
export const mcp = (schema: JsonSchema): { readonly schema: JsonSchema; readonly changes: ReadonlyArray<Change> } => {
  const up = upgrade(schema)
  if (typeof up.schema === "boolean") return up
  try {
    const inline = !dynamic(up.schema)
    const w = makeWalk(up.schema, policy(inline))
    const out = full(w, up.schema, "", 0, [], false) as JsonSchema
    if (inline && w.keptRefs === 0) dropDefs(out, w.report)
    return { schema: out, changes: [...up.changes, ...dedupe(w.changes)] }
  } catch (e) {
    const out = copy(up.schema)
    delete out["$schema"]
    return {
      schema: out as JsonSchema,
      changes: [...up.changes, { path: "", change: `${failure(e)}: only \`$schema\` was removed; \`$ref\`s and \`const\` are left as they are` }]
    }
  }
}
