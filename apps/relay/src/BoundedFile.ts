/**
 * Reading a file a user names (a relay profile or script, the CLI's tool catalogues and schemas) with a
 * bound: a regular file of at most `maxBytes`, checked before any of it is read, so a FIFO, a device or a
 * huge file is refused rather than waited on or loaded. It loads no server code, so the CLI's commands
 * use it without loading the relay.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as PlatformError from "@effect/platform/Error"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/** The most bytes a file a user gives may hold: 64 MiB (profiles, scripts, catalogues and schemas are far smaller). */
export const maxBytes = 64 * 1024 * 1024

/** Why the file at `path` was not read: `reason` completes "the file …" ("is not a regular file", "cannot be read (NotFound)"). */
export class Unreadable extends Data.TaggedError("Unreadable")<{ readonly path: string; readonly reason: string }> {}

/** The text of the regular file at `path`, of at most `maxBytes`. */
export const read = (path: string): Effect.Effect<string, Unreadable, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const cannot = (e: PlatformError.PlatformError) =>
      new Unreadable({ path, reason: `cannot be read (${e._tag === "SystemError" ? e.reason : e.message})` })
    const info = yield* Effect.mapError(fs.stat(path), cannot)
    if (info.type !== "File") return yield* new Unreadable({ path, reason: "is not a regular file" })
    if (Number(info.size) > maxBytes) return yield* new Unreadable({ path, reason: `is larger than ${maxBytes} bytes (${info.size})` })
    return yield* Effect.mapError(fs.readFileString(path), cannot)
  })
