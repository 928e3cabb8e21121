// sdkclient.mjs is what upload.mjs, download.mjs and archive.mjs share: an official
// TypeScript SDK client over streamable HTTP that can send the SEP-2631
// requests no SDK has a schema for, and the end of a run.

// connect returns a client of the SDK the plan names (v1:
// @modelcontextprotocol/sdk 1.x, v2: @modelcontextprotocol/client 2.x, with
// the plan's version negotiation), not yet connected, its transport, which
// records the negotiated version in out.protocolVersion, and anyResult, the
// schema that lets client.request take any result object: 1.x takes a zod
// schema (its permissive ResultSchema keeps every member), 2.x a Standard
// Schema.
export async function connect(plan, info, capabilities, out) {
  const sdk = plan.sdk ?? 'v1';
  let client, transport, anyResult;
  if (sdk === 'v1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const { ResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
    client = new Client(info, { capabilities });
    transport = new StreamableHTTPClientTransport(new URL(plan.url));
    anyResult = ResultSchema;
  } else if (sdk === 'v2') {
    const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
    const n = plan.negotiate ?? 'auto';
    const mode = n === 'legacy' || n === 'auto' ? n : { pin: n };
    client = new Client(info, { capabilities, versionNegotiation: { mode } });
    transport = new StreamableHTTPClientTransport(new URL(plan.url));
    anyResult = {
      '~standard': {
        version: 1,
        vendor: 'mcpfile-interop',
        validate: (value) =>
          value !== null && typeof value === 'object' ? { value } : { issues: [{ message: 'result is not an object' }] },
      },
    };
  } else {
    throw new Error(`unknown sdk ${sdk}`);
  }
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (v) => {
    out.protocolVersion = v;
    setVersion?.(v);
  };
  return { client, transport, anyResult };
}

// failure is a JSON-RPC error as the output shows it.
export function failure(e) {
  return { error: { message: String(e?.message ?? e), code: e?.code ?? null, data: e?.data ?? null } };
}

// finish closes the client, prints out as one JSON line and exits: 0 when
// out.ok.
export async function finish(out, client, deadline) {
  try {
    await client?.close();
  } catch {}
  clearTimeout(deadline);
  process.stdout.write(JSON.stringify(out) + '\n');
  process.exit(out.ok ? 0 : 1);
}
