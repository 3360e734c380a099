// homeassistant: the Home Assistant REST API. Without a target the answer becomes a
// persistent notification (shown in the HA sidebar); with `notify.<service>` it goes through that notify
// service (mobile app push, a chat integration, ...). Both are service calls: POST
// /api/services/<domain>/<service>, answered with the list of states the call changed.
import {
  classifyHttpStatus,
  definePlatform,
  deliveryKey,
  extraValue,
  joinUrl,
  platformOptionsSchema,
  renderChunkTemplate,
  type HttpRequest,
  type HttpResponse,
  type OutgoingChunk,
  type PlatformFailure,
  type PlatformOptions,
} from '@hookwise/kit/platform';

export interface RestApiOptions extends PlatformOptions {
  /** The Home Assistant URL, e.g. http://homeassistant.local:8123. */
  api_base: string;
  token: string;
  /** Title template: {route}, {event}, {delivery_id}. Default DEFAULT_TITLE. */
  title?: string;
}

/** Characters per notification: mobile push payloads are small (about 4 KB), so parts stay well under that. */
export const MESSAGE_LIMIT = 4000;
export const DEFAULT_TITLE = 'Hookwise: {route}';

const NOTIFY_TARGET = /^notify\.([a-z0-9_]{1,100})$/;
const PERSISTENT = 'persistent_notification';

/** Where a chunk goes: the notify service named by chat_id / home_channel, else a persistent notification. */
function serviceCall(chunk: OutgoingChunk, o: RestApiOptions): { path: string; json: Record<string, string> } {
  const target = chunk.target;
  const title = extraValue(chunk.extra, 'title') ?? o.title ?? DEFAULT_TITLE;
  const rendered = renderChunkTemplate(title, chunk);
  if (!target || target === PERSISTENT) {
    // A fixed notification_id per chunk: a retried delivery replaces its notification instead of adding one.
    return {
      path: '/api/services/persistent_notification/create',
      json: { message: chunk.text, title: rendered, notification_id: `hookwise_${deliveryKey(chunk, '_')}` },
    };
  }
  // Checked by the kit before anything is sent (targets.check); the service name is [a-z0-9_] only.
  const notify = NOTIFY_TARGET.exec(target)!;
  return { path: `/api/services/notify/${notify[1]}`, json: { message: chunk.text, ...(rendered ? { title: rendered } : {}) } };
}

/** Home Assistant answers errors as text ("401: Unauthorized", "400: Bad Request") or `{message}`. */
export function checkRestApiResponse(res: HttpResponse): PlatformFailure | undefined {
  if (res.status < 300) return undefined;
  const detail = (res.json as { message?: string } | undefined)?.message ?? (res.text.trim().slice(0, 200) || '(empty body)');
  // HA answers 400 when the service does not exist (ServiceNotFound) or rejects the data.
  if (res.status === 400) return { kind: 'target', message: `HTTP 400: ${detail} (check that the notify service exists: Developer tools > Actions)` };
  return classifyHttpStatus(res, detail);
}

export const homeAssistantPlatform = definePlatform<RestApiOptions>({
  id: 'homeassistant',
  aliases: ['platform_09'],
  title: 'Home Assistant',
  description: 'Sends answers as Home Assistant persistent notifications or through a notify service.',
  limit: MESSAGE_LIMIT,
  maxParts: 5,
  targets: {
    format:
      '"notify.<service>" (e.g. notify.mobile_app_pixel_7, see Developer tools > Actions), "persistent_notification", or no chat_id for a persistent notification',
    check: (target) => (target === PERSISTENT || NOTIFY_TARGET.test(target) ? undefined : 'it is not a notify service'),
  },
  optionsSchema: platformOptionsSchema({
    // No default: the user's own Home Assistant.
    properties: {
      token: { type: 'string', minLength: 20, description: 'Long-lived access token (Profile > Security).' },
      title: { type: 'string', default: DEFAULT_TITLE, description: 'Notification title; {route}, {event}, {delivery_id}.' },
      home_channel: {
        type: 'string',
        pattern: '^(notify\\.[a-z0-9_]+|persistent_notification)$',
        description: 'Default target: notify.<service>, or persistent_notification (the default without it).',
      },
    },
    required: ['token'],
  }),
  secrets: (o) => [o.token],
  credentialsHint: 'check platforms.homeassistant.token (a long-lived access token from your Home Assistant profile > Security)',
  // Optional target: without chat_id and home_channel the answer is a persistent notification.
  needsTarget: () => false,
  optionalTarget: true,
  request: (chunk, o): HttpRequest => {
    const call = serviceCall(chunk, o);
    return { method: 'POST', url: joinUrl(o.api_base, call.path), bearer: o.token, json: call.json };
  },
  checkResponse: checkRestApiResponse,
  // POST /api/services/<domain>/<service>: "Returns a list of states that have changed while the service was being executed."
  success: { describe: 'the JSON list of changed states', test: (res) => Array.isArray(res.json) },
  async start({ call, options, logger }) {
    const res = await call({ method: 'GET', url: joinUrl(options.api_base, '/api/'), bearer: options.token });
    logger.info(`homeassistant (Home Assistant): ${(res.json as { message?: string } | undefined)?.message ?? 'connected'}`);
  },
});
