/**
 * The session store over any `SqlClient`, put together from its parts: the journal of a running turn
 * (`journal`), closing a turn (`turns`), the undo log and outstanding effects (`undo`), whole sessions
 * (`sessions`) and the lease (`lease`). Every change is one transaction whose first statement writes the
 * session's row (`sessionRow`), and every row read is decoded through its Schema.
 *
 * @internal
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { SessionStore } from "@toolgate/runtime"
import * as Journal from "./journal.js"
import * as Lease from "./lease.js"
import * as SessionRow from "./sessionRow.js"
import * as Sessions from "./sessions.js"
import * as Sqlite from "./sqlite.js"
import * as Transaction from "./transaction.js"
import * as Turns from "./turns.js"
import * as Undo from "./undo.js"

/** The store over the `SqlClient` in context; `limit` bounds every stored value. */
export const make = (limit: number) =>
  Effect.gen(function*() {
    const db = Transaction.make(yield* SqlClient.SqlClient, limit, yield* Effect.serviceOption(Sqlite.DirectTag))
    const lease = Lease.make(db.sql, db.tx)
    const row = SessionRow.make(db, lease)
    const journal = Journal.make(db, row)
    const turns = Turns.make(db, row)
    const undo = Undo.make(db, row)
    const sessions = Sessions.make(db)

    // every operation in its span, in the one place the runtime traces a store's operations
    return SessionStore.traced({
      load: (session) => sessions.load(session, "load"),
      list: sessions.list,
      callStarted: journal.callStarted,
      callFinished: journal.callFinished,
      commitTurn: turns.commitTurn,
      rollbackTurn: turns.rollbackTurn,
      undoStepStarted: undo.undoStepStarted,
      undoStepInterrupted: undo.undoStepInterrupted,
      undoStepDone: undo.undoStepDone,
      undoTurn: undo.undoTurn,
      reconcile: undo.reconcile,
      acquire: (session, owner, ttl) => lease.take(session, owner, ttl, "acquire"),
      renew: (session, owner, ttl) => lease.take(session, owner, ttl, "renew"),
      release: lease.release,
      export: (session) => Effect.map(sessions.load(session, "export"), Option.map((stored) => stored.snapshot)),
      import: sessions.importSnapshot,
      delete: sessions.remove
    })
  })
