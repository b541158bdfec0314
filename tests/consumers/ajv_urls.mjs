// Ajv loading schemas by URL through its own retrieval hook, `loadSchema` (compileAsync), over a
// built site: a URL under `origin` is the file at its path below `root`; any other URL, and any
// use of the network (fetch, http, https, net), is an error. Ajv as SchemaStore builds it.
//
// stdin: {"root": site folder, "origin": "https://host", "urls": [url, ...],
//         "cases": [{"id", "url", "file"}]}
// stdout: {"loads": {url: {"fetched": [url, ...]} | {"error": "..."}},
//          "verdicts": {id: true|false|"error: ..."}, "messages": {id: [...]}}
import { readFileSync } from "node:fs";
import { resolve, sep } from "node:path";
import { syncBuiltinESMExports } from "node:module";
import http from "node:http";
import https from "node:https";
import net from "node:net";
import { judge, schemaStoreAjv } from "./schemastore_ajv.mjs";

function refuse(what) {
  return () => {
    throw new Error(`network blocked: ${what}`);
  };
}
globalThis.fetch = refuse("fetch");
http.request = http.get = refuse("http");
https.request = https.get = refuse("https");
net.connect = net.createConnection = refuse("net");
syncBuiltinESMExports();

const request = JSON.parse(readFileSync(0, "utf-8"));
const root = resolve(request.root);

function served(url) {
  const parsed = new URL(url);
  if (parsed.origin !== request.origin || parsed.search) throw new Error(`not served by the site: ${url}`);
  const file = resolve(root, "." + decodeURIComponent(parsed.pathname));
  if (!file.startsWith(root + sep)) throw new Error(`outside the site: ${url}`);
  return JSON.parse(readFileSync(file, "utf-8"));
}

// One fresh Ajv per URL; the URL itself is fetched through loadSchema too.
async function load(url) {
  const fetched = [];
  const ajv = schemaStoreAjv({
    loadSchema: async (uri) => {
      fetched.push(uri);
      return served(uri);
    },
  });
  const validate = await ajv.compileAsync({ $ref: url });
  return { validate, fetched };
}

const loads = {};
const validators = {};
for (const url of request.urls) {
  try {
    const { validate, fetched } = await load(url);
    validators[url] = validate;
    loads[url] = { fetched };
  } catch (err) {
    loads[url] = { error: String(err.message || err) };
  }
}

const { verdicts, messages } = judge(
  request.cases,
  (c) => validators[c.url],
  (c) => loads[c.url]?.error ?? "not loaded",
);
process.stdout.write(JSON.stringify({ loads, verdicts, messages }));
