// Ajv built the way SchemaStore builds it for a 2020-12 schema: `ajvFactory` in SchemaStore's
// cli.js (github.com/SchemaStore/schemastore, cli.js, read at commit 04bd1248): Ajv2020 with
// {strict: true}, ajv-formats, @hyperupcall/ajv-formats-draft2019, ajv-keywords'
// uniqueItemProperties, and the editor keywords SchemaStore allows.
//
// Usage: node ajv.mjs < request.json, where request is
//   {"schemas": [<every schema, loaded into one instance>], "cases": [{"id", "schema", "doc"}]}
// Prints {"compiled": {$id: error-or-null}, "verdicts": {id: true|false|"error: ..."}}.
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import ajvKeywords from "ajv-keywords";
import { ajvFormatsDraft2019 } from "@hyperupcall/ajv-formats-draft2019";

const EDITOR_KEYWORDS = [
  "allowTrailingCommas", "defaultSnippets", "markdownDescription", "enumDescriptions",
  "markdownEnumDescriptions",
];

export function schemaStoreAjv() {
  const ajv = new Ajv2020.default({ strict: true });
  addFormats.default(ajv);
  ajvFormatsDraft2019(ajv);
  ajvKeywords.default(ajv, "uniqueItemProperties");
  for (const keyword of EDITOR_KEYWORDS) ajv.addKeyword(keyword);
  return ajv;
}

const request = JSON.parse(readFileSync(0, "utf-8"));
const ajv = schemaStoreAjv();
const compiled = {};
for (const schema of request.schemas) {
  try {
    ajv.addSchema(schema);
    compiled[schema.$id] = null;
  } catch (err) {
    compiled[schema.$id] = String(err.message || err);
  }
}
const validators = {};
for (const schema of request.schemas) {
  if (compiled[schema.$id] !== null) continue;
  try {
    validators[schema.$id] = ajv.getSchema(schema.$id);
  } catch (err) {
    compiled[schema.$id] = String(err.message || err);
  }
}
const verdicts = {};
for (const c of request.cases ?? []) {
  const validate = validators[c.schema];
  verdicts[c.id] = validate ? validate(c.doc) : `error: ${compiled[c.schema] ?? "not loaded"}`;
}
process.stdout.write(JSON.stringify({ compiled, verdicts }));
