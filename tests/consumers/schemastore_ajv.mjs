// Ajv built the way SchemaStore builds it for a 2020-12 schema: `ajvFactory` in SchemaStore's
// cli.js (github.com/SchemaStore/schemastore, cli.js, read at commit 04bd1248): Ajv2020 with
// {strict: true}, ajv-formats, @hyperupcall/ajv-formats-draft2019, ajv-keywords'
// uniqueItemProperties, and the editor keywords SchemaStore allows. `options` are added to
// Ajv's (e.g. `loadSchema`).
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import ajvKeywords from "ajv-keywords";
import { ajvFormatsDraft2019 } from "@hyperupcall/ajv-formats-draft2019";

const EDITOR_KEYWORDS = [
  "allowTrailingCommas", "defaultSnippets", "markdownDescription", "enumDescriptions",
  "markdownEnumDescriptions",
];

export function schemaStoreAjv(options = {}) {
  const ajv = new Ajv2020.default({ strict: true, ...options });
  addFormats.default(ajv);
  ajvFormatsDraft2019(ajv);
  ajvKeywords.default(ajv, "uniqueItemProperties");
  for (const keyword of EDITOR_KEYWORDS) ajv.addKeyword(keyword);
  return ajv;
}

// The verdict of each case `{id, file}`: true, false (with the first three messages) or
// "error: ..." when `validatorOf(case)` gives no validator (`missing(case)` says why).
export function judge(cases, validatorOf, missing) {
  const verdicts = {};
  const messages = {};
  for (const c of cases ?? []) {
    const validate = validatorOf(c);
    if (!validate) {
      verdicts[c.id] = `error: ${missing(c)}`;
      continue;
    }
    let doc;
    try {
      doc = JSON.parse(readFileSync(c.file, "utf-8"));
    } catch (err) {
      verdicts[c.id] = false;
      messages[c.id] = [`not JSON: ${err.message}`];
      continue;
    }
    verdicts[c.id] = validate(doc);
    if (!verdicts[c.id]) messages[c.id] = validate.errors.slice(0, 3).map((e) => `${e.instancePath} ${e.message}`);
  }
  return { verdicts, messages };
}
