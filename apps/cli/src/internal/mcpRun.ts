/**
 * What `mcp lock` and `check --mcp` do once they run (loaded only by them): connect to the server, list its
 * tools, and write its lock entry or prove the listing against it. The server is started first: the lock and its
 * prover (the largest modules the commands use) load while it starts.
 *
 * @internal
 */
import * as FileSystem from "@effect/platform/FileSystem"
import type * as McpErrors from "@toolgate/mcp/McpErrors"
import * as McpConnection from "@toolgate/mcp/McpConnection"
import type * as McpLock from "@toolgate/mcp/McpLock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import { BadInput } from "./input.js"
import type * as CheckReport from "./checkReport.js"
import { withProgress } from "./progress.js"

/** Where the server is and how the lock names it. */
export interface Target {
  readonly server: McpConnection.OptionsInput["server"]
  readonly label: string
  readonly protocol: McpConnection.Protocol
  readonly lock: string
  readonly name: Option.Option<string>
  readonly scope: string
  readonly timeout: number
}

/** The server's listing (and what it said it is), a failure to reach it kept as a value. */
const listing = (target: Target) =>
  withProgress(
    `waiting for the MCP server ${target.label} (up to ${target.timeout} s)`,
    Effect.scoped(Effect.gen(function*() {
      const seconds = `${target.timeout} seconds`
      const connection = yield* McpConnection.make({ server: target.server, protocol: target.protocol, limits: { connectTimeout: seconds, listTimeout: seconds } })
      const listed = yield* connection.listTools
      return { info: connection.serverInfo, listed }
    }))
  ).pipe(
    Effect.map(Either.right),
    Effect.catchAll((e) => e._tag === "InvalidOptions" ? new BadInput({ message: e.message }) : Effect.succeed(Either.left(e)))
  )

/** The lock and its prover, loaded once the server is starting. */
const lockModule = Effect.promise(() => import("@toolgate/mcp/McpLock"))

/** `check --mcp`'s report (its renderings and exit code), loaded while the server starts. */
export const report = Effect.promise(() => import("./checkReport.js"))

/** The server's listing, started now (the server spawned or reached first) and joined when needed. */
const started = (target: Target) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.fork(listing(target))
    // let the fiber reach the spawn before the modules the proof needs are compiled
    yield* Effect.yieldNow()
    return fiber
  })

/** The lock file, if there is one at `path`. */
const existing = (McpLock: typeof import("@toolgate/mcp/McpLock"), path: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (!(yield* fs.exists(path).pipe(Effect.orElseSucceed(() => false)))) return Option.none<McpLock.LockFile>()
    return Option.some(yield* McpLock.read(path))
  }).pipe(Effect.mapError((e) => new BadInput({ message: e.message })))

/** Whether a connection failure means the server could not be reached (3) rather than broke the protocol (2). */
const unreachable = (e: McpErrors.McpError): boolean => e._tag === "McpUnavailable" || e._tag === "McpTimeout"

/** What `mcp lock` did. */
export type LockOutcome =
  | { readonly _tag: "Locked"; readonly lock: string; readonly server: string; readonly scope: string; readonly tools: ReadonlyArray<string>; readonly problems: ReadonlyArray<string> }
  | { readonly _tag: "Unreachable" | "ContractError"; readonly detail: string }

/** Lists the server and writes its entry into the lock (other entries kept). */
export const lock = (target: Target) =>
  Effect.gen(function*() {
    const pending = yield* started(target)
    const McpLock = yield* lockModule
    const before = yield* existing(McpLock, target.lock)
    const answer = yield* Fiber.join(pending)
    if (Either.isLeft(answer)) {
      const e = answer.left
      return { _tag: unreachable(e) ? "Unreachable" : "ContractError", detail: e.message } satisfies LockOutcome
    }
    const { info, listed } = answer.right
    const server = Option.getOrElse(target.name, () => info.name)
    if (server === "") return yield* new BadInput({ message: "The server gives no name (at initialize or server/discover): name its lock entry with --name." })
    const entry = McpLock.fromListing(info, listed.tools, listed.cacheScope)
    yield* McpLock.write(target.lock, McpLock.put(Option.getOrUndefined(before), server, target.scope, entry)).pipe(
      Effect.mapError((e) => new BadInput({ message: e.message }))
    )
    const proof = McpLock.prove(entry, listed.tools)
    return {
      _tag: "Locked",
      lock: target.lock,
      server,
      scope: target.scope,
      tools: Object.keys(entry.tools),
      problems: [...listed.problems.map((p) => `tools[${p.index}] is not a tool: ${p.reason}`), ...proof.badNames.map((n) => `left out: ${JSON.stringify(n)} is not a name MCP allows`)]
    } satisfies LockOutcome
  })

/** Lists the server and proves it against its lock entry, as `check`'s report. */
export const check = (target: Target) =>
  Effect.gen(function*() {
    const pending = yield* started(target)
    const McpLock = yield* lockModule
    const file = yield* existing(McpLock, target.lock)
    if (Option.isNone(file)) return yield* new BadInput({ message: `No lock at ${target.lock}: write one with toolgate mcp lock.` })
    yield* report
    const answer = yield* Fiber.join(pending)
    if (Either.isLeft(answer)) {
      const e = answer.left
      return { _tag: unreachable(e) ? "Unreachable" : "ContractError", detail: e.message } satisfies CheckReport.Report
    }
    const { info, listed } = answer.right
    const server = Option.getOrElse(target.name, () => info.name)
    const entry = McpLock.get(file.value, server, target.scope)
    if (Option.isNone(entry)) {
      return yield* new BadInput({ message: `The lock ${target.lock} has no entry for the server ${JSON.stringify(server)} under the scope ${JSON.stringify(target.scope)}.` })
    }
    const proof = McpLock.prove(entry.value, listed.tools)
    return {
      _tag: "Checked",
      version: info.version,
      rows: proof.rows,
      localOnly: [],
      upgrades: [],
      warnings: [],
      mcp: { server, scope: target.scope, lock: target.lock, added: proof.added, described: proof.described, badNames: proof.badNames }
    } satisfies CheckReport.Report
  })
