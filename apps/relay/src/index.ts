/**
 * @toolgate/relay: the reference relay (capabilities, streamed turns, Chat Completions) over HTTP.
 *
 * @since 0.1.0
 */

/** The relay server: `router`, `layer`, `start`, and the profile and scenario file loaders. */
export * as Relay from "./Relay.js"

/** A profile (the served capabilities, kept raw) and the body it stands for under capability faults. */
export * as Profile from "./Profile.js"

/** The fault switches (`predates`, `malformed`, `newer-major`, `slow`, `fail`, `drop`, `garbage`, `rate-limit`). */
export * as Faults from "./Faults.js"

/** The demo's data: its local tools, the eleven scenarios, and the relay config serving them all. */
export * as Demo from "./Demo.js"

/** Reading a file a user names with a bound: a regular file of at most 64 MiB. */
export * as BoundedFile from "./BoundedFile.js"
