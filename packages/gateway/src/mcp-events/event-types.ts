// The event types the gateway offers over MCP Events: every route is one (its name), and a route that names the
// event types it accepts (`events: [push, pull_request]`) also offers `<route>/<event>` for each of them. Which
// of them a client sees is its `events:` list of names and glob patterns (mcp.clients.<name>.events).
import { eventAccepted, normaliseEventType } from '../ingest/events';
import type { Route } from '../routes/routes';

export interface EventType {
  /** `<route>` or `<route>/<event>`. */
  name: string;
  route: string;
  /** Set for `<route>/<event>`: only jobs of this event type. */
  event?: string;
  description: string;
}

/** An event name a source reports that can stand in a type name (no glob, no slash). */
const EVENT_NAME = /^[A-Za-z0-9_.:-]+$/;

/** Whether a job's event (as its source named it) is a type's event: the same name, or the same normalised. */
export function isTypeEvent(typeEvent: string, jobEvent: string | undefined): boolean {
  return jobEvent !== undefined && eventAccepted([typeEvent], jobEvent);
}

/** The route and event of a type's name: `prs` is route prs, `prs/pull_request` its pull_request events. */
export function partsOfTypeName(name: string): { route: string; event?: string } {
  const slash = name.indexOf('/');
  return slash < 0 ? { route: name } : { route: name.slice(0, slash), event: name.slice(slash + 1) };
}

export function eventTypesOf(routes: readonly Route[]): EventType[] {
  const types: EventType[] = [];
  for (const route of routes) {
    const about = route.description ? `: ${route.description}` : '';
    types.push({ name: route.name, route: route.name, description: `Events accepted on route '${route.name}'${about}` });
    for (const listed of route.events) {
      // A name a type cannot hold (GitLab's `Merge Request Hook`) is offered in its normalised form (`merge_request`).
      const event = EVENT_NAME.test(listed) ? listed : normaliseEventType(listed);
      if (!EVENT_NAME.test(event) || types.some((t) => t.name === `${route.name}/${event}`)) continue;
      types.push({
        name: `${route.name}/${event}`,
        route: route.name,
        event,
        description: `'${event}' events accepted on route '${route.name}'${about}`,
      });
    }
  }
  return types;
}

/** A glob of a client's `events:` list as a regular expression: `*` matches within one part (never a `/`). */
function globOf(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]*');
  return new RegExp(`^${body}$`);
}

/** Which event types a list of patterns grants: a type matched by name, or whose route is granted whole. */
export class EventGrant {
  private readonly globs: RegExp[];

  constructor(patterns: readonly string[]) {
    this.globs = patterns.map(globOf);
  }

  allows(type: Pick<EventType, 'name' | 'route'>): boolean {
    return this.globs.some((glob) => glob.test(type.name) || glob.test(type.route));
  }
}
