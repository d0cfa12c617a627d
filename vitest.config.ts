import { defineConfig } from "vitest/config"
import projects from "./vitest.workspace.js"

// vitest 3.2 deprecates a bare workspace file; loading its list into `test.projects` keeps it and drops the warning.
export default defineConfig({
  test: {
    projects
  }
})
