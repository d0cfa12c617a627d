import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "@toolgate/relay",
    include: ["test/**/*.test.ts"]
  }
})
