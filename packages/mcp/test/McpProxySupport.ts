/**
 * What the proxy's tests share: the fixture and proxy scripts, a client on the proxy process over stdio, and
 * the fixture's call counter.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { createRequire } from "node:module"
import { dirname, resolve } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"
import type { McpProxy } from "../src/index.js"

const here = dirname(fileURLToPath(import.meta.url))

/** The repository's root (child processes start there, so `--import tsx` resolves). */
export const root = resolve(here, "../../..")

/** The arguments that run a TypeScript file with node. */
export const tsx = (file: string): Array<string> => ["--import", "tsx", "--conditions=@toolgate/source", file]

/** An upstream spawned as a process. */
export type StdioServer = Extract<McpProxy.Options["server"], { readonly _tag: "Stdio" }> & { readonly args: ReadonlyArray<string> }

/** The fixture server as the proxy's upstream. */
export const fixture: StdioServer = {
  _tag: "Stdio",
  command: process.execPath,
  args: tsx(resolve(here, "fixtures/proxyFixture.ts")),
  cwd: root
}

/** `@modelcontextprotocol/server-everything` as the proxy's upstream (its bin, run by node). */
export const everything: StdioServer = {
  _tag: "Stdio",
  command: process.execPath,
  args: [createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js"), "stdio"],
  cwd: root
}

/** The proxy process's script. */
export const proxyMain = resolve(here, "fixtures/proxyMain.ts")

/** An SDK client connected to `transport`, closed with the scope. */
export const clientOver = (transport: Transport) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const client = new Client({ name: "proxy-test", version: "1.0.0" })
      await client.connect(transport)
      return client
    }),
    (client) => Effect.promise(() => client.close())
  )

/** A client on a proxy process over stdio, fronting `options.server`. */
export const stdioProxy = (options: McpProxy.Options) =>
  clientOver(new StdioClientTransport({ command: process.execPath, args: [...tsx(proxyMain), JSON.stringify(options)], cwd: root, stderr: "pipe" }))

/** Calls a tool. */
export const call = (client: Client, name: string, args?: Record<string, unknown>, meta?: Record<string, unknown>) =>
  Effect.promise(() =>
    client.callTool({ name, ...(args === undefined ? {} : { arguments: args }), ...(meta === undefined ? {} : { _meta: meta }) }) as Promise<CallToolResult>
  )

/** The text of a result's first content part. */
export const textOf = (result: CallToolResult): string => {
  const first = result.content[0]
  return first?.type === "text" ? first.text : ""
}

/** How many `tools/call` requests the fixture has received (this one included). */
export const upstreamCalls = (client: Client) => Effect.map(call(client, "calls"), (r) => Number(textOf(r)))

/**
 * The proxy spawned over stdio and spoken to as raw lines: `send` writes one line, `answerTo(id)` waits for the
 * JSON-RPC answer with that id, `answered(id)` says whether one came; `kill` ends the process.
 */
export const rawStdioProxy = (options: McpProxy.Options) => {
  const child = spawn(process.execPath, [...tsx(proxyMain), JSON.stringify(options)], { cwd: root, stdio: ["pipe", "pipe", "inherit"] })
  const answers = new Map<number, any>()
  const waiters = new Map<number, () => void>()
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line)
    if (typeof message.id === "number") {
      answers.set(message.id, message)
      waiters.get(message.id)?.()
    }
  })
  return {
    send: (line: string) => void child.stdin.write(line + "\n"),
    answerTo: (id: number): Promise<any> =>
      answers.has(id) ? Promise.resolve(answers.get(id)) : new Promise((r) => waiters.set(id, () => r(answers.get(id)))),
    answered: (id: number) => answers.has(id),
    kill: () => void child.kill()
  }
}

