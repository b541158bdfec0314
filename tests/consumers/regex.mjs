// ECMA-262 verdicts for the pattern nodes of spec/ (bench/check_patterns.py).
// A pattern is compiled as Ajv compiles it (`new RegExp(pattern, "u")`, Ajv's default
// unicodeRegExp) and tested with `.test`, as JSON Schema's `pattern` means.
// stdin: [{"pattern", "guard" (or null), "inputs": [[prefix, unit, count, suffix], ...]}]
// stdout: [{"verdicts": [bool...], "max_seconds", "total_seconds"}]
import { readFileSync } from "node:fs";

const nodes = JSON.parse(readFileSync(0, "utf-8"));
const out = nodes.map(({ pattern, guard, inputs }) => {
  const re = new RegExp(pattern, "u");
  const not = guard === null ? null : new RegExp(guard, "u");
  let max = 0;
  let total = 0;
  const verdicts = inputs.map(([prefix, unit, count, suffix]) => {
    const text = prefix + unit.repeat(count) + suffix;
    const start = process.hrtime.bigint();
    const ok = re.test(text) && (not === null || !not.test(text));
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    max = Math.max(max, seconds);
    total += seconds;
    return ok;
  });
  return { verdicts, max_seconds: max, total_seconds: total };
});
process.stdout.write(JSON.stringify(out));
