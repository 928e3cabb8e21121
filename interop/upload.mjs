// upload.mjs sends files to an MCP server the SEP-2631 way, out of band, with
// an official TypeScript SDK client, and prints what came back as one JSON
// object on stdout. Like client.mjs it decides nothing: the Go tests write the
// plan and judge the answers.
//
//	node upload.mjs plan.json
//
// plan.json:
//
//	{
//	  "sdk": "v1" | "v2",        // @modelcontextprotocol/sdk 1.x, or @modelcontextprotocol/client 2.x
//	  "negotiate": "legacy" | "auto" | "2026-07-28",   // v2 only: its versionNegotiation
//	  "url": "http://127.0.0.1:PORT/mcp",               // streamable HTTP
//	  "steps": [
//	    {"op": "upload", "label": "...", "file": "/path/notes.txt", "name": "notes.txt",
//	     "mimeType": "text/plain", "tool": "analyze_document", "argument": "document"},
//	    {"op": "authorize", "label": "...", "params": {"mimeType": "text/plain", "size": 1073741825}},
//	    {"op": "callTool", "label": "...", "name": "...", "arguments": {...}}
//	  ]
//	}
//
// An upload step declares the file (name, mimeType, size and its sha-256
// digest) in files/authorizeUpload, sends its bytes as the returned
// descriptor says (a multipart/form-data POST, its fields first and then the
// file; or a PUT of the bytes), and calls the tool with the returned file URI
// in the argument. An authorize step sends files/authorizeUpload alone.
//
// Output: {"ok", "sdk", "protocolVersion", "steps": [{label, op, authorize,
// upload, call}]}: authorize is {result} (the upload token replaced by its
// length) or {error: {code, message, data}}; upload is {status, body}; call
// is {result} or {error}.
import { createHash } from 'node:crypto';
import { connect, failure, finish } from './sdkclient.mjs';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const sdk = plan.sdk ?? 'v1';
const deadline = setTimeout(() => {
  process.stderr.write('upload.mjs: timed out after 60s\n');
  process.exit(2);
}, 60_000);

const out = { ok: false, sdk, steps: [] };
const info = { name: 'mcpfile-interop-upload', version: '0.0.0' };
// The SEP-2631 client capability, as the SEP writes it (servers built with
// mcpfile's transfer package do not ask for it).
const capabilities = { files: { upload: true, transports: ['https'] } };

const { client, transport, anyResult } = await connect(plan, info, capabilities, out);

async function authorize(params) {
  try {
    return { result: await client.request({ method: 'files/authorizeUpload', params }, anyResult) };
  } catch (e) {
    return failure(e);
  }
}

// shown is an authorize answer as printed: the upload token, a bearer
// capability, replaced by its length.
function shown(a) {
  const fields = a.result?.upload?.multipart?.fields;
  if (!fields?.token) return a;
  const copy = structuredClone(a);
  copy.result.upload.multipart.fields.token = `[${fields.token.length} characters]`;
  return copy;
}

// send uploads bytes as the descriptor d says.
async function send(d, bytes, name, mimeType) {
  const headers = { ...(d.headers ?? {}) };
  let body;
  if (d.multipart) {
    // fetch writes the Content-Type with the boundary itself.
    for (const k of Object.keys(headers)) if (k.toLowerCase() === 'content-type') delete headers[k];
    body = new FormData();
    for (const [k, v] of Object.entries(d.multipart.fields ?? {})) body.append(k, v); // the token, before the file
    body.append(d.multipart.fileField, new Blob([bytes], { type: mimeType }), name);
  } else {
    body = bytes;
  }
  const res = await fetch(d.url, { method: d.method, headers, body });
  const text = await res.text();
  let parsed = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

async function call(name, args) {
  try {
    return { result: await client.callTool({ name, arguments: args }) };
  } catch (e) {
    return failure(e);
  }
}

try {
  await client.connect(transport);
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? out.protocolVersion ?? null;
  for (const step of plan.steps) {
    const rec = { label: step.label ?? step.op, op: step.op };
    out.steps.push(rec);
    if (step.op === 'authorize') {
      rec.authorize = shown(await authorize(step.params ?? {}));
    } else if (step.op === 'callTool') {
      rec.call = await call(step.name, step.arguments ?? {});
    } else if (step.op === 'upload') {
      const bytes = readFileSync(step.file);
      const digest = { algorithm: 'sha-256', value: createHash('sha256').update(bytes).digest('base64url') };
      const name = step.name ?? basename(step.file);
      const mimeType = step.mimeType ?? 'application/octet-stream';
      const a = await authorize({ name, mimeType, size: bytes.length, digest });
      rec.authorize = shown(a);
      if (!a.result) continue;
      rec.upload = await send(a.result.upload, bytes, name, mimeType);
      if (step.tool) rec.call = await call(step.tool, { ...(step.arguments ?? {}), [step.argument]: a.result.file.uri });
    } else {
      throw new Error(`unknown op ${step.op}`);
    }
  }
  out.ok = true;
} catch (e) {
  out.error = String(e?.stack ?? e);
} finally {
  await finish(out, client, deadline);
}
