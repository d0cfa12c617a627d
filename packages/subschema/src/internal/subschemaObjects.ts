/**
 * Objects: `required`, each named property (cloud view against every local node governing it), the keys
 * nobody names (by class: no cloud pattern, or one cloud pattern), property counts, `propertyNames`, and
 * dependencies. `additionalProperties` is judged per node, so `allOf` branches keep their own.
 *
 * @internal
 */
import type { JsonValue } from "@toolgate/json-schema/JsonValue"
import type { JsonObject } from "@toolgate/json-schema/JsonValue"
import { fromEntries, isObject } from "@toolgate/json-schema/JsonValue"
import type { Ctx, Node, Outcome } from "./subschemaModel.js"
import { all, child, cloudAt, counter, isSchemaValue, keyName, kw, mapWitnesses, num, proven, regex, sameText, strings, unknown, where } from "./subschemaModel.js"
import { declares, forKey, named, patterns } from "./subschemaParts.js"
import * as Automata from "./patternAutomata.js"
import { matching } from "./subschemaPatterns.js"
import { keyView, objectWith, requiredKeys, sample } from "./subschemaWitness.js"

/** Proves one obligation (the prover's entry, passed in to keep the modules acyclic). */
export type Prove = (view: ReadonlyArray<Node>, local: Node) => Outcome

const fresh = ["extra", "x", "other", "a", "zz", "key1", "_", "0", "Z", "x-extra"]

/** Checks the local object keywords against a cloud conjunction (its object values). */
export const check = (ctx: Ctx, nodes: ReadonlyArray<Node>, local: Node, prove: Prove): Outcome => {
  const lreq = kw(local, "required")
  if (lreq !== undefined && (!Array.isArray(lreq) || lreq.some((x) => typeof x !== "string"))) return unknown("required", where(local, "required"))
  for (const k of ["properties", "patternProperties", "dependentRequired", "dependentSchemas", "dependencies"]) {
    const v = kw(local, k)
    if (v !== undefined && !isObject(v)) return unknown(k, where(local, k))
    if (k !== "dependentRequired" && k !== "dependencies" && isObject(v) && !Object.values(v).every(isSchemaValue)) return unknown(k, where(local, k))
  }
  for (const k of ["additionalProperties", "propertyNames"]) {
    const v = kw(local, k)
    if (v !== undefined && !isSchemaValue(v)) return unknown(k, where(local, k))
  }
  const cloudReq = new Set(requiredKeys(nodes))
  const possible = (k: string) => !keyView(nodes, k).some((n) => n.schema === false)
  const names = [...new Set([...nodes.flatMap(named), ...cloudReq, ...named(local), ...strings(lreq)])]
  const closed = nodes.some((n) => kw(n, "additionalProperties") === false && patterns(n).length === 0)
  const cloudPath = cloudAt(nodes)
  const required = (): Outcome => {
    for (const k of strings(lreq)) {
      if (cloudReq.has(k)) continue
      const message = possible(k)
        ? `${keyName(k)} is required locally but optional in the cloud schema`
        : `${keyName(k)} is required locally but the cloud schema does not allow it`
      return counter({ cloudPath, localPath: where(local, "required"), message }, [objectWith(ctx, nodes, k, undefined)])
    }
    return proven
  }
  const property = (k: string) => (): Outcome => {
    if (!possible(k)) return proven
    const ln = forKey(local, k)
    if (ln === "invalid") return unknown("patternProperties (invalid regular expression)", where(local, "patternProperties"))
    const cv = keyView(nodes, k)
    return all(ln.map((l) => () => descend(ctx, nodes, k, cv, l, prove)))
  }
  return all([
    required,
    ...names.map(property),
    () => unnamed(ctx, nodes, local, names, closed, prove),
    () => counts(ctx, nodes, local, names, closed, cloudReq.size, possible),
    () => propertyNames(ctx, nodes, local, names, closed, possible, prove),
    () => dependencies(ctx, nodes, local, cloudReq, possible, prove)
  ])
}

const descend = (ctx: Ctx, nodes: ReadonlyArray<Node>, k: string, cv: ReadonlyArray<Node>, l: Node, prove: Prove): Outcome => {
  ctx.guard++
  const o = prove(cv, l)
  ctx.guard--
  if (o._tag !== "Counter") return o
  const wrapped = mapWitnesses(o, (w) => objectWith(ctx, nodes, k, w))
  if (l.schema !== false || wrapped._tag !== "Counter") return wrapped
  return { ...wrapped, reasons: [{ cloudPath: cloudAt([...cv, ...nodes]), localPath: where(l), message: `${keyName(k)} is allowed by the cloud schema but the local schema rejects it (${l.ptr?.endsWith("additionalProperties") === true ? "additionalProperties: false" : "false schema"})` }] }
}

/** Keys no schema names: one class for keys no cloud pattern matches, one per cloud pattern. */
const unnamed = (ctx: Ctx, nodes: ReadonlyArray<Node>, local: Node, names: ReadonlyArray<string>, closed: boolean, prove: Prove): Outcome => {
  const lpats = patterns(local)
  const la = kw(local, "additionalProperties")
  if (lpats.length === 0 && (la === undefined || la === true)) return proven
  const localPats = (isObject(kw(local, "patternProperties")) ? lpats : []).flatMap((p) => {
    const s = (kw(local, "patternProperties") as { readonly [k: string]: JsonValue })[p]
    return isSchemaValue(s) ? [{ source: p, node: child(local, s, "patternProperties", p) }] : []
  })
  const laNode = isSchemaValue(la) ? child(local, la, "additionalProperties") : undefined
  const plainNodes = nodes.flatMap((n) => {
    const ap = kw(n, "additionalProperties")
    return isSchemaValue(ap) ? [child(n, ap, "additionalProperties")] : []
  })
  const noPatterns = nodes.filter((n) => patterns(n).length === 0)
  const classes: Array<{ readonly pattern: string | undefined; readonly view: ReadonlyArray<Node> }> = closed ? [] : [{ pattern: undefined, view: plainNodes }]
  for (const n of nodes) {
    const pp = kw(n, "patternProperties")
    if (!isObject(pp)) continue
    for (const p of Object.keys(pp)) {
      const s = pp[p]
      if (!isSchemaValue(s)) continue
      const extra = noPatterns.flatMap((m) => forKeyless(m))
      classes.push({ pattern: p, view: [child(n, s, "patternProperties", p), ...extra] })
    }
  }
  // a key of the no-pattern class matches no cloud pattern, so no local pattern with the same source
  const cloudPats = new Set(nodes.flatMap(patterns))
  const steps = classes.flatMap((c) => {
    const targets = [
      ...localPats.filter((lp) => c.pattern !== undefined || !cloudPats.has(lp.source)).map((lp) => lp.node),
      ...(laNode !== undefined && (c.pattern === undefined || !lpats.includes(c.pattern)) ? [laNode] : [])
    ]
    return targets.map((t) => () => {
      ctx.guard++
      const o = prove(c.view, t)
      ctx.guard--
      if (o._tag !== "Counter") return o
      // a key of this class that reaches the target: one the local pattern matches, or one no local pattern or name does
      const target = localPats.find((lp) => lp.node === t)?.source
      const drawn = Automata.strings([...(c.pattern === undefined ? [] : [c.pattern]), ...(target === undefined ? [] : [target])], [...(c.pattern === undefined ? cloudPats : []), ...(target === undefined ? lpats : [])])
      const keys = [...(target === undefined ? [] : [matching(target), matching(target, 3)]), ...drawn, ...fresh].filter((s): s is string => s !== undefined)
      const key = keys.find((s) => !names.includes(s) && keyMatches(s, c.pattern, nodes) && reaches(s, target, lpats))
      if (key === undefined) return unknown("patternProperties (no key to show)", where(t))
      const w = mapWitnesses(o, (v) => objectWith(ctx, nodes, key, v))
      if (t.schema !== false || w._tag !== "Counter") return w
      return { ...w, reasons: [{ cloudPath: cloudAt(nodes), localPath: where(t), message: `the cloud schema allows properties the local schema does not declare (such as ${keyName(key)}), which the local schema rejects` }] }
    })
  })
  return all(steps)
}

/** A node's `additionalProperties` as it applies to a key it neither names nor patterns. */
const forKeyless = (m: Node): ReadonlyArray<Node> => {
  const ap = kw(m, "additionalProperties")
  return isSchemaValue(ap) ? [child(m, ap, "additionalProperties")] : []
}

/** Whether key `s` is governed by the local pattern `target`, or (no target) by the local `additionalProperties`. */
const reaches = (s: string, target: string | undefined, lpats: ReadonlyArray<string>): boolean =>
  target !== undefined ? regex(target)?.test(s) === true : lpats.every((p) => regex(p)?.test(s) === false)

const keyMatches = (s: string, pattern: string | undefined, nodes: ReadonlyArray<Node>): boolean => {
  if (pattern !== undefined) return regex(pattern)?.test(s) === true
  return nodes.every((n) => !declares(n, s) && patterns(n).every((p) => regex(p)?.test(s) === false))
}

const counts = (ctx: Ctx, nodes: ReadonlyArray<Node>, local: Node, names: ReadonlyArray<string>, closed: boolean, nreq: number, possible: (k: string) => boolean): Outcome => {
  const lmin = kw(local, "minProperties"), lmax = kw(local, "maxProperties")
  if (lmin === undefined && lmax === undefined) return proven
  const min = nodes.reduce((m, n) => Math.max(m, num(kw(n, "minProperties")) ?? 0), nreq)
  const max = nodes.reduce((m, n) => Math.min(m, num(kw(n, "maxProperties")) ?? Infinity), closed ? names.filter(possible).length : Infinity)
  const at = (k: string) => ({ cloudPath: cloudAt(nodes), localPath: where(local, k) })
  if (lmin !== undefined) {
    const m = num(lmin)
    if (m === undefined) return unknown("minProperties", where(local, "minProperties"))
    if (min < m) return counter({ ...at("minProperties"), message: `the local schema requires at least ${m} properties; the cloud schema allows ${min}` }, [sample(ctx, nodes, "object")])
  }
  if (lmax !== undefined) {
    const m = num(lmax)
    if (m === undefined) return unknown("maxProperties", where(local, "maxProperties"))
    if (max > m) {
      let w: JsonValue | undefined = sample(ctx, nodes, "object")
      const keys = [...names.filter(possible), ...fresh.filter((k) => !names.includes(k))]
      for (const k of keys) {
        if (!isObject(w) || Object.keys(w).length > m) break
        if (Object.prototype.hasOwnProperty.call(w, k)) continue
        const v = sample(ctx, keyView(nodes, k))
        if (v !== undefined) w = fromEntries([...Object.keys(w).map((x) => [x, (w as JsonObject)[x]!] as const), [k, v]])
      }
      return counter({ ...at("maxProperties"), message: `the local schema allows at most ${m} properties; the cloud schema allows more` }, [w])
    }
  }
  return proven
}

const propertyNames = (ctx: Ctx, nodes: ReadonlyArray<Node>, local: Node, names: ReadonlyArray<string>, closed: boolean, possible: (k: string) => boolean, prove: Prove): Outcome => {
  const pn = kw(local, "propertyNames")
  if (pn === undefined || pn === true) return proven
  if (!isSchemaValue(pn)) return unknown("propertyNames", where(local, "propertyNames"))
  const target = child(local, pn, "propertyNames")
  for (const n of nodes) {
    const q = kw(n, "propertyNames")
    if (isSchemaValue(q) && prove([child(n, q, "propertyNames")], target)._tag === "Proven") return proven
  }
  const keys = closed ? names.filter(possible) : [...names.filter(possible), ...fresh]
  const steps = keys.map((k) => () => {
    const o = prove([{ schema: { const: k }, ptr: undefined }], target)
    return o._tag !== "Counter" ? o : counter({ cloudPath: cloudAt(nodes), localPath: where(target), message: `the cloud schema allows the property name ${keyName(k)}, which the local propertyNames rejects` }, [objectWith(ctx, nodes, k, sample(ctx, keyView(nodes, k)) ?? null)])
  })
  const o = all(steps)
  if (o._tag !== "Proven" || closed) return o
  // the cloud allows any name: every string, or a string the local propertyNames rejects (verified later)
  const any = prove([{ schema: { type: "string" }, ptr: undefined }], target)
  if (any._tag === "Proven") return proven
  if (any._tag === "Unknown") return unknown("propertyNames (cloud allows any name)", where(target))
  const reason = { cloudPath: cloudAt(nodes), localPath: where(target), message: "the cloud schema allows any property name; the local propertyNames rejects some" }
  return counter(reason, any.witnesses.flatMap((k) => typeof k === "string" && !names.includes(k) ? [objectWith(ctx, nodes, k, sample(ctx, keyView(nodes, k)) ?? null)] : []))
}

const dependencies = (ctx: Ctx, nodes: ReadonlyArray<Node>, local: Node, cloudReq: ReadonlySet<string>, possible: (k: string) => boolean, prove: Prove): Outcome => {
  const steps: Array<() => Outcome> = []
  for (const key of ["dependentRequired", "dependencies", "dependentSchemas"] as const) {
    const deps = kw(local, key)
    if (!isObject(deps)) continue
    for (const a of Object.keys(deps)) {
      const d = deps[a]!
      steps.push(() => {
        if (!possible(a)) return proven
        if (Array.isArray(d) && key !== "dependentSchemas") {
          const need = strings(d)
          if (need.every((b) => cloudReq.has(b))) return proven
          const cloudSays = nodes.some((n) => ["dependentRequired", "dependencies"].some((ck) => {
            const c = kw(n, ck)
            const list = isObject(c) ? c[a] : undefined
            return Array.isArray(list) && need.every((b) => list.includes(b))
          }))
          if (cloudSays) return proven
          return counter({ cloudPath: cloudAt(nodes), localPath: where(local, key, a), message: `the local schema requires ${need.map(keyName).join(", ")} whenever ${keyName(a)} is present; the cloud schema does not` }, [objectWith(ctx, nodes, a, sample(ctx, keyView(nodes, a)) ?? null)])
        }
        if (!isSchemaValue(d) || key === "dependentRequired") return unknown(key, where(local, key, a))
        if (nodes.some((n) => ["dependentSchemas", "dependencies"].some((ck) => { const c = kw(n, ck); return isObject(c) && c[a] !== undefined && sameText(ctx, c[a]!, d) }))) return proven
        const o = prove(nodes, child(local, d, key, a))
        if (o._tag === "Proven") return o
        if (o._tag === "Counter") return mapWitnesses(o, (w) => isObject(w) && !Object.prototype.hasOwnProperty.call(w, a) ? fromEntries([...Object.keys(w).map((x) => [x, w[x]!] as const), [a, sample(ctx, keyView(nodes, a)) ?? null]]) : w)
        return unknown(key, where(local, key, a))
      })
    }
  }
  return all(steps)
}
