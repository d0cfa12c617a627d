import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "@toolgate/cli",
    include: ["test/**/*.test.ts"]
  }
})
