// `schedule:` on a static route: the route also runs on a cron schedule, each tick one event of type `schedule`
// (schedules/, docs/configuration.md#schedules).

export const scheduleSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['cron'],
  description:
    "Runs the route on a schedule as well: each tick is one event of type schedule (its payload plus scheduled_at), through the route's filter, prompt, agent, budgets and delivery, once across every gateway sharing the store. Routes in config.yaml only. See docs/configuration.md#schedules.",
  properties: {
    cron: {
      type: 'string',
      pattern: '\\S',
      description: 'Cron expression: five fields (minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5"), or six with seconds first.',
    },
    timezone: { type: 'string', pattern: '\\S', description: 'IANA time zone the expression is read in (e.g. Europe/Berlin); default UTC.' },
    payload: { type: 'object', description: "The payload of each tick; scheduled_at (the tick's time, ISO 8601 in UTC) is added to it." },
    catch_up: {
      type: 'string',
      enum: ['latest', 'none'],
      default: 'latest',
      description: 'Ticks missed while every gateway was stopped: latest runs the latest of them once at start; none runs none.',
    },
  },
} as const;

export interface ScheduleConfig {
  cron: string;
  timezone?: string;
  payload?: Record<string, unknown>;
  catch_up?: 'latest' | 'none';
}
