/**
 * @toolgate/cli: the `toolgate` command as a library, for embedding and tests.
 *
 * @since 0.1.0
 */

/** The root command and its runner. */
export * as Cli from "./Cli.js"

/** What `validate` decided for one call, as data. */
export * as Outcome from "./Outcome.js"

/** The trace and JSON renderings of an outcome. */
export * as Render from "./Render.js"
