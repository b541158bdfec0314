// Compile prepared JSON Schemas to TypeScript declarations with json-schema-to-typescript.
// Input (stdin): {"nodeModules": dir, "options": {...}, "jobs": [{"schema", "name", "banner", "out"}]}
// Driven by atif_spec.codegen; no network: prepared schemas carry no external $ref.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { createRequire } = require("node:module");

async function main() {
  const input = JSON.parse(fs.readFileSync(0, "utf8"));
  const load = createRequire(path.join(input.nodeModules, "..", "package.json"));
  const { compile } = load("json-schema-to-typescript");
  const version = load("json-schema-to-typescript/package.json").version;
  for (const job of input.jobs) {
    const text = await compile(job.schema, job.name, {
      ...input.options,
      bannerComment: job.banner.replace("{version}", version),
      cwd: path.dirname(job.out),
      $refOptions: { resolve: { external: false, http: false, file: false } },
    });
    fs.mkdirSync(path.dirname(job.out), { recursive: true });
    fs.writeFileSync(job.out, text);
  }
}

main().catch((err) => {
  process.stderr.write(String(err && err.stack ? err.stack : err) + "\n");
  process.exit(1);
});
