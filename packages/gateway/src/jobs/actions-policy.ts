// What a route's `actions:` block (config/actions-schema.ts) offers the agent and allows: one MCP tool per
// action the route names, with the JSON Schema of its arguments, and the check of one call against the route's
// limits (allowed labels, review verdicts and destinations, calls per run). A refusal says why, in words the
// agent can act on; the gateway never performs a refused call.
import type { ActionName, ActionsConfig } from '../config/actions-schema';

/** One tool as MCP's tools/list describes it. */
export interface ActionTool {
  name: ActionName;
  description: string;
  inputSchema: Record<string, unknown>;
}

/** A call the policy accepted: the action and its arguments, normalised (what the gateway will perform). */
export interface AcceptedCall {
  action: ActionName;
  input: Record<string, unknown>;
}

export type PolicyVerdict = { ok: true; call: AcceptedCall } | { ok: false; reason: string };

const ORDER: ActionName[] = ['github.comment', 'github.add_labels', 'github.review', 'gitlab.note', 'message', 'subscribe'];

const text = (description: string) => ({ type: 'string', minLength: 1, description });

/** The tools a route's actions offer, in a fixed order (only those the route names). */
export function actionTools(actions: ActionsConfig | undefined): ActionTool[] {
  if (!actions) return [];
  const tools: ActionTool[] = [];
  for (const name of ORDER) {
    const policy = actions[name];
    if (!policy) continue;
    const limit = policy.max ? ` At most ${policy.max} call(s) per run.` : '';
    tools.push({ name, ...describe(name, actions), description: describe(name, actions).description + limit });
  }
  return tools;
}

function describe(name: ActionName, actions: ActionsConfig): Omit<ActionTool, 'name'> {
  switch (name) {
    case 'github.comment':
      return {
        description: 'Post a comment on the GitHub issue or pull request this event is about.',
        inputSchema: { type: 'object', additionalProperties: false, required: ['body'], properties: { body: text('The comment, in Markdown.') } },
      };
    case 'github.add_labels': {
      const allow = actions['github.add_labels']?.allow;
      const items = allow?.length ? { type: 'string', enum: allow } : { type: 'string', minLength: 1 };
      return {
        description: `Add labels to the GitHub issue or pull request this event is about.${allow?.length ? ` Allowed labels: ${allow.join(', ')}.` : ''}`,
        inputSchema: { type: 'object', additionalProperties: false, required: ['labels'], properties: { labels: { type: 'array', minItems: 1, items } } },
      };
    }
    case 'github.review': {
      const verdicts = reviewVerdicts(actions);
      return {
        description: `Review the GitHub pull request this event is about, with comments on lines of its diff. Verdicts allowed: ${verdicts.join(', ')}.`,
        inputSchema: {
          type: 'object',
          additionalProperties: false,
          required: ['body'],
          properties: {
            body: text("The review's summary, in Markdown."),
            event: { type: 'string', enum: verdicts, description: 'The verdict (default COMMENT).' },
            comments: {
              type: 'array',
              items: {
                type: 'object',
                additionalProperties: false,
                required: ['path', 'line', 'body'],
                properties: {
                  path: text('The file, relative to the repository root.'),
                  line: { type: 'integer', minimum: 1, description: 'The line of the diff the comment applies to (in the new file unless side is LEFT).' },
                  side: { type: 'string', enum: ['LEFT', 'RIGHT'] },
                  body: text('The comment.'),
                },
              },
            },
          },
        },
      };
    }
    case 'gitlab.note':
      return {
        description: 'Post a note on the GitLab merge request or issue this event is about.',
        inputSchema: { type: 'object', additionalProperties: false, required: ['body'], properties: { body: text('The note, in Markdown.') } },
      };
    case 'message': {
      const to = actions.message?.to ?? [];
      return {
        description: `Send a message to one of these destinations: ${to.join(', ')}.`,
        inputSchema: {
          type: 'object',
          additionalProperties: false,
          required: ['to', 'text'],
          properties: { to: { type: 'string', enum: to }, text: text('The message.') },
        },
      };
    }
    case 'subscribe':
      return {
        description:
          'Create (or change) a webhook subscription: a new route whose events run an agent with this prompt. The gateway generates its secret and answers with its URL.',
        inputSchema: {
          type: 'object',
          required: ['name'],
          properties: {
            name: { type: 'string', pattern: '^[A-Za-z0-9_-]+$', description: 'The route name (its URL is /webhooks/<name>).' },
            description: { type: 'string' },
            events: { type: 'array', items: { type: 'string' } },
            prompt: { type: 'string' },
            skills: { type: 'array', items: { type: 'string' } },
            deliver: {},
            deliver_extra: { type: 'object' },
            filter: {},
          },
        },
      };
  }
}

function reviewVerdicts(actions: ActionsConfig): string[] {
  return actions['github.review']?.events?.length ? actions['github.review'].events : ['COMMENT'];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v.trim().length > 0;

/**
 * Checks one call against the route's actions. `used` is how many calls of that action this run already made
 * (accepted ones only). The reasons name what was asked and what is allowed, so the agent can correct itself.
 */
export function checkCall(actions: ActionsConfig | undefined, name: string, args: unknown, used: number): PolicyVerdict {
  const offered = actionTools(actions).map((t) => t.name);
  if (!actions || !(offered as string[]).includes(name)) {
    return { ok: false, reason: `'${name}' is not an action this route allows; allowed: ${offered.length ? offered.join(', ') : 'none'}` };
  }
  const action = name as ActionName;
  const max = actions[action]?.max;
  if (max !== undefined && used >= max) return { ok: false, reason: `'${name}' may be called at most ${max} time(s) per run, and this run has used them` };
  const input = isObject(args) ? args : {};
  switch (action) {
    case 'github.comment':
      if (!nonEmpty(input.body)) return { ok: false, reason: 'github.comment needs a non-empty body' };
      return { ok: true, call: { action, input: { body: input.body } } };
    case 'github.add_labels': {
      const labels = input.labels;
      if (!Array.isArray(labels) || !labels.length || !labels.every(nonEmpty))
        return { ok: false, reason: 'github.add_labels needs labels: a non-empty list of label names' };
      const allow = actions['github.add_labels']?.allow;
      const refused = allow?.length ? labels.filter((label) => !allow.includes(label)) : [];
      if (refused.length) return { ok: false, reason: `label(s) not allowed on this route: ${refused.join(', ')}; allowed: ${allow!.join(', ')}` };
      return { ok: true, call: { action, input: { labels: [...new Set(labels)] } } };
    }
    case 'github.review': {
      if (!nonEmpty(input.body)) return { ok: false, reason: 'github.review needs a non-empty body' };
      const verdicts = reviewVerdicts(actions);
      const event = input.event ?? 'COMMENT';
      if (typeof event !== 'string' || !verdicts.includes(event))
        return { ok: false, reason: `review verdict '${String(event)}' is not allowed on this route; allowed: ${verdicts.join(', ')}` };
      const comments = input.comments ?? [];
      if (!Array.isArray(comments)) return { ok: false, reason: 'github.review comments must be a list of {path, line, body}' };
      for (const [i, c] of comments.entries()) {
        if (!isObject(c) || !nonEmpty(c.path) || !Number.isInteger(c.line) || (c.line as number) < 1 || !nonEmpty(c.body))
          return { ok: false, reason: `github.review comment ${i + 1} needs path (a file), line (a positive whole number) and body` };
      }
      return { ok: true, call: { action, input: { body: input.body, event, comments } } };
    }
    case 'gitlab.note':
      if (!nonEmpty(input.body)) return { ok: false, reason: 'gitlab.note needs a non-empty body' };
      return { ok: true, call: { action, input: { body: input.body } } };
    case 'message': {
      const to = actions.message?.to ?? [];
      if (typeof input.to !== 'string' || !to.includes(input.to))
        return { ok: false, reason: `destination '${String(input.to)}' is not allowed for messages on this route; allowed: ${to.join(', ')}` };
      if (!nonEmpty(input.text)) return { ok: false, reason: 'message needs a non-empty text' };
      return { ok: true, call: { action, input: { to: input.to, text: input.text } } };
    }
    case 'subscribe': {
      if (!nonEmpty(input.name)) return { ok: false, reason: 'subscribe needs the name of the route to create' };
      return { ok: true, call: { action, input } };
    }
  }
}
