import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "@toolgate/cli",
    include: ["test/**/*.test.ts"],
    // these tests start the real `toolgate` process (about 2 s each on a loaded two-core machine)
    testTimeout: 60_000
  }
})
