/**
 * A toolkit: the tools of an agent by name, with the requirements of all their executors in its type.
 * The requirements are provided once: either by the application's layer graph (they stay in the effects
 * that run tools), or by `provide`, which builds a layer once and hands back a toolkit that needs nothing.
 *
 * @since 0.1.0
 */
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Errors from "./Errors.js"
import * as Tool from "./Tool.js"

/** Brands a value built by `make`. */
export const TypeId: unique symbol = Symbol.for("@toolgate/runtime/Toolkit")

/** The brand's type. */
export type TypeId = typeof TypeId

/** A named set of tools whose executors need `R`. */
export interface Toolkit<R> {
  readonly [TypeId]: TypeId
  /** The tools by name, in the order given. */
  readonly tools: ReadonlyMap<string, Tool.Tool<any, R>>
  /** The tools' names by domain, in the order given (`make` puts every tool in `defaultDomain`). */
  readonly domains: ReadonlyMap<string, ReadonlyArray<string>>
  /** What the tools' local schemas say that the validator will not enforce, tool by tool (`logWarnings` logs them). */
  readonly warnings: ReadonlyArray<Tool.SchemaWarning>
}

/** The domain of the tools of a toolkit built by `make`. */
export const defaultDomain = "default"

/** A toolkit's requirements: the union of its executors'. */
export type Requirements<T> = T extends Toolkit<infer R> ? R : never

const fromMap = <R>(tools: ReadonlyMap<string, Tool.Tool<any, R>>, domains: ReadonlyMap<string, ReadonlyArray<string>>): Toolkit<R> => ({
  [TypeId]: TypeId,
  tools,
  domains,
  warnings: Array.from(tools.values()).flatMap((t) => t.warnings)
})

/** The tool's name, when `u` is a tool `make` built whose brand, name and warnings read plainly (a throwing proxy trap or getter is not a tool). */
const nameOf = (u: unknown): string | undefined => {
  try {
    return Tool.isTool(u) && typeof u.name === "string" && Array.isArray(u.warnings) ? u.name : undefined
  } catch {
    return undefined
  }
}

/** The tools by name, or the first reason they cannot make a toolkit. */
const byName = <R>(tools: ReadonlyArray<Tool.Tool<any, R>>): Either.Either<Map<string, Tool.Tool<any, R>>, Errors.DuplicateToolName | Errors.NotATool> => {
  const out = new Map<string, Tool.Tool<any, R>>()
  for (const [index, tool] of tools.entries()) {
    const name = nameOf(tool)
    if (name === undefined) return Either.left(new Errors.NotATool({ index }))
    if (out.has(name)) return Either.left(new Errors.DuplicateToolName({ name }))
    out.set(name, tool)
  }
  return Either.right(out)
}

/** The domains' entries read once (`[domain, tools]`, each list copied), or why they cannot be read. */
const entriesOf = (domains: unknown): Either.Either<ReadonlyArray<readonly [string, ReadonlyArray<Tool.Tool<any, any>>]>, Errors.InvalidOptions> => {
  const invalid = (detail: string) => Either.left(new Errors.InvalidOptions({ of: "Toolkit.domains", detail }))
  try {
    if (typeof domains !== "object" || domains === null || Array.isArray(domains)) return invalid("the domains must be an object of domain names to lists of tools")
    const entries: Array<readonly [string, ReadonlyArray<Tool.Tool<any, any>>]> = []
    for (const [domain, tools] of Object.entries(domains)) {
      if (!Array.isArray(tools)) return invalid(`the domain \`${domain}\` is not a list of tools`)
      entries.push([domain, [...tools]])
    }
    return Either.right(entries)
  } catch (e) {
    return invalid(`the domains could not be read (${e instanceof Error ? e.message : "a value that throws"})`)
  }
}

/**
 * A toolkit of `tools`; its `R` is the union of their requirements. A repeated name is a typed
 * `DuplicateToolName`, a value that is not a tool `NotATool` (an `Either`, so it is usable at module level and `yield*`-able in `Effect.gen`).
 */
export const make = <const Tools extends ReadonlyArray<Tool.Tool<any, any>>>(
  ...tools: Tools
): Either.Either<Toolkit<Tool.Requirements<Tools[number]>>, Errors.DuplicateToolName | Errors.NotATool> =>
  Either.map(byName<Tool.Requirements<Tools[number]>>(tools), (map) => fromMap(map, new Map([[defaultDomain, [...map.keys()]]])))

/**
 * A toolkit whose tools are grouped into named domains (`{ weather: [getWeather], files: [read, write] }`),
 * in the order given: a provider with `toolDiscovery` other than eager sees a domain's tools only once the
 * model activates it. Tool names are unique across domains. A value that is not such an object (or cannot
 * be read: a proxy whose traps throw) is `InvalidOptions`.
 */
export const domains = <const Domains extends Readonly<Record<string, ReadonlyArray<Tool.Tool<any, any>>>>>(
  domains: Domains
): Either.Either<Toolkit<Tool.Requirements<Domains[keyof Domains][number]>>, Errors.DuplicateToolName | Errors.NotATool | Errors.InvalidOptions> =>
  Either.flatMap(entriesOf(domains), (entries) =>
    Either.map(
      byName<Tool.Requirements<Domains[keyof Domains][number]>>(entries.flatMap(([, tools]) => tools)),
      (map) => fromMap(map, new Map(entries.map(([domain, tools]) => [domain, tools.map((t) => nameOf(t)!)])))
    ))

/** Whether `u` was built by `make`. */
export const isToolkit = (u: unknown): u is Toolkit<unknown> => {
  try {
    return typeof u === "object" && u !== null && (u as { readonly [TypeId]?: unknown })[TypeId] === TypeId
  } catch {
    return false // a proxy whose trap throws is no toolkit
  }
}

/** The tool called `name`, if the toolkit has one (`__proto__` and friends are just names). */
export const get = <R>(toolkit: Toolkit<R>, name: string): Option.Option<Tool.Tool<any, R>> =>
  Option.fromNullable(toolkit.tools.get(name))

/** The toolkit with every executor's requirements provided from one context. */
export const provideContext = <R>(toolkit: Toolkit<R>, context: Context.Context<R>): Toolkit<never> =>
  fromMap(new Map(Array.from(toolkit.tools, ([name, tool]) => [name, Tool.provideContext(tool, context)] as const)), toolkit.domains)

/**
 * Builds `layer` once (in the current scope) and provides its services to every executor: the
 * resulting toolkit needs nothing, and no call rebuilds the layer.
 */
export const provide = <R, E, RIn>(
  toolkit: Toolkit<R>,
  layer: Layer.Layer<R, E, RIn>
): Effect.Effect<Toolkit<never>, E, RIn | Scope.Scope> =>
  Effect.map(Layer.build(layer), (context) => provideContext(toolkit, context))

/**
 * Logs each of the toolkit's schema warnings once, with `Effect.logWarning` (annotated with the tool, the
 * pointer and the keyword or format): `make` is pure, so the app logs them where it builds its layers.
 */
export const logWarnings = <R>(toolkit: Toolkit<R>): Effect.Effect<void> =>
  Effect.forEach(
    toolkit.warnings,
    (w) => Effect.logWarning(w.message).pipe(Effect.annotateLogs({ tool: w.tool, path: w.path, unenforced: w.name })),
    { discard: true }
  )
