// What an upstream MCP Events server delivers: the source stores an occurrence's `data`, whose shape is the
// upstream's own payloadSchema of the subscribed type (github.com/modelcontextprotocol/ext-events).
import type { SourcePayloadSchema } from '@hookwise/core';
import { openObject } from '@hookwise/kit/source';

export const mcpEventsPayloadSchema: SourcePayloadSchema = {
  envelope: openObject({
    description: "The data of an upstream MCP Events server's occurrence, as its events/list payloadSchema describes it.",
    docs: 'https://github.com/modelcontextprotocol/ext-events',
    properties: {},
  }),
};
