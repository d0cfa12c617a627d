#!/usr/bin/env node
// The command line, compiled and bundled into one file (`npm run build`; the repository's install runs it).
import "../dist/toolgate.mjs"
