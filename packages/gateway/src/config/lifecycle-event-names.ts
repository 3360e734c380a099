// The names of the gateway's lifecycle events (observe/lifecycle.ts has their shapes), here with the config
// because `notify:` chooses among them and the config's schema lists them.

export const LIFECYCLE_EVENT_NAMES = [
  'accepted',
  'rejected',
  'duplicate',
  'ignored',
  'agent_started',
  'agent_finished',
  'delivered',
  'retry_scheduled',
  'dead_lettered',
  'completed',
  'budget_exceeded',
  'approval_requested',
  'approved',
  'denied',
  'conversation_continued',
  'mcp_webhook_delivery',
] as const;

export type LifecycleEventName = (typeof LIFECYCLE_EVENT_NAMES)[number];
