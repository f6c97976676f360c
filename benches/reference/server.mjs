// The TypeScript reference framework (@cyanheads/mcp-ts-core 0.10.17, the
// version the registry serves) serving the `lookup` tool of benches/calls.rs:
// the same input and output, and the same answer to every id the benchmarks
// send (they never reach the Rust body's two failures, which this one
// leaves out). benches/sessions_memory.py installs this
// directory with npm (Node 22 comes as the npm package `node`) and runs it
// with MCP_TRANSPORT_TYPE=http beside this crate's server and rmcp's.
import { createApp, tool, z } from '@cyanheads/mcp-ts-core';

const lookup = tool('lookup', {
  description: 'Look an item up.',
  input: z.object({
    id: z.string().describe("The item's id."),
    limit: z.number().int().min(0).optional().describe('How many to count at most.'),
  }),
  output: z.object({
    name: z.string().describe("The item's name."),
    count: z.number().int().describe('How many there are.'),
  }),
  async handler(input) {
    return { name: `item ${input.id}`, count: Math.min(input.limit ?? 10, 100) };
  },
  format: (r) => [{ type: 'text', text: `${r.name}: ${r.count}` }],
});

await createApp({ name: 'bench', version: '0', tools: [lookup] });
