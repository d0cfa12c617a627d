// Bundles the compiled command line (dist/bin.js, from `tsc -b`) into dist/toolgate.mjs (beside tsc's
// output, so `../examples` and the like resolve the same from both), which the `toolgate` bin runs with plain
// node: loading one file instead of ~900 modules is most of a fast start-up,
// and what the code imports dynamically (src/internal/lazy.ts: the library parts a command runs, undici,
// the relay's server, the SQL session store) is split into chunks loaded only when used. Libraries are not bundled; only this entry point is.
// better-sqlite3 stays outside the bundle: it finds its native addon (a .node file) relative to its own
// package, so it is loaded from node_modules (a dependency of the CLI for that reason).
import * as esbuild from "esbuild"
import { readdirSync, rmSync } from "node:fs"
import { fileURLToPath } from "node:url"

const here = (path) => fileURLToPath(new URL(path, import.meta.url))

// chunks are named by their content: drop the previous build's
for (const name of readdirSync(here("../dist"))) if (/^(toolgate|chunk-.*)\.mjs$/.test(name)) rmSync(here(`../dist/${name}`))

await esbuild.build({
  entryPoints: [here("../dist/bin.js")],
  entryNames: "toolgate",
  chunkNames: "chunk-[hash]",
  outExtension: { ".js": ".mjs" },
  outdir: here("../dist"),
  splitting: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // CommonJS dependencies (ajv, undici) call `require` for node's built-ins
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  external: ["better-sqlite3"],
  logLevel: "warning"
})
