// Bundles the compiled command line (dist/bin.js, from `tsc -b`) into dist/bundle/, whose toolgate.mjs the
// `toolgate` bin runs with plain node: loading one file instead of ~900 modules is most of a fast start-up,
// and what the code imports dynamically (undici, for the commands that talk to a relay) is split into
// chunks loaded only when used. Libraries are not bundled; only this entry point is.
import * as esbuild from "esbuild"
import { fileURLToPath } from "node:url"

const here = (path) => fileURLToPath(new URL(path, import.meta.url))

await esbuild.build({
  entryPoints: [here("../dist/bin.js")],
  entryNames: "toolgate",
  chunkNames: "chunk-[hash]",
  outExtension: { ".js": ".mjs" },
  outdir: here("../dist/bundle"),
  splitting: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  // CommonJS dependencies (ajv, undici) call `require` for node's built-ins
  banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
  logLevel: "warning"
})
