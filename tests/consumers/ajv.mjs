// Every published schema in one Ajv built as SchemaStore builds it (schemastore_ajv.mjs).
//
// stdin: {"schemas": [<every published schema, loaded into one instance>],
//         "compounds": {$id: path of its compound bundle}, "cases": [{"id", "schema", "file"}]}
// stdout: {"compiled": {$id: error-or-null}, "bundles": {$id: error-or-null},
//          "verdicts": {id: true|false|"error: ..."}, "messages": {id: [...]}}
import { readFileSync } from "node:fs";
import { judge, schemaStoreAjv } from "./schemastore_ajv.mjs";

const request = JSON.parse(readFileSync(0, "utf-8"));

// Every published schema in one instance (Ajv refuses one $id with two different contents).
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

// Each compound bundle alone, in a fresh instance: it must compile without any other file.
const bundles = {};
for (const [id, path] of Object.entries(request.compounds ?? {})) {
  try {
    schemaStoreAjv().compile(JSON.parse(readFileSync(path, "utf-8")));
    bundles[id] = null;
  } catch (err) {
    bundles[id] = String(err.message || err);
  }
}

const { verdicts, messages } = judge(
  request.cases,
  (c) => validators[c.schema],
  (c) => compiled[c.schema] ?? "not loaded",
);
process.stdout.write(JSON.stringify({ compiled, bundles, verdicts, messages }));
