// Fails when the generated types (src/openapi.ts) leave what a client decodes untyped:
// `any` anywhere, or, in the event and stream payload schemas, an index signature
// (`[key: string]: unknown`: an open object), an empty object (`Record<string, never>`)
// or `unknown`. Elsewhere in components.schemas those are listed as warnings.
// (`X & (unknown & unknown)`, what openapi-typescript makes of if/then, is X: not reported.)
import { readFileSync } from "node:fs";

const file = process.argv[2] ?? "src/openapi.ts";
const source = readFileSync(file, "utf8");
// Comments blanked (line numbers kept): descriptions may say "any" or "unknown".
const lines = source
  .replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, " "))
  .replace(/"(?:[^"\\\n]|\\.)*"/g, (literal) => '"' + " ".repeat(literal.length - 2) + '"')
  .split("\n");

const PAYLOAD = /^(Event|GameStream|AccountStream|AccountSnapshot|AccountGame)/;
const LOOSE = [/\[key: string\]: unknown/, /Record<string, (never|unknown)>/, /\bunknown\b/];
const errors = [];
const warnings = [];

let schema = null; // the components.schemas entry being read
let inSchemas = false;
lines.forEach((line, index) => {
  const where = `${file}:${index + 1}`;
  if (/\bany\b/.test(line)) errors.push(`${where}: any: ${line.trim()}`);
  if (/^ {4}schemas: \{/.test(line)) inSchemas = true;
  else if (inSchemas && /^ {4}\};?$/.test(line)) inSchemas = false;
  if (!inSchemas) return;
  const start = /^ {8}([A-Za-z0-9_]+): /.exec(line);
  if (start) schema = start[1];
  const loose = line.replace(/ & \(unknown(?: & unknown)*\)/g, "");
  if (schema === null || !LOOSE.some((pattern) => pattern.test(loose))) return;
  const report = `${where}: ${schema}: ${source.split("\n")[index].trim()}`;
  (PAYLOAD.test(schema) ? errors : warnings).push(report);
});

for (const warning of warnings) console.log(`warning ${warning}`);
for (const error of errors) console.log(`error   ${error}`);
if (errors.length > 0) {
  console.log(`lint-generated: ${errors.length} problem(s): event/stream payloads must be closed and typed, and nothing any`);
  process.exit(1);
}
console.log(`lint-generated: ok (${warnings.length} warning(s))`);
