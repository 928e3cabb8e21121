// tsserver.mjs is describe_image written on the official TypeScript SDK
// (@modelcontextprotocol/sdk 1.x), for the benchmark that compares the Go
// example with it (inline_bench_test.go): the tool takes the image as a
// data: URI in a plain string, as a server without mcpfile would, decodes
// the base64 by hand, checks the PNG signature (fewer checks than the Go
// server's) and answers the image's size, dimensions and SHA-256.
//
//   node tsserver.mjs              # stdio
//   node tsserver.mjs --http PORT  # streamable HTTP at http://127.0.0.1:PORT/mcp, one session
import { createHash, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function refuse(text) {
  return { isError: true, content: [{ type: 'text', text }] };
}

function describe({ image }) {
  const comma = image.indexOf(',');
  if (!image.startsWith('data:') || comma < 0) {
    return refuse("Argument 'image' is not a data: URI.");
  }
  const header = image.slice(5, comma);
  if (!header.endsWith(';base64')) {
    return refuse("Argument 'image' is not base64.");
  }
  const mediaType = header.slice(0, -';base64'.length).toLowerCase();
  const data = Buffer.from(image.slice(comma + 1), 'base64');
  if (mediaType !== 'image/png' || data.length < 24 || !data.subarray(0, 8).equals(PNG)) {
    return refuse("Argument 'image' is not a PNG.");
  }
  const d = {
    mediaType,
    format: 'png',
    width: data.readUInt32BE(16),
    height: data.readUInt32BE(20),
    size: data.length,
    sha256: createHash('sha256').update(data).digest('hex'),
  };
  return { content: [{ type: 'text', text: JSON.stringify(d) }], structuredContent: d };
}

const server = new McpServer({ name: 'describe_image', version: '0.1.0' });
server.registerTool(
  'describe_image',
  { description: 'Describe an image: its format, dimensions and SHA-256 digest.', inputSchema: { image: z.string() } },
  async (args) => describe(args),
);

const i = process.argv.indexOf('--http');
if (i < 0) {
  // The transport's default line limit is 10 MiB: raise it, as the Go
  // server's is raised to what its tool takes.
  await server.connect(new StdioServerTransport(process.stdin, process.stdout, { maxBufferSize: 64 << 20 }));
} else {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  createServer(async (req, res) => {
    if (new URL(req.url, 'http://localhost').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    if (req.method !== 'POST') {
      await transport.handleRequest(req, res);
      return;
    }
    // Read and parse the body here: the transport's own reading stops at 4 MB.
    const chunks = [];
    for await (const c of req) chunks.push(c);
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end('malformed JSON');
      return;
    }
    await transport.handleRequest(req, res, body);
  }).listen(Number(process.argv[i + 1]), '127.0.0.1');
}
