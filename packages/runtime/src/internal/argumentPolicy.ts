/**
 * The argument validator's options: the policy (globally and per tool), tool chaining, and reading them
 * from config.
 *
 * @internal
 */
import * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type { Arguments } from "@toolgate/json-schema"

/** Options of `ArgumentValidator.make`. */
export interface Options {
  /** The policy of every tool without an override; `lenient` by default. */
  readonly policy?: Arguments.Policy
  /** Per-tool policies, by tool name. */
  readonly policies?: ReadonlyMap<string, Arguments.Policy> | Readonly<Record<string, Arguments.Policy>>
  /** Widen each schema with `RefAware.widen` so sentinel refs validate (tool chaining). */
  readonly toolChaining?: boolean
  /** How deep argument values may nest (default 64); deeper is `invalid_args`. */
  readonly maxArgumentDepth?: number
}

const PolicySchema = Schema.Literal("lenient", "strict")

/**
 * The options as a Schema, each optional: `make` decodes them (a value of the wrong kind is `InvalidOptions`,
 * never a default). The per-tool policies it checks are then read from the caller's own value, so a tool
 * named `__proto__` stays a name.
 */
export const OptionsSchema = Schema.Struct({
  policy: Schema.optional(PolicySchema),
  policies: Schema.optional(Schema.Union(
    Schema.ReadonlyMapFromSelf({ key: Schema.String, value: PolicySchema }),
    // a Map whose entries are wrong must not pass as a record with no keys
    Schema.compose(
      Schema.declare((u: unknown): u is object => typeof u === "object" && u !== null && !(u instanceof Map)),
      Schema.Record({ key: Schema.String, value: PolicySchema }),
      { strict: false }
    )
  )),
  toolChaining: Schema.optional(Schema.Boolean),
  maxArgumentDepth: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)))
})

const isPolicy = (u: unknown): u is Arguments.Policy => u === "lenient" || u === "strict"

/** The per-tool policies as a `Map` (own, well-formed entries only: `__proto__` is just a name). */
const overridesOf = (policies: Options["policies"]): ReadonlyMap<string, Arguments.Policy> => {
  const out = new Map<string, Arguments.Policy>()
  try {
    const entries = policies instanceof Map ? Array.from(policies) : Object.entries(policies ?? {})
    for (const [name, policy] of entries) if (typeof name === "string" && isPolicy(policy)) out.set(name, policy)
  } catch {
    // unreadable overrides (a throwing getter or proxy) are no overrides
  }
  return out
}

/** The policy of each tool: its override, else the default. */
export const policyOf = (options: Pick<Options, "policy"> & { readonly policies?: Options["policies"] | undefined }): (tool: string) => Arguments.Policy => {
  const fallback: Arguments.Policy = options.policy === "strict" ? "strict" : "lenient"
  const overrides = overridesOf(options.policies)
  return (tool) => overrides.get(tool) ?? fallback
}

/** `"a=strict, b=lenient"` as a map; a malformed entry is a `ConfigError`. */
export const parseOverrides = (text: string): Either.Either<ReadonlyMap<string, Arguments.Policy>, ConfigError.ConfigError> => {
  const out = new Map<string, Arguments.Policy>()
  for (const entry of text.split(",").map((e) => e.trim()).filter((e) => e !== "")) {
    const at = entry.lastIndexOf("=")
    const name = entry.slice(0, at).trim()
    const policy = entry.slice(at + 1).trim()
    if (at <= 0 || name === "" || !isPolicy(policy)) {
      return Either.left(ConfigError.InvalidData([], `Expected tool=lenient|strict, got \`${entry}\``))
    }
    out.set(name, policy)
  }
  return Either.right(out)
}
