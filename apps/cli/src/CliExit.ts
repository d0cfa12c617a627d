/**
 * The exit code a command ends with, carried in the error channel to the one place that exits.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

/** Ends the command with `code` after it has printed its result. */
export class CliExit extends Data.TaggedError("CliExit")<{ readonly code: number }> {}
