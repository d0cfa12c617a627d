import { project } from "../../vitest.shared.js"

export default project("@toolgate/cli", {
  // the tests that start the real `toolgate` bin build it first (tsc -b, a no-op when dist/ is current)
  globalSetup: ["test/buildOnce.ts"],
  testTimeout: 60_000
})
