import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "@toolgate/runtime",
    include: ["test/**/*.test.ts"]
  }
})
