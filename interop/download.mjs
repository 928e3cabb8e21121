// download.mjs fetches files a tool returned, the SEP-2631 way, with an
// official TypeScript SDK client, and prints what came back as one JSON object
// on stdout. Like client.mjs and upload.mjs it decides nothing: the Go tests
// write the plan and judge the answers (the "verified" flags are the script's
// own comparison, printed beside the numbers it compared).
//
//	node download.mjs plan.json
//
// plan.json:
//
//	{
//	  "sdk": "v1" | "v2",        // @modelcontextprotocol/sdk 1.x, or @modelcontextprotocol/client 2.x
//	  "negotiate": "legacy" | "auto" | "2026-07-28",   // v2 only: its versionNegotiation
//	  "url": "http://127.0.0.1:PORT/mcp",               // streamable HTTP
//	  "declare": false | true,   // declare {"files": {"download": true, "transports": ["https"]}}
//	  "raw": false | true,       // send tools/call with client.request and a permissive schema,
//	                             // not client.callTool (whose result schema knows no "file" block)
//	  "steps": [
//	    {"label": "...", "tool": "export_report", "arguments": {"title": "...", "size": 2097152},
//	     "range": "bytes=0-99"}  // optional: one more GET with this Range
//	  ]
//	}
//
// A step calls the tool, reads structuredContent.report (a FileValue), sends
// files/authorizeDownload for its uri as a custom request, GETs the
// descriptor's URL with fetch (and the descriptor's headers), and hashes what
// arrived.
//
// Output: {"ok", "sdk", "declared", "protocolVersion", "steps": [{label, call,
// report, authorize, download, range}]}: call is {contentTypes, content,
// isError, text} (embedded blobs replaced by {bytes, digest}) or {error};
// authorize is {result} (the URL's token replaced by its length) or {error};
// download is {status, contentType, contentLength, contentDisposition, bytes,
// digest, verified}; range is {status, contentRange, bytes, matches}.
import { createHash } from 'node:crypto';
import { connect, failure, finish } from './sdkclient.mjs';
import { readFileSync } from 'node:fs';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const sdk = plan.sdk ?? 'v1';
const deadline = setTimeout(() => {
  process.stderr.write('download.mjs: timed out after 60s\n');
  process.exit(2);
}, 60_000);

const out = { ok: false, sdk, declared: !!plan.declare, steps: [] };
const info = { name: 'mcpfile-interop-download', version: '0.0.0' };
// The SEP-2631 client capability, as the SEP writes it, or none.
const capabilities = plan.declare ? { files: { download: true, transports: ['https'] } } : {};

const { client, transport, anyResult } = await connect(plan, info, capabilities, out);

const sha256 = (bytes) => createHash('sha256').update(bytes).digest('base64url'); // no padding

// call calls a tool and returns its result as received, and the result as
// printed (content block types, embedded blobs summarized).
async function call(name, args) {
  let result;
  try {
    result = plan.raw
      ? await client.request({ method: 'tools/call', params: { name, arguments: args } }, anyResult)
      : await client.callTool({ name, arguments: args });
  } catch (e) {
    return [null, failure(e)];
  }
  const content = (result.content ?? []).map((b) => {
    if (b.type !== 'resource' || typeof b.resource?.blob !== 'string') return b;
    const bytes = Buffer.from(b.resource.blob, 'base64');
    const { blob, ...rest } = b.resource;
    return { ...b, resource: { ...rest, blob: { bytes: bytes.length, digest: sha256(bytes) } } };
  });
  const text = content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  return [result, { contentTypes: content.map((b) => b.type), content, isError: !!result.isError, text }];
}

async function authorize(uri) {
  try {
    return { result: await client.request({ method: 'files/authorizeDownload', params: { uri } }, anyResult) };
  } catch (e) {
    return failure(e);
  }
}

// shown is an authorize answer as printed: the token at the end of the
// download URL, a bearer capability, replaced by its length.
function shown(a) {
  const url = a.result?.download?.url;
  if (typeof url !== 'string') return a;
  const copy = structuredClone(a);
  const i = url.lastIndexOf('/');
  copy.result.download.url = `${url.slice(0, i + 1)}[${url.length - i - 1} characters]`;
  return copy;
}

async function get(d, range) {
  const headers = { ...(d.headers ?? {}) };
  if (range) headers.Range = range;
  const res = await fetch(d.url, { method: d.method ?? 'GET', headers });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { res, bytes };
}

try {
  await client.connect(transport);
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? out.protocolVersion ?? null;
  for (const step of plan.steps) {
    const rec = { label: step.label ?? step.tool };
    out.steps.push(rec);
    const [result, printed] = await call(step.tool ?? 'export_report', step.arguments ?? {});
    rec.call = printed;
    const report = result?.structuredContent?.report;
    if (!report) continue;
    rec.report = report;
    const a = await authorize(report.uri);
    rec.authorize = shown(a);
    const d = a.result?.download;
    if (!d) continue;
    const { res, bytes } = await get(d);
    const digest = sha256(bytes);
    rec.download = {
      status: res.status,
      contentType: res.headers.get('content-type'),
      contentLength: res.headers.get('content-length'),
      contentDisposition: res.headers.get('content-disposition'),
      bytes: bytes.length,
      digest,
      verified: bytes.length === report.size && report.digest?.algorithm === 'sha-256' && digest === report.digest?.value,
    };
    if (step.range) {
      const m = /^bytes=(\d+)-(\d+)$/.exec(step.range);
      const part = await get(d, step.range);
      rec.range = {
        status: part.res.status,
        contentRange: part.res.headers.get('content-range'),
        bytes: part.bytes.length,
        matches: !!m && part.bytes.equals(bytes.subarray(Number(m[1]), Number(m[2]) + 1)),
      };
    }
  }
  out.ok = true;
} catch (e) {
  out.error = String(e?.stack ?? e);
} finally {
  await finish(out, client, deadline);
}
