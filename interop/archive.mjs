// archive.mjs calls a tool that asks the person for a file through an upload
// page (a URL-mode elicitation, runtime.ElicitUpload), with an official
// TypeScript SDK client that plays the person's browser, and prints what came
// back as one JSON object on stdout. Like client.mjs it decides nothing: the
// Go tests write the plan and judge the answers.
//
//	node archive.mjs plan.json
//
// plan.json:
//
//	{
//	  "sdk": "v1" | "v2",        // @modelcontextprotocol/sdk 1.x, or @modelcontextprotocol/client 2.x
//	  "negotiate": "legacy" | "auto" | "2026-07-28",   // v2 only: its versionNegotiation
//	  "url": "http://127.0.0.1:PORT/mcp",               // streamable HTTP
//	  "declareUrl": true | false, // declare {"elicitation": {"url": {}}}, and answer URL-mode elicitations
//	  "action": "accept" | "decline" | "cancel",       // the answer to each URL-mode elicitation
//	  "tool": "import_archive",
//	  "file": "/path/archive.zip", "name": "archive.zip", "mimeType": "application/zip",
//	  "completeWaitMs": 10000,    // how long to wait for notifications/elicitation/complete after a -32042
//	  "sendBack": true | false    // after a link result: call again with what its text says to send back
//	}
//
// With declareUrl, the client registers an elicitation handler: for mode
// "url" it starts the upload through the page (below) and answers the action
// at once, as a client does that opens the page in a browser and lets the
// person go on there; the SDK sends the answer (to elicitation/create on
// 2025-11-25, or in the retry of the call on 2026-07-28, as its
// multi-round-trip driver does with every inputRequests entry). The tool call
// returns once the server has the file.
//
// Without it, the call answers with a link result (a text with the page's
// link and a resource_link to it): the script plays the model and the
// person, uploads through the resource_link's page, and calls the tool
// again, with no arguments, or, with sendBack, with the one JSON object of
// the form {"<argument>": "mcp-file:…"} the text tells the model to send.
// A call that fails with -32042 (URL elicitation required) instead: the
// script uploads through the error's page, waits for
// notifications/elicitation/complete with its elicitationId (at most
// completeWaitMs), and calls the tool again, as the error asks.
//
// The upload plays the browser: GET the page, read the form's action and its
// hidden token, POST a FormData (the token, then the file as a Blob) to the
// action from the page's origin, with Accept: application/json as the page's
// own script sends it (the answer is {"size": n}).
//
// Output: {"ok", "sdk", "protocolVersion", "elicitations": [{via, raw,
// parsed}], "links": [{uri, name, mimeType, textHasUri, sendBack}],
// "uploads": [{page, form, status, body}], "completions": [id],
// "calls": [{args, result} | {args, error: {code, message, data, class}}]},
// where sendBack lists the argument names the text says to send, class
// is the thrown error's class name; raw is the elicitation as it came off the
// wire (via: "elicitation/create", "inputRequests" or "error" for -32042),
// parsed what the SDK handed the handler; page URLs, whose last segment is a
// bearer token, are shown with that segment replaced by its length, and a
// link result's text is not printed (it holds the page's URL and a file
// URI, both bearer tokens).
import { readFileSync } from 'node:fs';
import { connect, failure, finish } from './sdkclient.mjs';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const sdk = plan.sdk ?? 'v1';
const deadline = setTimeout(() => {
  process.stderr.write('archive.mjs: timed out after 60s\n');
  process.exit(2);
}, 60_000);

const out = { ok: false, sdk, elicitations: [], links: [], uploads: [], completions: [], calls: [] };
const info = { name: 'mcpfile-interop-archive', version: '0.0.0' };
// URL-mode elicitation, as both SDK generations spell it (an empty object
// under elicitation means form mode only, for backwards compatibility).
const capabilities = plan.declareUrl ? { elicitation: { url: {} } } : {};
const bytes = readFileSync(plan.file);
const tool = plan.tool ?? 'import_archive';

const { client, transport } = await connect(plan, info, capabilities, out);

// elided is a page URL as printed: its token replaced by its length.
function elided(url) {
  if (typeof url !== 'string') return url;
  const i = url.lastIndexOf('/');
  return `${url.slice(0, i + 1)}[${url.length - i - 1} characters]`;
}

function shownParams(p) {
  if (!p || typeof p !== 'object') return p;
  return { ...p, url: elided(p.url) };
}

// unescape decodes the character references html/template writes in
// attribute values.
function unescape(s) {
  const named = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (m, ref) => {
    if (ref[0] !== '#') return named[ref.toLowerCase()] ?? m;
    return String.fromCodePoint(ref[1].toLowerCase() === 'x' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10));
  });
}

// browse uploads the file through the page at url as a browser would.
async function browse(url) {
  const rec = {};
  try {
    const page = await fetch(url);
    const html = await page.text();
    rec.page = { status: page.status, contentType: page.headers.get('content-type') };
    const action = /<form id="upload" method="post" action="([^"]*)"/.exec(html)?.[1];
    const token = /<input type="hidden" name="token" value="([^"]*)">/.exec(html)?.[1];
    if (!action || !token) throw new Error(`no form with an action and a hidden token in the page (${page.status})`);
    const target = new URL(unescape(action), url);
    rec.form = { action: target.pathname, tokenLength: unescape(token).length };
    const body = new FormData();
    body.append('token', unescape(token)); // before the file, as the form has it
    body.append('file', new Blob([bytes], { type: plan.mimeType ?? 'application/octet-stream' }), plan.name ?? 'file');
    const res = await fetch(target, {
      method: 'POST',
      headers: { Accept: 'application/json', Origin: new URL(url).origin },
      body,
    });
    const text = await res.text();
    rec.status = res.status;
    try {
      rec.body = JSON.parse(text);
    } catch {
      rec.body = text.slice(0, 2000);
    }
  } catch (e) {
    rec.error = String(e?.stack ?? e);
  }
  out.uploads.push(rec);
  return rec;
}

// Elicitations as they came off the wire, before the SDK's schemas read them.
const rawElicit = [];
function recordRaw(msg) {
  if (msg?.method === 'elicitation/create') rawElicit.push({ via: 'elicitation/create', params: msg.params });
  const reqs = msg?.result?.inputRequests;
  if (reqs && typeof reqs === 'object') {
    for (const entry of Object.values(reqs)) {
      if (entry?.method === 'elicitation/create') rawElicit.push({ via: 'inputRequests', params: entry.params });
    }
  }
}

const pending = []; // uploads started by the elicitation handler
async function answerElicitation(req) {
  const { via = null, params: raw = null } = rawElicit.shift() ?? {};
  const parsed = req.params ?? {};
  out.elicitations.push({ via, raw: shownParams(raw), parsed: shownParams(parsed) });
  if (parsed.mode !== 'url') return { action: 'decline' };
  const action = plan.action ?? 'accept';
  if (action === 'accept') pending.push(browse(parsed.url));
  return { action };
}

// Completions, and waiters for one elicitationId.
const waiters = new Map();
function completed(n) {
  const id = n.params?.elicitationId;
  out.completions.push(id ?? null);
  waiters.get(id)?.();
}
function waitComplete(id, ms) {
  if (out.completions.includes(id)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    waiters.set(id, () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

if (sdk === 'v1') {
  const { ElicitRequestSchema, ElicitationCompleteNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js');
  if (plan.declareUrl) client.setRequestHandler(ElicitRequestSchema, answerElicitation);
  client.setNotificationHandler(ElicitationCompleteNotificationSchema, completed);
} else {
  if (plan.declareUrl) client.setRequestHandler('elicitation/create', answerElicitation);
  client.setNotificationHandler('notifications/elicitation/complete', completed);
}

// shownResult is a tool result as printed: a link result's text and
// resource_link are summed up in out.links instead.
function shownResult(result) {
  const link = result?.content?.find((c) => c?.type === 'resource_link');
  if (!link) return result;
  const text = result.content.find((c) => c?.type === 'text')?.text ?? '';
  const sendBack = /\{"[^"]+":"mcp-file:[^"]*"\}/.exec(text)?.[0];
  out.links.push({
    uri: elided(link.uri), name: link.name, mimeType: link.mimeType, textHasUri: text.includes(link.uri),
    sendBack: sendBack ? Object.keys(JSON.parse(sendBack)) : [],
    says: ['any type', 'up to 2 GiB', `call ${tool} again`].filter((w) => text.includes(w)),
  });
  return { ...result, content: [{ type: 'text', text: '[link result]' }] };
}

async function call(args = {}) {
  const shownArgs = Object.keys(args);
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    out.calls.push({ args: shownArgs, result: shownResult(result) });
    return { result };
  } catch (e) {
    const f = failure(e);
    f.args = shownArgs;
    f.error.class = e?.constructor?.name ?? null;
    if (f.error.data?.elicitations) {
      f.error.data = { ...f.error.data, elicitations: f.error.data.elicitations.map(shownParams) };
    }
    out.calls.push(f);
    return { error: e };
  }
}

try {
  await client.connect(transport);
  const onmessage = transport.onmessage;
  transport.onmessage = (msg, extra) => {
    recordRaw(msg);
    return onmessage(msg, extra);
  };
  out.protocolVersion = client.getNegotiatedProtocolVersion?.() ?? out.protocolVersion ?? null;
  const first = await call();
  const elicitations = first.error?.code === -32042 ? (first.error.elicitations ?? first.error.data?.elicitations ?? []) : [];
  if (elicitations.length > 0) {
    // The -32042 flow: the page from the error, then the retry.
    const e = elicitations[0];
    out.elicitations.push({ via: 'error', raw: shownParams(e), parsed: null });
    await browse(e.url);
    out.completedBeforeRetry = await waitComplete(e.elicitationId, plan.completeWaitMs ?? 10_000);
    await call();
  }
  const link = first.result?.content?.find((c) => c?.type === 'resource_link');
  if (link) {
    // The link flow: the model gives the person the link, the person
    // uploads, the model calls again as the text says.
    await browse(link.uri);
    const text = first.result.content.find((c) => c?.type === 'text')?.text ?? '';
    const sendBack = /\{"[^"]+":"mcp-file:[^"]*"\}/.exec(text)?.[0];
    await call(plan.sendBack && sendBack ? JSON.parse(sendBack) : {});
  }
  await Promise.all(pending);
  out.ok = true;
} catch (e) {
  out.error = String(e?.stack ?? e);
} finally {
  await finish(out, client, deadline);
}
