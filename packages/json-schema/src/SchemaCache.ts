/**
 * The caches json-schema keeps what it derives from schemas in (compiled validators, `prepare`'s entries,
 * widened schemas), for packages that derive more (the subschema prover's verdicts): by object identity
 * in a `WeakMap`, so an entry lives as long as its schema, and by canonical content (`JsonSchema.stableKey`)
 * in a map bounded in entries and in characters of keys. Schemas are treated as immutable once seen.
 *
 * @since 0.1.0
 */
export { byIdentity, byPair, Lru } from "./internal/compileCache.js"
