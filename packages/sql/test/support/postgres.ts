/**
 * A throwaway PostgreSQL cluster for the tests: `initdb` into a temporary directory, `pg_ctl` on a free
 * loopback port, stopped and removed when the scope closes. `initdb` refuses to run as root, so under root
 * the cluster is made and run by the `postgres` user (`runuser`). When no cluster can be started this fails,
 * naming what is missing: the Postgres tests never pass without a server.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"

/** Where `initdb` and `pg_ctl` are: on PATH, else the newest /usr/lib/postgresql/<version>/bin. */
const binDir = (): string => {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir !== "" && fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "pg_ctl"))) return dir
  }
  const root = "/usr/lib/postgresql"
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)) : []
  for (const v of versions) if (fs.existsSync(path.join(root, v, "bin", "initdb"))) return path.join(root, v, "bin")
  throw new Error("PostgreSQL is not installed: no initdb on PATH nor under /usr/lib/postgresql/*/bin (apt-get install -y postgresql)")
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

/** Runs a Postgres tool, as the `postgres` user when we are root. */
const run = (bin: string, tool: string, args: ReadonlyArray<string>) => {
  const root = typeof process.getuid === "function" && process.getuid() === 0
  const [command, argv] = root ? ["runuser", ["-u", "postgres", "--", path.join(bin, tool), ...args]] : [path.join(bin, tool), args]
  return execFileSync(command, argv as Array<string>, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 })
}

/** A running cluster: its port, stopped and removed with the scope. */
export const cluster = Effect.acquireRelease(
  Effect.tryPromise({
    try: async () => {
      const bin = binDir()
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-pg-"))
      fs.chmodSync(dir, 0o777)
      if (typeof process.getuid === "function" && process.getuid() === 0) execFileSync("chown", ["postgres", dir])
      const data = path.join(dir, "data")
      run(bin, "initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
      const port = await freePort()
      run(bin, "pg_ctl", ["-D", data, "-l", path.join(dir, "log"), "-w", "-t", "60", "-o", `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, "start"])
      return { bin, dir, data, port }
    },
    catch: (e) => new Error(`Could not start a PostgreSQL cluster for the tests: ${e instanceof Error ? e.message : String(e)}`)
  }),
  ({ bin, data, dir }) =>
    Effect.sync(() => {
      try {
        run(bin, "pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    })
).pipe(Effect.orDie)
