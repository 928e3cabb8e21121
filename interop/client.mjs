// client.mjs drives an MCP server with an official TypeScript SDK client and
// prints what came back as one JSON object on stdout. It decides nothing: the
// Go tests in this folder write the plan and judge the answers.
//
//	node client.mjs plan.json
//
// plan.json:
//
//	{
//	  "sdk": "v1" | "v2",        // @modelcontextprotocol/sdk 1.x, or @modelcontextprotocol/client 2.x
//	  "negotiate": "legacy" | "auto" | "2026-07-28",   // v2 only: its versionNegotiation
//	  "transport": "stdio" | "http",
//	  "command": "/path/to/server", "args": [],        // stdio
//	  "url": "http://127.0.0.1:PORT/",                  // http
//	  "elicit": [{"action": "accept", "file": "data:..."}, {"action": "decline"}, ...],
//	  "steps": [{"op": "listTools"},
//	            {"op": "callTool", "label": "png", "name": "...", "arguments": {...}}]
//	}
//
// Output: {"ok", "sdk", "server", "protocolVersion", "steps": [{label, op,
// result | error}], "elicitations": [{via, raw, parsed}]}, where raw is the
// elicitation's params as they came off the wire, via says how: a
// server-initiated "elicitation/create" request, or an entry of a 2026-07-28
// tool result's "inputRequests"; parsed is what the SDK handed to the
// elicitation handler.
import { readFileSync } from 'node:fs';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const sdk = plan.sdk ?? 'v1';
const deadline = setTimeout(() => {
  process.stderr.write('client.mjs: timed out after 60s\n');
  process.exit(2);
}, 60_000);

const out = { ok: false, sdk, steps: [], elicitations: [] };
const rawElicit = []; // elicitation params as sent, in arrival order

// Elicitation answers are taken in order. An answer {"action": "accept",
// "file": URI} puts URI in the form's file field (the property carrying
// x-mcp-file in the schema as sent) and fills other required string fields
// with "interop"; any other answer is returned as it is.
const answers = [...(plan.elicit ?? [])];
async function answerElicitation(req) {
  const { via = null, params: raw = null } = rawElicit.shift() ?? {};
  out.elicitations.push({ via, raw, parsed: req.params });
  const answer = answers.shift() ?? { action: 'cancel' };
  if (answer.file === undefined) return answer;
  const schema = raw?.requestedSchema ?? req.params.requestedSchema;
  const content = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (prop['x-mcp-file'] !== undefined) content[name] = answer.file;
    else if ((schema.required ?? []).includes(name) && prop.type === 'string') content[name] = 'interop';
  }
  return { action: answer.action, content };
}

// Record elicitations as they came off the wire, before the SDK's schemas
// strip what they do not know (both generations drop x-mcp-file).
function recordRaw(msg) {
  if (msg?.method === 'elicitation/create') rawElicit.push({ via: 'elicitation/create', params: msg.params });
  const reqs = msg?.result?.inputRequests;
  if (reqs && typeof reqs === 'object') {
    for (const entry of Object.values(reqs)) {
      if (entry?.method === 'elicitation/create') rawElicit.push({ via: 'inputRequests', params: entry.params });
    }
  }
}

const info = { name: 'mcpfile-interop', version: '0.0.0' };
const capabilities = { elicitation: { form: {} } };
let client, transport;
if (sdk === 'v1') {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
  client = new Client(info, { capabilities });
  client.setRequestHandler(ElicitRequestSchema, answerElicitation);
  transport =
    plan.transport === 'stdio'
      ? new StdioClientTransport({ command: plan.command, args: plan.args ?? [], stderr: 'inherit' })
      : new StreamableHTTPClientTransport(new URL(plan.url));
} else if (sdk === 'v2') {
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const { StdioClientTransport } = await import('@modelcontextprotocol/client/stdio');
  const n = plan.negotiate ?? 'auto';
  const mode = n === 'legacy' || n === 'auto' ? n : { pin: n };
  client = new Client(info, { capabilities, versionNegotiation: { mode } });
  client.setRequestHandler('elicitation/create', answerElicitation);
  transport =
    plan.transport === 'stdio'
      ? new StdioClientTransport({ command: plan.command, args: plan.args ?? [], stderr: 'inherit' })
      : new StreamableHTTPClientTransport(new URL(plan.url));
} else {
  throw new Error(`unknown sdk ${sdk}`);
}

// v1 tells the transport the negotiated version through this hook.
const setVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (v) => {
  out.protocolVersion = v;
  setVersion?.(v);
};

try {
  await client.connect(transport);
  const onmessage = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    recordRaw(msg);
    return onmessage(msg, extra);
  };
  out.server = client.getServerVersion();
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? out.protocolVersion ?? null;
  for (const step of plan.steps) {
    const rec = { label: step.label ?? step.op, op: step.op };
    try {
      if (step.op === 'listTools') {
        rec.result = await client.listTools();
      } else if (step.op === 'callTool') {
        rec.result = await client.callTool({ name: step.name, arguments: step.arguments ?? {} });
      } else {
        throw new Error(`unknown op ${step.op}`);
      }
    } catch (e) {
      rec.error = { message: String(e?.message ?? e), code: e?.code ?? null };
    }
    out.steps.push(rec);
  }
  out.ok = true;
} catch (e) {
  out.error = String(e?.stack ?? e);
} finally {
  try {
    await client.close();
  } catch {}
  clearTimeout(deadline);
}
process.stdout.write(JSON.stringify(out) + '\n');
process.exit(out.ok ? 0 : 1);
