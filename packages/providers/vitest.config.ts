import { defineProject } from "vitest/config"

export default defineProject({
  test: {
    name: "@toolgate/providers",
    include: ["test/**/*.test.ts"]
  }
})
