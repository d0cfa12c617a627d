import { execFileSync } from "node:child_process"
import { createRequire } from "node:module"
import { resolve } from "node:path"

/**
 * The CLI tests spawn the real bin, which runs the compiled and bundled `dist/toolgate.mjs`: bring it up
 * to date with the sources first (`tsc -b` is incremental, the bundle takes about a second). A type
 * error fails the run here, named.
 */
export default function setup() {
  const root = resolve(import.meta.dirname, "../../..")
  const tsc = createRequire(resolve(root, "package.json")).resolve("typescript/bin/tsc")
  execFileSync(process.execPath, [tsc, "-b", "tsconfig.build.json"], { cwd: root, stdio: "inherit" })
  execFileSync(process.execPath, [resolve(root, "apps/cli/scripts/bundle.mjs")], { cwd: root, stdio: "inherit" })
}
