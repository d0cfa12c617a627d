/**
 * `toolgate sessions list|show|export --db <file.sqlite | postgres://…>`: the stored sessions of a
 * `SessionStore` on SQL, read without changing them. `list` prints one line per session (turns, messages,
 * outstanding effects, pending turns, lease), `show ID` one session (history summarized, undo log,
 * outstanding effects, pending turns, lease), `export ID` its `SessionSnapshot` as JSON. Exit 0 done, 1 no
 * such session, 3 the store cannot be read (a server unreachable, a corrupted row), 4 bad input (a
 * missing file, a file that is no SQLite database, a database without toolgate's tables).
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import type * as Errors from "@toolgate/runtime/Errors"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { CliExit } from "./CliExit.js"
import { BadInput } from "./internal/input.js"
import * as Lazy from "./internal/lazy.js"
import { badInput, failureJson } from "./internal/output.js"
import { json } from "./Validate.js"

/** The exit code for bad input: 4, as `check`'s (3 is a store that cannot be read). */
export const badInputCode = 4

/** The exit code when the store cannot be read: unreachable, refused, or a stored row that does not decode. */
export const storeFailedCode = 3

/** The exit code when the session asked for was never stored. */
export const notFoundCode = 1

/** `show` or `export` named a session the store does not hold. */
export class SessionNotFound extends Schema.TaggedError<SessionNotFound>()("SessionNotFound", {
  session: Schema.String,
  database: Schema.String
}) {
  /** Which session and where it was looked for. */
  override get message(): string {
    return `No session ${JSON.stringify(this.session)} in ${this.database}.`
  }
}

const db = Options.text("db").pipe(
  Options.withDescription(
    "the session store: a postgres:// or postgresql:// URL (Postgres), or else the path of a SQLite file, read-only and never created. Required."
  )
)
const timeout = Options.integer("timeout").pipe(
  Options.withDefault(10),
  Options.withDescription("seconds (1 to 3600) to wait for a Postgres server before calling it unreachable. Default: 10.")
)
const exportJson = Options.boolean("json").pipe(
  Options.withDescription("print a failure as a _tag-ed JSON object with its exitCode on stdout too (the snapshot is JSON either way). Default: off.")
)
const id = Args.text({ name: "ID" }).pipe(Args.withDescription("the session's id. Required."))

interface Given {
  readonly db: string
  readonly timeout: number
  readonly json: boolean
}

/** Says why the command could not finish (with `--json`, also as an object on stdout), then ends with `code`. */
const failed = (options: { readonly json: boolean }, code: number) => (e: SessionNotFound | Errors.SessionStoreError) =>
  Effect.gen(function*() {
    yield* Console.error(`toolgate: ${e.message}`)
    const { _tag, message, ...fields } = e
    if (options.json) yield* Console.log(failureJson(_tag, code, message, { ...fields }))
    return yield* new CliExit({ code })
  })

/** Runs `use` on the store `--db` names (opened for the command, closed after), failures mapped to their exit codes. */
const withStore = (
  options: Given,
  use: (
    store: import("@toolgate/runtime/SessionStore").Service,
    render: typeof import("./internal/sessionsRender.js"),
    database: string
  ) => Effect.Effect<void, SessionNotFound | Errors.SessionStoreError>
) =>
  Effect.gen(function*() {
    if (!(options.timeout >= 1 && options.timeout <= 3600)) return yield* new BadInput({ message: `--timeout must be 1 to 3600 seconds, got ${options.timeout}.` })
    const [Store, Render] = yield* Lazy.sessions
    const database = yield* Store.database(options.db)
    const store = yield* Store.open(database, options.timeout)
    yield* use(store, Render, database.name)
  }).pipe(
    Effect.scoped,
    Effect.catchTags({
      BadInput: badInput(options, badInputCode),
      SessionStoreError: failed(options, storeFailedCode),
      SessionNotFound: failed(options, notFoundCode)
    })
  )

/** The session `id`, or `SessionNotFound`. */
const load = (store: import("@toolgate/runtime/SessionStore").Service, session: string, database: string) =>
  Effect.flatMap(store.load(session), (stored) => stored._tag === "Some" ? Effect.succeed(stored.value) : new SessionNotFound({ session, database }))

/** `sessions list`. */
export const list = Command.make("list", { db, timeout, json }, (options) =>
  withStore(options, (store, Render, database) =>
    Effect.gen(function*() {
      const sessions = yield* store.list
      yield* Console.log(options.json ? Render.listJson(sessions) : Render.listText(sessions, database))
    }))).pipe(Command.withDescription(
    "One line per stored session: turns started, messages, outstanding effects, pending turns, lease holder and expiry. " +
      "Example: toolgate sessions list --db sessions.sqlite"
  ))

/** `sessions show ID`. */
export const show = Command.make("show", { id, db, timeout, json }, (options) =>
  withStore(options, (store, Render, database) =>
    Effect.gen(function*() {
      const stored = yield* load(store, options.id, database)
      const lease = (yield* store.list).find((s) => s.id === options.id)?.lease
      yield* Console.log(options.json ? Render.showJson(stored, lease) : Render.showText(stored, lease, database))
    }))).pipe(Command.withDescription(
    "One stored session: its history summarized (role and clipped text per message), undo log, outstanding effects " +
      "(tool, idempotency key, reason), pending turns and lease. Exit 1 when there is no such session. " +
      "Example: toolgate sessions show support-42 --db postgres://app@db.internal/app"
  ))

/** `sessions export ID`. */
export const exportCommand = Command.make("export", { id, db, timeout, json: exportJson }, (options) =>
  withStore(options, (store, Render, database) =>
    Effect.gen(function*() {
      const stored = yield* load(store, options.id, database)
      yield* Console.log(yield* Render.snapshotJson(stored.snapshot))
    }))).pipe(Command.withDescription(
    "The session's SessionSnapshot (history, undo log, session results, outstanding effects, usage) as JSON on stdout, " +
      "for a session store's import. Exit 1 when there is no such session. " +
      "Example: toolgate sessions export support-42 --db sessions.sqlite > support-42.json"
  ))

/** The subcommands of `sessions`. */
export const subcommands = [list, show, exportCommand] as const

/** The `sessions` subcommand. */
export const command = Command.make("sessions").pipe(
  Command.withDescription(
    "Read the sessions a SQL session store holds (SQLite file or Postgres), never changing them. " +
      "Exit 0 done, 1 no such session, 3 the store cannot be read (unreachable, a corrupted row), 4 bad input. " +
      "Example: toolgate sessions list --db sessions.sqlite"
  ),
  Command.withSubcommands(subcommands)
)
