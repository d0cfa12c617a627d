/**
 * The tools of the crash tests, the same in the process that is killed and in the one that resumes: each run
 * and undo appends a line to a file, so a count survives the process.
 */
import { Effect, Either } from "effect"
import * as fs from "node:fs"
import { Tool, Toolkit } from "@toolgate/runtime"

const params = { type: "object", properties: { v: { type: "string" } }, required: ["v"] } as const

/** `book` (undone), `charge` (no undo), `block` (runs `onBlock`, then never answers). */
export const crashKit = (runsFile: string, onBlock: Effect.Effect<void> = Effect.void) => {
  const log = (line: string) => Effect.sync(() => fs.appendFileSync(runsFile, `${line}\n`))
  const book = Tool.make("book", {
    description: "Books.",
    parameters: params,
    execute: (args, ctx) => Effect.as(log(`run book ${ctx.idempotencyKey}`), { booked: (args as { v: string }).v }),
    undo: (_args, ctx) => log(`undo book ${ctx.idempotencyKey}`)
  })
  const charge = Tool.make("charge", {
    description: "Charges.",
    parameters: params,
    execute: (args, ctx) => Effect.as(log(`run charge ${ctx.idempotencyKey}`), { charged: (args as { v: string }).v })
  })
  const block = Tool.make("block", {
    description: "Blocks.",
    parameters: params,
    execute: (_args, ctx) => Effect.zipRight(Effect.zipRight(log(`run block ${ctx.idempotencyKey}`), onBlock), Effect.never)
  })
  return Either.getOrThrow(Toolkit.make(book, charge, block))
}

/** The lines of the runs file. */
export const runs = (runsFile: string): ReadonlyArray<string> =>
  fs.existsSync(runsFile) ? fs.readFileSync(runsFile, "utf8").split("\n").filter((l) => l !== "") : []
