// VS Code's JSON support (vscode-json-languageservice) as a consumer of the editor bundles.
// Schemas come through the service's schemaRequestService, which reads the packaged files and
// never the network: https://atif-spec.org/schemas/<path> is served from <bundles>/<path>.
// Schema-validation and schema-loading problems are errors (VS Code's default is a warning).
// stdin: {"bundles": dir, "schemas": [$id...], "cases": [{"id", "schema", "file"}]}
// stdout: {"compiled": {$id: error-or-null}, "verdicts": {id: true|false}}
import { readFileSync } from "node:fs";
import { getLanguageService } from "vscode-json-languageservice";
import { TextDocument } from "vscode-languageserver-textdocument";

const BASE = "https://atif-spec.org/schemas/";
const request = JSON.parse(readFileSync(0, "utf-8"));

function local(uri) {
  if (!uri.startsWith(BASE)) return null;
  return `${request.bundles}/${uri.slice(BASE.length)}`;
}

const service = getLanguageService({
  schemaRequestService: async (uri) => {
    const path = local(uri);
    if (path === null) throw new Error(`not served offline: ${uri}`);
    return readFileSync(path, "utf-8");
  },
});
const caseUri = (id) => `file:///cases/${id}.json`;
const probeUri = (n) => `file:///probes/${n}.json`;
const LOAD_PROBLEM = /unable to load|can ?not be resolved|problems loading|not served offline/i;
service.configure({
  validate: true,
  allowComments: false,
  schemas: request.schemas.map((id, n) => ({
    uri: id,
    fileMatch: [probeUri(n), ...request.cases.filter((c) => c.schema === id).map((c) => caseUri(c.id))],
  })),
});
const settings = { schemaValidation: "error", schemaRequest: "error", trailingCommas: "error" };

async function diagnostics(uri, text) {
  const doc = TextDocument.create(uri, "json", 1, text);
  return service.doValidation(doc, service.parseJSONDocument(doc), settings);
}

const compiled = {};
for (const [n, id] of request.schemas.entries()) {
  // A schema loads when an empty object checked against it raises no schema-loading problem.
  const diags = await diagnostics(probeUri(n), "{}");
  const broken = diags.filter((d) => LOAD_PROBLEM.test(d.message));
  compiled[id] = broken.length ? broken.map((d) => d.message).join("; ") : null;
}
const verdicts = {};
const messages = {};
for (const c of request.cases) {
  const diags = await diagnostics(caseUri(c.id), readFileSync(c.file, "utf-8"));
  const errors = diags.filter((d) => d.severity === 1);
  verdicts[c.id] = errors.length === 0;
  if (errors.length) messages[c.id] = errors.slice(0, 3).map((d) => d.message);
}
process.stdout.write(JSON.stringify({ compiled, verdicts, messages }));
