// The dashboard's MCP Events panel: the MCP clients and what they are granted, and the subscriptions in the store
// with their expiry and (a client's webhook) how its deliveries went since the gateway started.
import type { ListedMcpSubscription } from '@hookwise/gateway';
import { esc } from './html-escape';
import type { McpOverview } from './mcp-overview';

function clientRows(overview: McpOverview): string {
  if (!overview.clients.length) return '<tr class="empty"><td colspan="4">No clients in mcp.clients.</td></tr>';
  return overview.clients
    .map(
      (c) => `<tr data-mcp-client="${esc(c.name)}">
<td>${esc(c.name)}</td>
<td><code>${esc(c.tokenEnv)}</code> ${c.tokenSet ? '<span class="badge status-done">set</span>' : '<span class="badge status-dead">not set</span>'}</td>
<td>${esc(c.patterns.join(', '))}</td>
<td class="types">${c.types.length ? esc(c.types.join(', ')) : '<span class="muted">none among config.yaml\'s routes</span>'}</td>
</tr>`,
    )
    .join('\n');
}

function deliveryText(s: ListedMcpSubscription): string {
  const d = s.deliveries;
  if (!d) return '–';
  const parts = [`${d.delivered} delivered`, `${d.failed} failed`, ...(d.retried ? [`${d.retried} retried`] : [])];
  return `${esc(parts.join(', '))}${d.lastError ? ` <small class="error" title="the last failed attempt">${esc(d.lastError)}</small>` : ''}`;
}

function subscriptionRows(overview: McpOverview): string {
  if (!overview.subscriptions.length) return '<tr class="empty"><td colspan="7">No subscriptions.</td></tr>';
  return overview.subscriptions
    .map(
      (s) => `<tr data-mcp-subscription="${esc(s.id)}" data-kind="${esc(s.kind)}">
<td>${esc(s.kind)}</td>
<td>${esc(s.id)}</td>
<td>${esc(s.holder)}</td>
<td>${esc(s.name)}</td>
<td>${esc(s.url)}</td>
<td>${esc(s.expiresAt)}${s.expired ? ' <strong>expired</strong>' : ''}</td>
<td class="deliveries">${deliveryText(s)}</td>
</tr>`,
    )
    .join('\n');
}

/** The panel's content, which the page script refreshes (`/ui/fragments/mcp`). */
export function mcpEventsPanel(overview: McpOverview): string {
  return `<h2>MCP Events <small>(clients of <code>mcp.clients</code>, and subscriptions: a client's webhook, or a <code>source: mcp-events</code> route's to another server; deliveries since this gateway started)</small></h2>
<table id="mcp-clients"><thead><tr><th>client</th><th>token variable</th><th>events</th><th>granted event types</th></tr></thead>
<tbody>${clientRows(overview)}</tbody></table>
<table id="mcp-subscriptions"><thead><tr><th>kind</th><th>id</th><th>client / route</th><th>event type</th><th>callback / server</th><th>expires</th><th>deliveries</th></tr></thead>
<tbody>${subscriptionRows(overview)}</tbody></table>`;
}

/** The panel on the home page; nothing when MCP Events is not in use. */
export function mcpEventsSection(overview: McpOverview): string {
  return overview.inUse ? `<section id="mcp-events" class="mcp-events">\n${mcpEventsPanel(overview)}\n</section>` : '';
}
