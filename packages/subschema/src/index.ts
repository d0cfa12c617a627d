/**
 * @toolgate/subschema: the subschema prover over `@toolgate/json-schema`'s schemas. Every module is a namespace.
 *
 * @since 0.1.0
 */

/** The subschema prover: `check(cloud, local)` → Subtype · Drift with a witness · Unsupported. */
export * as Subschema from "./Subschema.js"

/** A reason for drift and its one-line explanation, without the prover. */
export * as Reason from "./Reason.js"
