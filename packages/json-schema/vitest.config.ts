import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "@toolgate/json-schema",
    include: ["test/**/*.test.ts"]
  }
})
