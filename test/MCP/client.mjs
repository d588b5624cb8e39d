// The official MCP TypeScript SDK drives `tirx serve` over stdio:
//   node client.mjs TIRX WORKSPACE
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [tirx, workspace] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: tirx, args: ["serve", "--workspace", workspace], stderr: "ignore" });
const client = new Client({ name: "tirx-sdk-test", version: "1.0.0" });
await client.connect(transport);
console.log("server: " + client.getServerVersion().name);

const tools = await client.listTools();
console.log("tools: " + tools.tools.map((t) => t.name).sort().join(", "));
const apply = tools.tools.find((t) => t.name === "apply");
console.log("apply schema lists actions: " +
  apply.inputSchema.properties.action.oneOf.map((s) => s.title).sort().join(", "));

const applied = await client.callTool({ name: "apply", arguments: {
  version: "v1", action: { transform: "tile_to_blocks", params: { tile_sizes: [1024] } } } });
console.log("applied: " + applied.structuredContent.version.id);

const ir = await client.callTool({ name: "read_ir", arguments: { version: "v2" } });
console.log("v2 has a block forall: " + ir.structuredContent.ir.includes("#gpu.block<x>"));

// A refusal is a tool result (isError) carrying the structured refusal.
const refused = await client.callTool({ name: "apply", arguments: {
  version: "v2", action: { transform: "vectorize", params: { width: 4 } } } });
console.log("rejected: isError=" + refused.isError + " " +
            refused.structuredContent.error.code +
            " hint=" + refused.structuredContent.error.hint);

await client.close();
