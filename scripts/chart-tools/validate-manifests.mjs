// Validates Kubernetes manifests (multi-document YAML on stdin, e.g. `helm template` output)
// offline against the Kubernetes API schemas shipped in the kubernetes-models packages.
// Two checks per document: the package's schema validation (types, required fields, enums),
// and a strict walk that rejects fields the API does not define (a misspelt `readinesProbe`
// would otherwise pass silently, as the API server drops unknown fields).
// Exit status: 0 when every document is valid, 1 otherwise; one line per problem on stderr.
import { readFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { parseAllDocuments } from "yaml";

const require = createRequire(import.meta.url);
const PACKAGES = ["kubernetes-models", "@kubernetes-models/prometheus-operator"];

function packageDir(name) {
  return dirname(require.resolve(join(name, "package.json")));
}

/** The package and folder (named like apiVersion, e.g. "apps/v1", core "v1") that define a kind. */
function locate(apiVersion, kind) {
  const folder = apiVersion;
  for (const pkg of PACKAGES) {
    let dir;
    try {
      dir = packageDir(pkg);
    } catch {
      continue;
    }
    if (existsSync(join(dir, folder, `${kind}.d.ts`))) {
      return { pkg, dir, folder };
    }
  }
  return null;
}

// ---- strict field check, driven by the packages' TypeScript declarations ----------------

const declarations = new Map();

/** Parses the first `export interface` of a .d.ts file into {fields: Map(name -> type text)}. */
function declaration(file) {
  if (declarations.has(file)) {
    return declarations.get(file);
  }
  let parsed = null;
  if (existsSync(file)) {
    const text = readFileSync(file, "utf8").replace(/\/\*\*[\s\S]*?\*\//g, "");
    const imports = new Map();
    for (const m of text.matchAll(/import \{ (\w+) \} from "([^"]+)";/g)) {
      imports.set(m[1], m[2]);
    }
    const start = text.search(/export interface \w+(?: extends [\w, ]+)? \{/);
    if (start >= 0) {
      const body = interfaceBody(text, text.indexOf("{", start));
      parsed = { file, imports, fields: fieldsOf(body) };
    }
  }
  declarations.set(file, parsed);
  return parsed;
}

function interfaceBody(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    if (text[i] === "}" && --depth === 0) return text.slice(open + 1, i);
  }
  throw new Error("unbalanced braces in a declaration file");
}

/** Splits an interface body into top-level `"name"?: type;` members. */
function fieldsOf(body) {
  const fields = new Map();
  let depth = 0;
  let member = "";
  for (const ch of body) {
    if (ch === "{" || ch === "<" || ch === "(") depth++;
    if (ch === "}" || ch === ">" || ch === ")") depth--;
    if (ch === ";" && depth === 0) {
      const m = member.trim().match(/^"?([\w$.-]+)"?\??:\s*([\s\S]+)$/);
      if (m) fields.set(m[1], m[2].trim());
      member = "";
    } else {
      member += ch;
    }
  }
  return fields;
}

/** Resolves a type name used in `decl` to the declaration it refers to, or null (a leaf). */
function referenced(decl, typeName) {
  const from = decl.imports.get(typeName);
  if (!from) return null;
  let file;
  if (from.startsWith(".")) {
    file = join(dirname(decl.file), from.replace(/\.js$/, "") + ".d.ts");
  } else {
    const [scope, name, ...rest] = from.split("/");
    const pkg = scope.startsWith("@") ? `${scope}/${name}` : scope;
    const tail = scope.startsWith("@") ? rest : [name, ...rest];
    try {
      file = join(packageDir(pkg), ...tail) + ".d.ts";
    } catch {
      return null;
    }
  }
  return declaration(file);
}

/** Checks `value` against type text `type` declared in `decl`; pushes problems. */
function checkType(decl, type, value, path, problems) {
  if (value === null || value === undefined) return;
  let m;
  if ((m = type.match(/^Array<(\w+)>$/)) && Array.isArray(value)) {
    value.forEach((item, i) => checkType(decl, m[1], item, `${path}[${i}]`, problems));
  } else if ((m = type.match(/^\{\s*\[key: string\]: (\w+);\s*\}$/)) && isObject(value)) {
    for (const [k, v] of Object.entries(value)) checkType(decl, m[1], v, `${path}.${k}`, problems);
  } else if (/^\w+$/.test(type) && isObject(value)) {
    const target = referenced(decl, type);
    if (target) checkObject(target, value, path, problems);
  }
}

function checkObject(decl, value, path, problems) {
  // Declarations whose interface has no members are free-form (e.g. JSON, RawExtension).
  if (decl.fields.size === 0) return;
  for (const [key, v] of Object.entries(value)) {
    const type = decl.fields.get(key);
    const where = path ? `${path}.${key}` : key;
    if (type === undefined) {
      problems.push(`${where}: unknown field (not in the Kubernetes schema)`);
    } else {
      checkType(decl, type, v, where, problems);
    }
  }
}

function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// ---- main -----------------------------------------------------------------------------

const input = readFileSync(0, "utf8");
const documents = parseAllDocuments(input);
let failures = 0;
let checked = 0;
for (const doc of documents) {
  if (doc.errors.length > 0) {
    console.error(`YAML error: ${doc.errors.map((e) => e.message).join("; ")}`);
    failures++;
    continue;
  }
  const manifest = doc.toJS();
  if (manifest === null || manifest === undefined) continue;
  checked++;
  const name = `${manifest.kind ?? "?"}/${manifest.metadata?.name ?? "?"}`;
  if (typeof manifest.apiVersion !== "string" || typeof manifest.kind !== "string") {
    console.error(`${name}: apiVersion and kind are required`);
    failures++;
    continue;
  }
  const where = locate(manifest.apiVersion, manifest.kind);
  if (!where) {
    console.error(`${name}: no schema for ${manifest.apiVersion} ${manifest.kind}`);
    failures++;
    continue;
  }
  const module = await import(join(where.dir, where.folder, `${manifest.kind}.js`));
  const Model = module[manifest.kind];
  const problems = [];
  try {
    new Model(manifest).validate();
  } catch (e) {
    problems.push(e.message);
  }
  checkObject(declaration(join(where.dir, where.folder, `${manifest.kind}.d.ts`)), manifest, "", problems);
  for (const problem of problems) {
    console.error(`${name} (${manifest.apiVersion}): ${problem}`);
  }
  if (problems.length > 0) failures++;
}
if (checked === 0) {
  console.error("no Kubernetes documents on stdin");
  process.exit(1);
}
console.error(`${checked - failures} of ${checked} documents valid`);
process.exit(failures === 0 ? 0 : 1);
