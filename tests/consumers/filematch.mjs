// Which files VS Code's JSON service associates with which catalog entry (its fileMatch glob
// semantics, from vscode-json-languageservice itself). Schemas are never fetched: the request
// service answers with an empty schema.
// stdin: {"entries": [{"url", "fileMatch"}], "paths": ["/abs/path.json", ...]}
// stdout: {path: [url, ...]}
import { readFileSync } from "node:fs";
import { getLanguageService } from "vscode-json-languageservice";
import { TextDocument } from "vscode-languageserver-textdocument";

const request = JSON.parse(readFileSync(0, "utf-8"));
const service = getLanguageService({ schemaRequestService: async () => "{}" });
service.configure({
  validate: true,
  schemas: request.entries.map((e) => ({ uri: e.url, fileMatch: e.fileMatch })),
});
const out = {};
for (const path of request.paths) {
  const doc = TextDocument.create(`file://${path}`, "json", 1, "{}");
  const status = service.getLanguageStatus(doc, service.parseJSONDocument(doc));
  out[path] = status.schemas;
}
process.stdout.write(JSON.stringify(out));
